"""Grouping and thresholds: which decisions count as one, and whether a group reaches the threshold.

Thresholds are exact fractions (2/3 is not 0.66). Grouping by wording is deliberately
conservative: a group counts as agreement, so two decisions share one only when they are surely
the same.

- With options from the asker, a ballot belongs to the option it names (its text in any
  spelling, its letter or number, or its distinctive words: ``sameness.option_named``); a ballot
  that names none, or two, is a vote for none of the options.
- Without, decisions are one when ``sameness.relation`` says they surely are: the same words, or
  words that differ only in filler or spelling ("postgres"/"postgresql", "approve"/"approved");
  never across a negation, an opposite, a number or a letter. Pairs that look alike yet are kept
  apart are named in ``Consensus.notes``.
- Groups are computed on the multiset of decisions, never on label order; a group is reported
  under its most common form as the voters wrote it (ties: shortest, then alphabetical).
"""

from collections import Counter
from dataclasses import dataclass, field, replace
from fractions import Fraction
from itertools import combinations
from typing import Any

from debates.engine.reading.ballot import NONE_OF_THE_OPTIONS, Ballot
from debates.engine.reading.text import clean_value
from debates.engine.reading.words import normalise
from debates.engine.sameness import option_named, relation
from debates.engine.vocabulary import Criticality

THRESHOLDS: dict[Criticality, Fraction] = {
    Criticality.LOW: Fraction(2, 3),
    Criticality.MEDIUM: Fraction(3, 4),
    Criticality.HIGH: Fraction(4, 5),
}
MIN_VOTES = 2  # one voice agreeing with itself is not a consensus
MAX_NOTES = 10


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
    seats: int = 0  # voters on the panel, when the caller says (a failed voter does not vote)
    grouped_by: str = ""  # "judge" or "wording" for free-text decisions; "" for the asker's options

    def as_dict(self) -> dict[str, Any]:
        return {
            "reached": self.reached,
            "decision": self.decision,
            # Counts, not the reduced fraction: "2/4" says more than "1/2".
            "agreement": f"{len(self.groups[0][1]) if self.groups else 0}/{self.votes}",
            "agreement_ratio": float(self.agreement),
            "threshold": f"{self.threshold.numerator}/{self.threshold.denominator}",
            "threshold_ratio": float(self.threshold),
            "votes": self.votes,
            "seats": max(self.seats, self.votes),
            "groups": [{"decision": d, "labels": list(labels)} for d, labels in self.groups],
            "dissenters": list(self.dissenters),
            "escalation": self.escalation,
            "notes": list(self.notes),
            "grouped_by": self.grouped_by,
        }


# --- grouping and thresholds -----------------------------------------------------------------


def group(ballots: list[Ballot], similarity: float) -> tuple[list[tuple[str, list[Ballot]]], list[str]]:
    """Groups of ballots that surely mean the same, largest first, and notes on pairs kept apart.

    Computed on the multiset of decision keys, so the order of the ballots cannot matter:
    keys are linked when surely the same; a linked set where some pair is not the same is
    split into cliques, most frequent key first.
    """
    by_key: dict[str, list[Ballot]] = {}
    for ballot in ballots:
        by_key.setdefault(normalise(ballot.decision), []).append(ballot)
    keys = sorted(by_key, key=lambda k: (-len(by_key[k]), k))
    form = {k: common_form(by_key[k]) for k in keys}
    relations = {(a, b): relation(form[a], form[b], similarity) for a, b in combinations(keys, 2)}
    same = {frozenset(pair) for pair, rel in relations.items() if rel.same}
    clusters: list[list[str]] = []
    for key in keys:
        home = next((c for c in clusters if all(frozenset((key, m)) in same for m in c)), None)
        if home is None:
            clusters.append([key])
        else:
            home.append(key)
    groups = [[b for k in cluster for b in by_key[k]] for cluster in clusters]
    shown = [(common_form(members), members) for members in groups]
    shown.sort(key=lambda g: (-len(g[1]), g[0].casefold(), g[0]))
    cluster_of = {k: i for i, cluster in enumerate(clusters) for k in cluster}
    notes = []
    for (a, b), rel in relations.items():
        if cluster_of[a] == cluster_of[b]:
            continue
        if rel.same:
            notes.append(f"“{form[a]}” and “{form[b]}” could be one decision but their groups could not merge")
        elif rel.why and rel.alike:
            notes.append(f"kept apart, not counted as agreement: “{form[a]}” and “{form[b]}” ({rel.why})")
    return [(d, sorted(m, key=lambda b: b.label)) for d, m in shown], sorted(notes)[:MAX_NOTES]


def common_form(ballots: list[Ballot]) -> str:
    """The form most voters wrote; ties go to the shortest, then the alphabetically first."""
    counts = Counter(clean_value(b.decision) for b in ballots)
    return min(counts, key=lambda f: (-counts[f], len(f), f))


@dataclass(frozen=True)
class Grouping:
    """Ballots already grouped by meaning, largest first, with the votes that count toward no group."""

    groups: tuple[tuple[str, tuple[Ballot, ...]], ...]
    weightless: tuple[Ballot, ...] = ()
    method: str = ""  # how they were grouped: by the judge, or by wording only
    notes: tuple[str, ...] = ()


def evaluate(
    ballots: list[Ballot],
    criticality: Criticality,
    similarity: float = 85.0,
    options: tuple[str, ...] = (),
    seats: int = 0,
    grouping: Grouping | None = None,
) -> Consensus:
    """Consensus when the largest group's share of the counted votes reaches the threshold.

    ``similarity`` (0–100) is how alike two words must be to count as one spelled two ways.
    With ``options``, a ballot counts for the option it names, or for none of them: a panel that
    agrees on none of the options reaches no decision. Without, ``grouping`` gives the ballots
    already grouped by meaning (the round's agreement), else they are grouped by wording; its
    ``weightless`` votes are cast but count toward no group. ``seats`` (the panel's voters) is only
    reported: the threshold applies to the votes cast.
    """
    threshold = THRESHOLDS[criticality]
    grouped, found, weightless = _grouped(ballots, similarity, options, grouping)
    notes = [b.note for b in sorted(ballots, key=lambda b: b.label) if b.note] + found
    counted = sum(len(members) for _, members in grouped) + len(weightless)
    if not counted:
        return Consensus(False, None, Fraction(0), threshold, 0, (), notes=(*notes, "no valid votes"), seats=seats)
    decision, agreement = _reached(grouped, counted, threshold)
    if counted < MIN_VOTES:
        notes.append(f"only {counted} valid vote: at least {MIN_VOTES} needed")
    escalation = "" if decision is not None else ("human_review" if criticality == Criticality.HIGH else "tie_breaker")
    return Consensus(
        decision is not None,
        decision,
        agreement,
        threshold,
        counted,
        tuple((d, tuple(b.label for b in members)) for d, members in grouped),
        tuple(b.label for _, members in grouped[1:] for b in members) + tuple(b.label for b in weightless),
        escalation,
        tuple(notes),
        seats,
        grouping.method if grouping is not None and not options else "",
    )


def _reached(grouped: list[tuple[str, list[Ballot]]], counted: int, threshold: Fraction) -> tuple[str | None, Fraction]:
    """The decision the largest group reaches (None: none is reached) and its share of the counted
    votes: a tie, too few votes, or a group that names no decision reach none."""
    top_decision, top = grouped[0] if grouped else ("", [])
    agreement = Fraction(len(top), counted)
    tied = len(grouped) > 1 and len(grouped[1][1]) == len(top)
    reached = (
        counted >= MIN_VOTES and agreement >= threshold and not tied and top_decision not in ("", NONE_OF_THE_OPTIONS)
    )
    return (top_decision if reached else None), agreement


def _grouped(
    ballots: list[Ballot], similarity: float, options: tuple[str, ...], grouping: Grouping | None
) -> tuple[list[tuple[str, list[Ballot]]], list[str], tuple[Ballot, ...]]:
    """The groups the votes count in, the notes on them, and the weightless votes: by option where
    there are options, else as ``grouping`` has them, else by wording."""
    if options:
        return *_by_option(ballots, options), ()
    if grouping is not None:
        notes = [
            *grouping.notes,
            *(
                f"{b.label} changed its vote without a reason of substance: its vote counts toward no group"
                for b in grouping.weightless
            ),
        ]
        return [(d, list(m)) for d, m in grouping.groups if m], notes, grouping.weightless
    return *(group(ballots, similarity) if ballots else ([], [])), ()


def on_options(ballot: Ballot, options: tuple[str, ...]) -> Ballot:
    """A ballot read against the asker's options: the option it names, as the asker wrote it, else
    a vote for none of them, said so in its note, never a guess at the nearest."""
    if not options or ballot.off_options:
        return ballot
    index = option_named(ballot.decision, options)
    if index is not None:
        return replace(ballot, decision=options[index].strip())
    note = "; ".join(filter(None, (_none_of_them(ballot), ballot.note)))
    return replace(ballot, decision=NONE_OF_THE_OPTIONS, note=note)


def _none_of_them(ballot: Ballot) -> str:
    return f"{ballot.label}'s decision “{ballot.decision}” is none of the options: a vote for none of them"


def _by_option(ballots: list[Ballot], options: tuple[str, ...]) -> tuple[list[tuple[str, list[Ballot]]], list[str]]:
    """Exact groups, one per option named; a ballot naming none is a vote for none of the options."""
    chosen: dict[int, list[Ballot]] = {}
    notes = []
    for ballot in sorted(ballots, key=lambda b: b.label):
        index = option_named(ballot.decision, options)
        if index is None:
            index = len(options)
            if not ballot.off_options:  # a ballot read with the options says so itself (its note)
                notes.append(_none_of_them(ballot))
        chosen.setdefault(index, []).append(ballot)
    order = sorted(chosen, key=lambda i: (-len(chosen[i]), i))
    named = [*(option.strip() for option in options), NONE_OF_THE_OPTIONS]
    return [(named[i], chosen[i]) for i in order], notes
