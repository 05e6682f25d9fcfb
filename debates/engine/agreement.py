"""Who gives the same answer: a round's answers grouped by meaning, the one source of agreement.

on_dissent's decision, each voice's stance, the emerging answer, shared and contested claims, a
vote's groups, the moderator's "what to weigh" and the track record all read an ``Agreement``.

It is built from the judge's grouping where the panel's judge made one (``from_judge``), checked
by the guards the judge cannot overrule (engine.guards: different numbers of one quantity, yes
against no, one answer negating the very proposition of the other): a group that breaks one is
split where it breaks, and said so; what the guards only notice is said, the grouping standing. Without
a usable judgement it is built from the wording alone (``by_wording``: only what is surely the
same counts as one), and says so. A voice whose change of position has no reason of substance,
or that answers another question, weighs nothing toward agreement.
"""

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from debates.engine import consensus, guards
from debates.engine.reading.ballot import Ballot
from debates.engine.reading.judgement import Judgement

JUDGE = "judge"
WORDING = "wording"


@dataclass(frozen=True)
class Member:
    label: str
    reservation: str = ""  # "": the group's answer, fully; else the reservation, in a few words


@dataclass(frozen=True)
class Group:
    answer: str  # the group's answer in a few words
    members: tuple[Member, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        return tuple(m.label for m in self.members)


@dataclass(frozen=True)
class Agreement:
    """A round's answers grouped: by the judge, or by wording only, and what weighs nothing."""

    method: str  # JUDGE or WORDING
    groups: tuple[Group, ...]  # largest first; only voices whose answer counts
    unplaced: tuple[str, ...] = ()  # no answer to place (no ANSWER line, and no judge to read the text)
    unexplained: tuple[str, ...] = ()  # changed position without a reason of substance: weighs nothing
    off_topic: tuple[str, ...] = ()  # answers another question (the judge says): weighs nothing
    same_claims: tuple[tuple[str, ...], ...] = ()  # claim ids the judge matched across voices
    notes: tuple[str, ...] = field(default=())  # refusals and fallbacks, in words

    @property
    def largest(self) -> Group | None:
        """The group larger than every other; None when there is none (no group, or a tie at the top)."""
        if not self.groups or self.split_evenly:
            return None
        return self.groups[0]

    @property
    def split_evenly(self) -> bool:
        return len(self.groups) > 1 and len(self.groups[1].members) == len(self.groups[0].members)

    @property
    def unanimous(self) -> bool:
        """Every voice that answered gives one answer (and at least two answered)."""
        return (
            len(self.groups) == 1
            and len(self.groups[0].members) >= consensus.MIN_VOTES
            and not (self.unplaced or self.unexplained or self.off_topic)
        )

    def group_of(self, label: str) -> Group | None:
        return next((g for g in self.groups if label in g.labels), None)

    def reservation(self, label: str) -> str:
        group = self.group_of(label)
        return next((m.reservation for m in group.members if m.label == label), "") if group else ""

    def answered(self) -> int:
        """Voices with an answer, counted or not (the denominator of "3/4 give one answer")."""
        placed = sum(len(g.members) for g in self.groups)
        return placed + len(self.unplaced) + len(self.unexplained) + len(self.off_topic)

    def in_words(self) -> list[str]:
        """The grouping for the moderator: by whom, which groups, what weighs nothing, and why."""
        how = "grouped by meaning by the panel's judge" if self.method == JUDGE else "grouped by wording only"
        lines = [f"The panel's latest answers, {how}:"]
        for group in self.groups:
            held = ", ".join(
                m.label + (f" (with a reservation: {m.reservation})" if m.reservation else "") for m in group.members
            )
            lines.append(f"“{group.answer}”: {held}")
        for labels, why in (
            (self.unplaced, "no answer that could be placed"),
            (self.unexplained, "changed position without a reason of substance: weighs nothing"),
            (self.off_topic, "answers another question: weighs nothing"),
        ):
            if labels:
                lines.append(f"{', '.join(labels)}: {why}")
        return [*lines, *self.notes]

    def as_dict(self) -> dict[str, Any]:
        return {
            "method": self.method,
            "groups": [
                {"answer": g.answer, "members": [{"label": m.label, "reservation": m.reservation} for m in g.members]}
                for g in self.groups
            ],
            "unplaced": list(self.unplaced),
            "unexplained": list(self.unexplained),
            "off_topic": list(self.off_topic),
            "same_claims": [list(ids) for ids in self.same_claims],
            "notes": list(self.notes),
            "split_evenly": self.split_evenly,
        }


def by_wording(
    answers: Mapping[str, str],
    similarity: float,
    unplaced: Iterable[str] = (),
    unexplained: Iterable[str] = (),
    notes: Iterable[str] = (),
) -> Agreement:
    """The answers grouped by their words alone: only what is surely the same is one answer."""
    weightless = set(unexplained)
    counted = {label: answer for label, answer in answers.items() if answer and label not in weightless}
    ballots = [Ballot(label, answer, None, "") for label, answer in counted.items()]
    grouped, kept_apart = consensus.group(ballots, similarity) if ballots else ([], [])
    groups = tuple(Group(answer, tuple(Member(b.label) for b in members)) for answer, members in grouped)
    no_answer = [label for label in answers if not answers[label] and label not in weightless]
    return Agreement(
        WORDING,
        groups,
        unplaced=tuple(sorted({*unplaced, *no_answer})),
        unexplained=tuple(sorted(weightless & set(answers))),
        notes=(*notes, *kept_apart),
    )


def from_judge(
    judgement: Judgement,
    answers: Mapping[str, str],
    similarity: float,
    unexplained: Iterable[str] = (),
    claims: Mapping[str, tuple[str, str]] | None = None,
) -> Agreement:
    """The judge's grouping, where the guards allow it; voices it left out are placed by wording.

    ``answers``: each voice's own answer line ("" without one), which the guards compare;
    ``claims``: claim id -> (author, text), for the claims the judge matched.
    """
    weightless = set(unexplained)
    off_topic = {label for label in judgement.off_topic if label in answers} - weightless
    notes = list(judgement.notes)
    groups: list[Group] = []
    placed: set[str] = set()
    for answer, members in judgement.groups:
        kept = [Member(label, reservation) for label, reservation in members if label in answers]
        kept = [m for m in kept if m.label not in weightless | off_topic | placed]
        placed |= {m.label for m in kept}
        for part, refusal in _within_guards(kept, answers, notes):
            groups.append(Group(_named(answer, part, answers), part))
            if refusal:
                notes.append(refusal)
    rest = {label: answer for label, answer in answers.items() if label not in placed | weightless | off_topic}
    if rest:
        by_words = by_wording(rest, similarity)
        groups += by_words.groups
        notes += [
            f"{label}: left out by the judge, placed by its wording" for g in by_words.groups for label in g.labels
        ]
        unplaced = by_words.unplaced
    else:
        unplaced = ()
    groups.sort(key=lambda g: (-len(g.members), g.answer.casefold()))
    return Agreement(
        JUDGE,
        tuple(groups),
        unplaced=tuple(unplaced),
        unexplained=tuple(sorted(weightless & set(answers))),
        off_topic=tuple(sorted(off_topic)),
        same_claims=_claim_matches(judgement.same_claims, claims or {}, notes),
        notes=tuple(notes),
    )


def _within_guards(
    members: list[Member], answers: Mapping[str, str], notes: list[str]
) -> list[tuple[tuple[Member, ...], str]]:
    """A judged group as parts whose answers no guard keeps apart; a part split off carries the
    refusal. What the guards only notice goes to ``notes``, the grouping standing."""
    parts: list[list[Member]] = []
    refusals: dict[int, str] = {}  # a part split off -> why
    for member in members:
        home = next((part for part in parts if not any(_clash(m, member, answers) for m in part)), None)
        if home is not None:
            notes += [n for m in home if (n := _doubt(m, member, answers))][:1]
            home.append(member)
            continue
        if parts:
            refusals[len(parts)] = next(c for m in parts[0] if (c := _clash(m, member, answers)))
        parts.append([member])
    return [(tuple(part), refusals.get(i, "")) for i, part in enumerate(parts)]


def _named(answer: str, part: tuple[Member, ...], answers: Mapping[str, str]) -> str:
    """A judged group's answer, unless the guards refuse it to the voices of this part (split off
    from the group): then the answer most of them wrote themselves ("no" on the "no" voice)."""
    own = [answers.get(m.label, "") for m in part]
    if not any(own) or not any(text and guards.conflict(answer, text) for text in own):
        return answer
    counts = Counter(text for text in own if text)
    return min(counts, key=lambda text: (-counts[text], len(text), text))


def _clash(a: Member, b: Member, answers: Mapping[str, str]) -> str:
    """The refusal of putting ``a`` and ``b`` in one group, in words; "" when the guards allow it."""
    first, second = answers.get(a.label, ""), answers.get(b.label, "")
    why = guards.conflict(first, second) if first and second else ""
    return (
        f"The judge grouped {_quoted(a, first)} with {_quoted(b, second)}: refused, {why}; kept apart." if why else ""
    )


def _doubt(a: Member, b: Member, answers: Mapping[str, str]) -> str:
    """What the guards noticed of ``a`` and ``b`` grouped by the judge, too weak to overrule it."""
    first, second = answers.get(a.label, ""), answers.get(b.label, "")
    why = guards.noticed(first, second) if first and second else ""
    return (
        f"The judge grouped {_quoted(a, first)} with {_quoted(b, second)}; noticed: {why}; the grouping stands."
        if why
        else ""
    )


def _quoted(member: Member, answer: str) -> str:
    return f"{member.label} (“{answer}”)"


def _claim_matches(
    matched: Iterable[tuple[str, ...]], claims: Mapping[str, tuple[str, str]], notes: list[str]
) -> tuple[tuple[str, ...], ...]:
    """The judge's claim matches that name real claims, one per voice, which the guards let be one."""
    found = []
    for ids in matched:
        kept: list[str] = []
        for claim in dict.fromkeys(ids):
            if claim not in claims or claims[claim][0] in {claims[k][0] for k in kept}:
                continue
            clash = next((why for k in kept if (why := guards.conflict(claims[k][1], claims[claim][1]))), "")
            if clash:
                notes.append(f"The judge matched claim {claim} with {', '.join(kept)}: refused, {clash}.")
                continue
            if doubt := next((why for k in kept if (why := guards.noticed(claims[k][1], claims[claim][1]))), ""):
                notes.append(
                    f"The judge matched claim {claim} with {', '.join(kept)}; noticed: {doubt}; the match stands."
                )
            kept.append(claim)
        if len(kept) > 1:
            found.append(tuple(kept))
    return tuple(found)
