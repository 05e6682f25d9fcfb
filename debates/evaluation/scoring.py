"""Scoring one finished question: each model's blind answer, their majority vote, the verdict.

The blind answer is the model's round-0 contribution (the first ``answer`` or ``vote`` round):
nobody had seen anyone else's answer, so it is that model alone — Du et al.'s single agent. The
majority groups the blind answers as the vote protocol does (consensus.group); a tie is no
majority and counts as wrong. The verdict is the moderator's after the debate (a vote's
decision); a run that failed or ended without a decision (needs review) has none: wrong.
"""

from typing import Any

from django.conf import settings

from debates.engine import consensus
from debates.engine.reading.ballot import Ballot
from debates.evaluation import answers
from debates.evaluation.models import EvaluationItem
from debates.models import Contribution, Outcome, Question, Status

BLIND_KINDS = ("answer", "vote")
DECIDED = (Status.DONE, Status.ANSWERED)


def score(item: EvaluationItem, question: Question) -> dict[str, Any]:
    """The item's result fields, from its finished question."""
    kind = answers.Kind(item.kind)
    options = tuple(item.options)
    readings = blind_answers(question, kind, options)
    for reading in readings:
        reading["correct"] = answers.same(reading["read"], item.expected, kind)
    majority, tie = majority_of(readings)
    # A run that ended without a decision has no verdict to read ("No consensus: agreement 2/3…" is not "2").
    decided = question.status in DECIDED and question.verdict
    verdict_read = answers.canonical(question.verdict, kind, options) if decided else ""
    return {
        "status": question.status,
        "answers": readings,
        "majority": majority,
        "majority_tie": tie,
        "majority_correct": not tie and answers.same(majority, item.expected, kind),
        "verdict": question.verdict,
        "verdict_read": verdict_read,
        "verdict_correct": answers.same(verdict_read, item.expected, kind),
        "grounded": question.rounds.filter(kind="grounding").exists(),
        "calls": question.calls,
        "tokens_in": question.tokens_in,
        "tokens_out": question.tokens_out,
        "cost": question.cost,
    }


def blind_answers(question: Question, kind: answers.Kind, options: tuple[str, ...]) -> list[dict[str, Any]]:
    """Per panelist of the frozen roster, in its order: its round-0 answer as written and as read."""
    blind = question.rounds.filter(kind__in=BLIND_KINDS).order_by("index").first()
    stored = {c.seat: c for c in Contribution.objects.filter(round=blind)} if blind else {}
    readings = []
    for entry in (e for e in question.roster if e["seat"].startswith("p")):
        contribution = stored.get(entry["seat"])
        identity = {"name": entry["name"], "model": entry["model"], "label": entry["label"]}
        if contribution is None or contribution.status != Outcome.DONE:
            source = contribution.status if contribution else "missing"
            readings.append(identity | {"answer": "", "read": "", "source": source})
            continue
        line = contribution.decision if contribution.kind == "vote" else str(contribution.ledger.get("answer", ""))
        reading = answers.read(line, contribution.text, kind, options)
        readings.append(identity | {"answer": reading.answer, "read": reading.read, "source": reading.source})
    return readings


def majority_of(readings: list[dict[str, Any]]) -> tuple[str, bool]:
    """The largest group of read answers, and whether another group is as large (a tie: no majority)."""
    ballots = [Ballot(r["name"], r["read"], None, "") for r in readings if r["read"]]
    if not ballots:
        return "", False
    groups, _notes = consensus.group(ballots, settings.TEOREMA["VOTE_SIMILARITY"])
    top = len(groups[0][1])
    tied = [decision for decision, members in groups if len(members) == top]
    return (" / ".join(tied), True) if len(tied) > 1 else (groups[0][0], False)
