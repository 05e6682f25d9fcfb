"""Checks on what a voice returned: the verification gate and the anti-pattern flags.

The gate keeps phantom panelists out (seed 002): a status string, an error dump or an empty
or off-topic text is not an answer and never reaches a dossier. The flags mark sycophantic
reversals, confidence without a falsification condition and critiques that attack nothing;
they are shown to the user and the moderator, never used to drop a voice.
"""

import re

MIN_ANSWER_CHARS = 20

STATUS_STRING = re.compile(
    r"(?i)^\s*(?:processing|working on it|thinking|running|started|queued|pending|in progress|"
    r"task (?:started|queued|running|submitted)|please wait|loading|ok|done|success)\b[.!…\s]*$"
)
ERROR_DUMP = re.compile(
    r"(?im)^(?:traceback \(most recent call last\)|\s*File \".*\", line \d+|"
    r"\{?\s*\"?error\"?\s*:|\w*(?:Error|Exception): |HTTP/\d(?:\.\d)? [45]\d\d|<!DOCTYPE html)"
)
WORD = re.compile(r"\w{4,}", re.UNICODE)

REVERSAL = re.compile(
    r"(?i)\b(?:i concede|i was wrong|i now agree|i fully agree|i change my (?:position|answer|mind)|"
    r"i withdraw|i retract|i stand corrected|i adopt (?:panelist|the))"
)
REASON = re.compile(
    r"(?i)\b(?:because|since|given that|due to|as shown|the evidence|which shows|demonstrat|"
    r"counter-?example|reproduc|recalculat|verif|the reason|for example|e\.g\.|specifically)"
)
CONFIDENCE = re.compile(r"(?i)\bconfiden(?:ce|t)\b|\b\d{1,3}\s?%")
FALSIFICATION = re.compile(
    r"(?i)falsif|would (?:change|overturn|refute|invalidate)|fails (?:if|on|when)|"
    r"contradict|wrong if|disprove|unless|counter-?example"
)
ATTACK = re.compile(
    r"(?i)\b(?:incorrect|wrong|false|fails?|flaw|error|mistaken|unsupported|overlook|ignores?|"
    r"disagree|refute|oppose|however|but)\b|[\"“«].{8,}[\"”»]"
)


def gate(text: str, question: str) -> str:
    """Why ``text`` is not an answer to ``question``, or "" when it is one."""
    stripped = text.strip()
    if not stripped:
        return "empty answer"
    if STATUS_STRING.match(stripped):
        return f"a status string, not an answer ({stripped[:40]!r})"
    if len(stripped) < MIN_ANSWER_CHARS:
        return f"too short to be an answer ({len(stripped)} characters)"
    if ERROR_DUMP.search(stripped[:400]):
        return "an error dump, not an answer"
    asked = {w.casefold() for w in WORD.findall(question)}
    said = {w.casefold() for w in WORD.findall(stripped)}
    # Off-topic only when the question is wordy enough to judge and the answer shares nothing.
    if len(asked) >= 4 and len(said) >= 10 and not asked & said:
        return "off-topic: it shares no term with the question"
    return ""


def phantom(text: str) -> str:
    """The gate for later rounds: only phantom checks, no topic test."""
    return gate(text, "")


def flags(kind: str, text: str) -> tuple[str, ...]:
    """Anti-pattern flags for one contribution of the given kind."""
    found = []
    if kind in {"final", "critique_final", "debate", "revote"} and REVERSAL.search(text) and not REASON.search(text):
        found.append("sycophancy: reversed position without giving reasons")
    if kind in {"final", "critique_final", "answer"} and CONFIDENCE.search(text) and not FALSIFICATION.search(text):
        found.append("confidence theatre: a confidence without a falsification condition counts as missing")
    if kind in {"critique", "critique_final"} and not ATTACK.search(text):
        found.append("no attack: agreement without new arguments is a failed round")
    return tuple(found)
