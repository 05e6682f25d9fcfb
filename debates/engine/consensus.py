"""The vote protocol's maths: parse structured votes, group similar decisions, apply thresholds.

Thresholds are exact fractions (2/3 is not 0.66); groups come from normalised fuzzy matching
(rapidfuzz) so "Approve." and "approve" are one decision.
"""

import json
import re
import unicodedata
from dataclasses import dataclass, field
from fractions import Fraction

from rapidfuzz import fuzz

THRESHOLDS: dict[str, Fraction] = {
    "low": Fraction(2, 3),
    "medium": Fraction(3, 4),
    "high": Fraction(4, 5),
}
MIN_VOTES = 2  # one voice agreeing with itself is not a consensus


class VoteParseError(ValueError):
    """The answer holds no usable decision; the message says why, for the user."""


@dataclass(frozen=True)
class Ballot:
    label: str
    decision: str
    confidence: float
    reasoning: str


@dataclass(frozen=True)
class Consensus:
    reached: bool
    decision: str | None
    agreement: Fraction
    threshold: Fraction
    votes: int
    groups: tuple[tuple[str, tuple[str, ...]], ...]  # (decision, labels), largest first
    dissenters: tuple[str, ...] = ()
    escalation: str = ""  # "", "human_review", "tie_breaker"
    notes: tuple[str, ...] = field(default=())

    def as_dict(self) -> dict:
        return {
            "reached": self.reached,
            "decision": self.decision,
            # Counts, not the reduced fraction: "2/4" says more than "1/2".
            "agreement": f"{len(self.groups[0][1]) if self.groups else 0}/{self.votes}",
            "agreement_ratio": float(self.agreement),
            "threshold": f"{self.threshold.numerator}/{self.threshold.denominator}",
            "threshold_ratio": float(self.threshold),
            "votes": self.votes,
            "groups": [{"decision": d, "labels": list(labels)} for d, labels in self.groups],
            "dissenters": list(self.dissenters),
            "escalation": self.escalation,
            "notes": list(self.notes),
        }


FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)


def parse_ballot(label: str, text: str) -> Ballot:
    """Find the JSON vote in an answer: fenced, bare, or followed by prose."""
    candidates = [m.group(1) for m in FENCE.finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in (i for i, ch in enumerate(candidate) if ch == "{"):
            try:
                obj, _ = decoder.raw_decode(candidate[start:])
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and "decision" in obj:
                return _ballot_from(label, obj)
    raise VoteParseError('no JSON object with a "decision" field was found in the answer')


def _ballot_from(label: str, obj: dict) -> Ballot:
    decision = obj.get("decision")
    if not isinstance(decision, str | int | float | bool) or not str(decision).strip():
        raise VoteParseError('the "decision" field is empty or not text')
    confidence = obj.get("confidence")
    if isinstance(confidence, str):
        match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(%?)\s*", confidence)
        if not match:
            raise VoteParseError(f"confidence {confidence!r} is not a number")
        confidence = float(match.group(1)) / (100 if match.group(2) else 1)
    if isinstance(confidence, bool) or not isinstance(confidence, int | float):
        raise VoteParseError('the "confidence" field is missing or not a number between 0 and 1')
    if 1 < confidence <= 100:
        confidence = confidence / 100  # "85" means 85 %
    if not 0 <= confidence <= 1:
        raise VoteParseError(f"confidence {confidence} is outside 0–1")
    reasoning = obj.get("reasoning", "")
    return Ballot(label, str(decision).strip(), float(confidence), str(reasoning).strip())


def normalise(decision: str) -> str:
    text = unicodedata.normalize("NFKC", decision).casefold()
    text = re.sub(r"[^\w\s]", " ", text)
    text = re.sub(r"\b(the|a|an)\b", " ", text)
    return " ".join(text.split())


def similar(a: str, b: str, similarity: float) -> bool:
    """Two normalised decisions are one when fuzzy-equal, unless they differ in a number or a
    single letter: "option a" and "option b" are 88% alike by edit distance, yet opposite."""
    if a == b:
        return True
    if any(token.isdigit() or len(token) == 1 for token in set(a.split()) ^ set(b.split())):
        return False
    return fuzz.ratio(a, b) >= similarity


def group(ballots: list[Ballot], similarity: float) -> list[tuple[str, list[Ballot]]]:
    """Greedy grouping in label order: a ballot joins the first group it is similar enough to."""
    groups: list[tuple[str, list[Ballot]]] = []
    for ballot in sorted(ballots, key=lambda b: b.label):
        key = normalise(ballot.decision)
        for canonical, members in groups:
            if similar(key, canonical, similarity):
                members.append(ballot)
                break
        else:
            groups.append((key, [ballot]))
    groups.sort(key=lambda g: -len(g[1]))
    return groups


def evaluate(ballots: list[Ballot], criticality: str, similarity: float) -> Consensus:
    """Consensus when the largest group's share reaches the criticality's threshold."""
    threshold = THRESHOLDS[criticality]
    if not ballots:
        return Consensus(False, None, Fraction(0), threshold, 0, (), notes=("no valid votes",))
    groups = group(ballots, similarity)
    _, top = groups[0]
    agreement = Fraction(len(top), len(ballots))
    tied = len(groups) > 1 and len(groups[1][1]) == len(top)
    reached = len(ballots) >= MIN_VOTES and agreement >= threshold and not tied
    notes = () if len(ballots) >= MIN_VOTES else (f"only {len(ballots)} valid vote: at least {MIN_VOTES} needed",)
    # Report the decision as a voter wrote it, not its normalised key.
    shown = [(members[0].decision, tuple(b.label for b in members)) for _, members in groups]
    dissenters = tuple(b.label for _, members in groups[1:] for b in members)
    escalation = "" if reached else ("human_review" if criticality == "high" else "tie_breaker")
    return Consensus(
        reached,
        top[0].decision if reached else None,
        agreement,
        threshold,
        len(ballots),
        tuple(shown),
        dissenters,
        escalation,
        notes,
    )
