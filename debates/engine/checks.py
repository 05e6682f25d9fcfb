"""The numbers a round states, checked before the next round reads it (``steps.check``, a step
of the plan): what is checked, and what the results say.

After each round of a debate the run's grounder (SymPy, in a child process) checks the
computations its contributions state: each CALC line of a closing block (tied to the claim it
names), each claim, and the prose around the block. Each result (holds, does not hold, or not
checked and why) is stored as the step's contribution, so a resumed run replays it instead of
computing again; it goes into the ledger (checked ✓ / ✗ per claim); what was checked goes into
every later prompt as a fact (engine.prompts), and to the moderator, whose verdict may not rest
on a refuted claim without saying why (``unreasoned`` flags it). What was not checked is no fact:
it is shown, never put to a voice.
"""

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from debates.engine.events import ContributionResult
from debates.engine.reading import closing

SEAT = "checks"
LABEL = "SymPy"
RESTS_ON = "The synthesis rests on"  # how a flag of ``unreasoned`` begins (the page finds it by it)
# Words by which a moderator says why a refuted claim still counts, or that it does not.
REASONED = re.compile(
    r"\b(?:check(?:ed|s)?|refut\w*|sympy|does\s+not\s+hold|doesn't\s+hold|wrong|incorrect|mistaken|miscalculat\w*"
    r"|error|erroneous|despite|although|even\s+though|corrected|in\s+fact|actually|false)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Said:
    """A text a voice wrote in one round: one of its claims (``claim``: its id), a CALC line of its
    closing block (``calc``; ``claim``: the voice's own claim it names, if any), or its prose."""

    label: str
    round: int
    claim: str
    text: str
    calc: bool = False


def said(results: Iterable[ContributionResult]) -> list[Said]:
    """What a round's accepted contributions state: the CALC lines and each claim of their closing
    blocks, and the prose of each (claims written outside the block are in it)."""
    found: list[Said] = []
    for result in results:
        own = closing.claim_prefix(result.label)
        claims = {claim["id"] for claim in result.ledger.get("claims", [])}  # none in a later round's block
        for line in result.ledger.get("calcs", []):
            mine = re.fullmatch(rf"{re.escape(own)}\d+", line["claim"]) and (not claims or line["claim"] in claims)
            found.append(Said(result.label, result.round, line["claim"] if mine else "", line["text"], calc=True))
        for claim in result.ledger.get("claims", []):
            found.append(Said(result.label, result.round, claim["id"], claim["text"]))
        found.append(Said(result.label, result.round, "", closing.without_block(result.text)))
    return found


def decided(found: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """The checks that say whether their computation holds: the facts a later prompt reads."""
    return [c for c in found if c["holds"] is not None]


def unchecked(done: Iterable[Mapping[str, Any]], found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The checks not made before: a voice repeating a computation is not checked twice (one the
    time left unchecked is tried again)."""
    seen = {(c["label"], c["quote"]) for c in decided(done)}
    fresh = []
    for found_check in found:
        key = (found_check["label"], found_check["quote"])
        if key not in seen:
            seen.add(key)
            fresh.append(found_check)
    return fresh


def line(found: Mapping[str, Any]) -> str:
    """One check in words: who, which claim, what was computed, whether it holds (or, not checked,
    why: its computation says it)."""
    where = f"{found['label']}, {found['claim']}" if found.get("claim") else found["label"]
    if found["holds"] is None:
        return f"– {where}: “{found['quote']}” was {found['computation']}."
    verdict = "holds" if found["holds"] else "does not hold"
    return f"{'✓' if found['holds'] else '✗'} {where}: “{found['quote']}” {verdict}: {found['computation']}."


def order(found: Iterable[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """What does not hold first, then what holds, then what was not checked."""
    return sorted(found, key=lambda c: {False: 0, True: 1, None: 2}[c["holds"]])


def in_words(found: Iterable[Mapping[str, Any]]) -> str:
    """The checks as the step's card shows them: what does not hold first."""
    return "\n".join(f"- {line(c)}" for c in order(found))


def unreasoned(found: Iterable[Mapping[str, Any]], synthesis: str) -> list[str]:
    """The refuted claims a synthesis rests on without saying why: a paragraph that names the claim
    (its id, or its words) and no word of a check, an error or a reason."""
    flags = []
    paragraphs = [p for p in re.split(r"\n\s*\n", synthesis) if p.strip()]
    for refuted in (c for c in found if c["holds"] is False):
        quote = " ".join(refuted["quote"].split()).casefold()
        named = [
            p
            for p in paragraphs
            if quote in " ".join(p.split()).casefold()
            or (refuted.get("claim") and re.search(rf"(?<![\w.]){re.escape(refuted['claim'])}(?![\w])", p))
        ]
        if any(not REASONED.search(p) for p in named):
            who = f"{refuted['label']}'s {refuted['claim']}" if refuted.get("claim") else refuted["label"]
            flags.append(
                f"{RESTS_ON} {who} (“{refuted['quote']}”), which the check between rounds refuted "
                f"({refuted['computation']}), and does not say why it still stands"
            )
    return flags
