"""The claim ledger as the question page draws it: stances, the claim × voice matrix, signals.

The engine stores ``Ledger.as_dict()`` (on the question, and in the live state as it grows);
this turns it into rows and cells a template can loop over. Every mark has a symbol, a colour
(by its CSS class) and words, so that nothing is said by colour alone.
"""

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from debates.engine import sourcing
from debates.engine.reading.closing import claim_prefix

# A voice's word on a claim -> (symbol, words, what it means), in the legend's order.
MARKS = {
    "claimed": ("●", "claimed", "its own claim"),
    "supported": ("✓", "supported", "made the same claim, or confirmed it"),
    "attacked": ("✗", "attacked", "attacked or refuted it"),
    "defended": ("◆", "defended", "its author held it under attack"),
    "conceded": ("↓", "conceded", "its author gave it up"),
    "partly": ("◑", "partly conceded", "its author gave up part of it"),
    "changed": ("↻", "changed", "its author changed position entirely"),
    "": ("·", "nothing said", "said nothing about it"),
}
STANCES = {  # a voice against the emerging answer -> (symbol, words)
    "agrees": ("✓", "agrees"),
    "partly": ("◐", "agrees in part"),
    "disagrees": ("✗", "disagrees"),
    "unexplained": ("↻", "changed without a reason (weighs nothing)"),
    "unknown": ("?", "not known"),
}
GROUPED_BY = {
    "judge": (
        "Grouped by meaning by the panel's judge, within the guards (numbers of one quantity, yes or no, "
        "an answer negating another's)."
    ),
    "wording": "Grouped by wording only: only answers in the same words count as one.",
}


@dataclass(frozen=True)
class Mark:
    state: str  # a key of MARKS

    @property
    def symbol(self) -> str:
        return MARKS.get(self.state, MARKS[""])[0]

    @property
    def words(self) -> str:
        return MARKS.get(self.state, (self.symbol, self.state))[1]

    @property
    def css(self) -> str:
        return self.state if self.state in MARKS and self.state else "none"


@dataclass(frozen=True)
class Cell:
    """What one voice did with one claim: at round 0, then at the end."""

    short: str  # "A": the voice, where the column header is not in view (the phone's stacked blocks)
    start: Mark
    end: Mark
    title: str  # the whole story, for the tooltip

    @property
    def moved(self) -> bool:
        return self.start != self.end

    @property
    def silent(self) -> bool:
        return not self.start.state and not self.end.state


@dataclass(frozen=True)
class Said:
    """One voice's word on a claim in a later round (engine.ledger's events)."""

    target: str
    by: str
    what: str
    kind: str  # refute, correct, logical_gap…
    reason: str

    @property
    def how(self) -> str:
        return self.kind.replace("_", " ")


CLAIM_STATUSES = ("standing", "contested", "conceded", "withdrawn")


@dataclass(frozen=True)
class Cited:
    """A page or a document a claim rests on: its footnote on the author's card."""

    number: int
    name: str
    url: str
    quote: str

    @property
    def link(self) -> str:
        return sourcing.link(self.url)


@dataclass(frozen=True)
class Checked:
    """A computation SymPy checked between rounds (engine.checks): who stated it, in which claim
    ("" when in the prose), whether it holds, and the computation that says so."""

    label: str
    claim: str
    quote: str
    holds: bool
    computation: str

    @property
    def symbol(self) -> str:
        return "✓" if self.holds else "✗"

    @property
    def words(self) -> str:
        return "holds" if self.holds else "does not hold"


def checked(ledger: Mapping[str, Any]) -> tuple[Checked, ...]:
    """The ledger's checks, what does not hold first."""
    found = (
        Checked(c["label"], c.get("claim", ""), c["quote"], c["holds"], c["computation"])
        for c in ledger.get("checks", [])
    )
    return tuple(sorted(found, key=lambda c: c.holds))


def with_checks(claims: list["Claim"], found: tuple[Checked, ...]) -> list["Claim"]:
    """Each claim with the checks of its own words: "checked ✓ / ✗" beside it."""
    return [replace(claim, checks=tuple(c for c in found if c.claim == claim.id)) for claim in claims]


@dataclass(frozen=True)
class Claim:
    id: str
    text: str
    kind: str
    confidence: int | None  # percent
    falsifier: str
    author: str
    status: str  # standing | contested | conceded | withdrawn
    cells: list[Cell]
    said: list[Said]  # what the voices said about it, in order
    sources: list[Cited]  # what it rests on (none: unsourced, where the run searched)
    checks: tuple[Checked, ...] = ()  # its computations, checked between rounds

    @property
    def check_marks(self) -> list[tuple[Checked, str]]:
        """One mark per outcome of its checks, what does not hold first, with every computation
        behind it: a claim stating two true computations is "checked ✓" once, not twice."""
        marks = []
        for holds in (False, True):
            alike = [c for c in self.checks if c.holds == holds]
            if alike:
                marks.append((alike[0], "; ".join(f"{c.quote}: {c.computation}" for c in alike)))
        return marks


@dataclass(frozen=True)
class Voice:
    label: str
    name: str  # the revealed panelist, once the run is over
    stance: str
    why: str
    moderator: str = ""  # the moderator's own word on this voice's stance, from its closing block

    @property
    def symbol(self) -> str:
        return STANCES.get(self.stance, STANCES["unknown"])[0]

    @property
    def words(self) -> str:
        return STANCES.get(self.stance, STANCES["unknown"])[1]

    @property
    def moderator_differs(self) -> bool:
        """The moderator read this voice otherwise than the agreement did: the page shows both."""
        return bool(self.moderator) and self.moderator != self.stance

    @property
    def moderator_words(self) -> str:
        return STANCES.get(self.moderator, STANCES["unknown"])[1]


@dataclass(frozen=True)
class LedgerView:
    emerging: str
    voices: list[Voice]
    claims: list[Claim]
    flags: list[str]
    unreadable: list[str]
    unmatched: list[dict[str, Any]]
    grouped_by: str = ""  # how the answers were grouped, in words
    agreement_notes: tuple[str, ...] = ()  # the guards' refusals, a judge that could not be used
    checks: tuple[Checked, ...] = ()  # every computation checked between rounds, in a claim or in the prose
    sourcing: bool = False  # some voice searched or cites a source: each claim is sourced or not

    @property
    def sourced(self) -> str:
        """How many claims rest on a source, in words ("2 of 5 sourced"), where the run searched."""
        if not self.sourcing:
            return ""
        return f"{sum(bool(claim.sources) for claim in self.claims)} of {len(self.claims)} sourced"

    @property
    def tally(self) -> str:
        """How the claims stand, in words ("3 standing, 1 contested"): the line of the folded table."""
        counts = Counter(claim.status for claim in self.claims)
        return ", ".join(f"{counts[status]} {status}" for status in CLAIM_STATUSES if counts[status])

    @property
    def checks_tally(self) -> str:
        """How the checks came out, in words ("1 does not hold, 2 hold"): the line of the folded list."""
        wrong = sum(not c.holds for c in self.checks)
        right = len(self.checks) - wrong
        said = [
            f"{wrong} {'does' if wrong == 1 else 'do'} not hold" if wrong else "",
            f"{right} {'holds' if right == 1 else 'hold'}" if right else "",
        ]
        return ", ".join(s for s in said if s)

    @property
    def legend(self) -> list[tuple[str, str, str, str]]:
        """(css, symbol, words, meaning) of every mark."""
        return [(Mark(state).css, symbol, words, meaning) for state, (symbol, words, meaning) in MARKS.items()]


def view(
    ledger: Mapping[str, Any], reveal: Iterable[Mapping[str, str]] = (), moderator: Mapping[str, str] | None = None
) -> LedgerView | None:
    """The ledger as drawn, with the revealed names when there are some and the moderator's word on
    each voice's stance once it gave one; None when it holds nothing to show."""
    names = {who.get("label", ""): who.get("name", "") for who in reveal}
    labels: list[str] = list(ledger.get("labels", []))
    stances: Mapping[str, Mapping[str, str]] = ledger.get("stances", {})
    voices = []
    for label in labels:
        stance = stances.get(label, {})
        said = (moderator or {}).get(label, "")
        voices.append(Voice(label, names.get(label, ""), stance.get("stance", "unknown"), stance.get("why", ""), said))
    agreement = ledger.get("agreement") or {}
    column = {label: i for i, label in enumerate(labels)}
    events = [
        Said(e["target"], e["by"], e["what"], e.get("kind", ""), e.get("reason", "")) for e in ledger.get("events", [])
    ]
    found = LedgerView(
        emerging=ledger.get("emerging", ""),
        voices=voices,
        # In the order of the columns: the engine lists claims as the answers came in.
        claims=sorted(
            (_claim(row, labels, events) for row in ledger.get("claims", [])),
            key=lambda c: column.get(c.author, len(column)),
        ),
        flags=list(ledger.get("flags", [])),
        unreadable=list(ledger.get("unreadable", [])),
        unmatched=list(ledger.get("unmatched", [])),
        grouped_by=GROUPED_BY.get(agreement.get("method", ""), ""),
        agreement_notes=tuple(agreement.get("notes", ())),
        checks=checked(ledger),
        sourcing=bool(ledger.get("sourcing")),
    )
    found = replace(found, claims=with_checks(found.claims, found.checks))
    return found if found.claims or found.flags or found.unreadable or stances or found.checks else None


def _claim(row: Mapping[str, Any], labels: list[str], events: list[Said]) -> Claim:
    said = [e for e in events if e.target == row["id"]]
    cells = []
    for label in labels:
        cell = row.get("cells", {}).get(label, {})
        start, end = Mark(cell.get("start", "")), Mark(cell.get("end", ""))
        story = f"{label} on {row['id']}: round 0 {start.words}, at the end {end.words}"
        if last := [e for e in said if e.by == label]:
            story += f" — {last[-1].reason or 'no reason given'}"
        cells.append(Cell(claim_prefix(label).rstrip("."), start, end, story))
    confidence = row.get("confidence")
    return Claim(
        id=row["id"],
        text=row.get("text", ""),
        kind=row.get("kind", ""),
        confidence=None if confidence is None else round(confidence * 100),
        falsifier=row.get("falsifier", ""),
        author=row.get("author", ""),
        status=row.get("status", ""),
        cells=cells,
        said=said,
        sources=[
            Cited(s.get("n", 0), s.get("name", ""), s.get("url", ""), s.get("quote", ""))
            for s in row.get("sources") or ()
            if isinstance(s, Mapping)
        ],
    )
