"""A ballot read: the decision, the confidence and the reasons in a voter's JSON, wherever it sits.

The vote is the last JSON-like object holding a "decision" (at any depth: some models nest it),
after any ``<think>`` block. The decision is read as written: which of the asker's options it
names is the consensus's question (``consensus.on_options``), which compares it as every decision
is compared. A confidence that cannot be read keeps the vote, with none stored and a
note saying why (the one confidence rule, ``reading.confidence``).
"""

from dataclasses import dataclass

from debates.engine.reading import confidence as confidences
from debates.engine.reading import jsonish
from debates.engine.reading.text import clean_value, placeholder, without_thinking

DECISION_KEYS = {"decision", "finaldecision"}
CONFIDENCE_KEYS = ("confidence", "confidencelevel", "confidencescore")
REASONING_KEYS = ("reasoning", "reason", "rationale", "justification", "explanation")
NONE_OF_THE_OPTIONS = "none of the options"


class VoteParseError(ValueError):
    """The answer holds no usable decision; the message says why, for the user."""


@dataclass(frozen=True)
class Ballot:
    label: str
    decision: str
    confidence: float | None  # None when the voter gave none, or gave one that could not be read
    reasoning: str
    note: str = ""  # what could not be taken as written (an unreadable confidence, no option named)

    @property
    def off_options(self) -> bool:
        return self.decision == NONE_OF_THE_OPTIONS


def parse_ballot(label: str, text: str) -> Ballot:
    """The vote in an answer, its decision as the voter wrote it."""
    body = without_thinking(text)
    for obj in reversed(jsonish.objects(body)):  # the vote is at the end
        fields = _vote_fields(obj)
        if fields is None:
            continue
        decision = _decision(fields[next(k for k in fields if k in DECISION_KEYS)])
        notes = []
        stated = confidences.read(next((fields[k] for k in CONFIDENCE_KEYS if k in fields), None), body)
        if stated.problem:
            notes.append(f"{label}'s {stated.problem}")
        reasoning = next((fields[k] for k in REASONING_KEYS if k in fields), "")
        if isinstance(reasoning, list):
            reasoning = " ".join(map(str, reasoning))
        return Ballot(label, decision, stated.value, str(reasoning or "").strip(), "; ".join(notes))
    raise VoteParseError('no JSON object with a "decision" field was found in the answer')


def _vote_fields(obj: dict[object, object], depth: int = 0) -> dict[str, object] | None:
    """The object's fields by normalised key, or those of a nested object holding the decision."""
    fields = jsonish.keyed(obj)
    if DECISION_KEYS & fields.keys():
        return fields
    if depth < 3:
        for value in obj.values():
            if isinstance(value, dict) and (nested := _vote_fields(value, depth + 1)) is not None:
                return nested
    return None


def _decision(value: object) -> str:
    if isinstance(value, list):
        named = {clean_value(str(v)) for v in value if str(v).strip()}
        if len({" ".join(v.casefold().split()) for v in named}) > 1:
            raise VoteParseError(f"the decision names several choices ({', '.join(sorted(named))}); give one")
        value = min(named, default="")
    if isinstance(value, bool):
        value = "yes" if value else "no"
    if not isinstance(value, str | int | float):
        raise VoteParseError('the "decision" field is empty or not text')
    decision = clean_value(str(value))
    if not decision:
        raise VoteParseError('the "decision" field is empty or not text')
    if placeholder(decision):
        raise VoteParseError(f"the decision {decision!r} is the prompt's placeholder, not a decision")
    return decision
