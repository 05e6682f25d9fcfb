"""The track record of each panelist across the history a user may see, in a fixed number of queries.

Every figure is an SQL aggregate (docs/track-record.md says how each is computed and read): over
the contributions for calls, failures, flags, tokens, cost, latency and position changes; over
the Standing rows track.reading keeps (one per voice per finished question: the side it took,
its stated confidence) for siding with the verdict, dissent, calibration and agreement. No query
returns one row per contribution, and their number does not depend on how many are stored.
"""

from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TypedDict

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    Case,
    Count,
    F,
    FilteredRelation,
    FloatField,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Sum,
    TextField,
    Value,
    When,
    Window,
)
from django.db.models.expressions import Combinable
from django.db.models.fields.json import KT
from django.db.models.functions import Cast, Coalesce, Floor, Least, Length, RowNumber
from django.utils import timezone

from debates.models import (
    FINISHED,
    Contradiction,
    Contribution,
    Held,
    Outcome,
    Panel,
    Panelist,
    Question,
    Standing,
)
from debates.track import reading
from debates.track.measures import independent_voices, kappa, ratio

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

CHANGE_KINDS = ("final", "critique_final", "debate", "dissent")  # the kinds whose closing block has a CHANGE line
MICRODOLLAR = Decimal("0.000001")  # Contribution.cost's precision
BINS = 10  # reliability bins of width 0.1
MIN_SHARED = 5  # questions every pair of a panel must share before its independent voices are estimated
SCORES = {Held.RIGHT: 1.0, Held.PARTLY: 0.5, Held.WRONG: 0.0}
# Words of the engine's flags (engine/gates.py, engine/calls.py) and of its errors (providers/
# faults.py, providers/client.py, engine/calls.py, engine/vote.py), first match wins.
FLAG_KINDS = ("sycophancy", "confidence theatre", "no attack", "truncated")
GATE_KINDS = {
    "status message": ("a status message",),
    "error message": ("an error message", "an error dump"),
    "refusal": ("a refusal",),
    "empty or too short": ("empty answer", "too short"),
    "off-topic": ("off-topic",),
    "unusable vote": ("unusable vote",),
}
FAILURE_KINDS = {
    "key rejected": ("rejected the key",),
    "rate limited": ("rate limiting",),
    "overloaded": ("overloaded",),
    "server error": ("server error", "embedded model failed"),
    "timeout or stall": ("did not finish within", "stalled"),
    "could not connect": ("could not connect",),
    "connection dropped": ("dropped", "ended before"),
    "malformed or empty": ("malformed", "empty answer"),
    "blocked": ("blocked the prompt", "withheld the answer"),
    "request refused": ("refused the request", "is not usable"),
}
OTHER = "other"


class Judged(TypedDict):
    """What ``build`` annotates each Standing with: the verdict's outcome, whether the voice was right."""

    score: float | None
    right: float | None


type Standings = "QuerySet[WithAnnotations[Standing, Judged]]"


# --- whether a voice was right -----------------------------------------------------------------


def outcome_score(question: str, person_decided: str) -> Case:
    """The verdict's outcome as a number: right 1, partly 0.5, wrong 0; a person's decision on a
    vote that needed review makes the option decided right; NULL: no outcome. ``question`` is the
    path to the question, ``person_decided`` to its Reading's flag."""
    whens = [When(**{f"{question}__verdict_outcome__value": value}, then=score) for value, score in SCORES.items()]
    whens.append(When(**{person_decided: True}, then=1.0))
    return Case(*whens, output_field=FloatField())


def right() -> Case:
    """1 when the voice's side matched the outcome (sided with a right verdict, or dissented from a
    wrong one), 0.5 on a verdict judged partly right, 0 otherwise, NULL without an outcome."""
    return Case(When(side=1, then=F("score")), When(side=0, then=1.0 - F("score")), output_field=FloatField())


def classify(kinds: dict[str, tuple[str, ...]], status: str) -> list[When]:
    """Cases naming the kind of a contribution of this status by the words of its error."""
    return [
        When(status=status, error__icontains=word, then=Value(kind)) for kind, words in kinds.items() for word in words
    ]


# --- what the page and the JSON show -------------------------------------------------------------


@dataclass
class Record:
    """One panelist's track record."""

    id: int
    name: str = ""
    model: str = ""
    family: str = ""
    provider: str = ""
    calls: int = 0
    failed: int = 0
    gated: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: Decimal = Decimal("0")
    latency_median_ms: int | None = None
    latency_p95_ms: int | None = None
    positions: int = 0
    known: int = 0
    sided: int = 0
    reservations: int = 0
    lone_dissents: int = 0
    dissents_judged: int = 0
    dissents_right: float = 0.0
    changes: int = 0
    total_changes: int = 0
    changes_with_reason: int = 0
    changes_judged: int = 0
    changes_toward: int = 0
    changes_away: int = 0
    flagged: int = 0
    flags: dict[str, int] = field(default_factory=dict)
    failures: dict[str, int] = field(default_factory=dict)
    gate_rejections: dict[str, int] = field(default_factory=dict)
    contradicted: int = 0
    calibration_n: int = 0
    squared_error: float = 0.0

    @property
    def sided_rate(self) -> float | None:
        return ratio(self.sided, self.known)

    @property
    def dissent_right_rate(self) -> float | None:
        return ratio(self.dissents_right, self.dissents_judged)

    @property
    def brier(self) -> float | None:
        return ratio(self.squared_error, self.calibration_n)

    @property
    def flag_words(self) -> str:
        """The flags by kind, and the claims SymPy contradicted, in a line."""
        words = [f"{kind} {n}" for kind, n in self.flags.items()]
        return " · ".join(words + ([f"{self.contradicted} contradicted by SymPy"] if self.contradicted else []))

    @property
    def failure_words(self) -> str:
        """Failures and gate rejections by kind, in a line."""
        failed = [f"{kind} {n}" for kind, n in self.failures.items()]
        return " · ".join(failed + [f"gated: {kind} {n}" for kind, n in self.gate_rejections.items()])

    @property
    def cost_per_question(self) -> Decimal | None:
        return self.cost / self.positions if self.positions else None

    def as_dict(self) -> dict:
        return {
            "id": self.id,
            "name": self.name,
            "model": self.model,
            "family": self.family,
            "provider": self.provider,
            "questions": self.positions,
            "sided_with_verdict": {
                "sided": self.sided,
                "of": self.known,
                "rate": self.sided_rate,
                "with_reservations": self.reservations,
            },
            "lone_dissent": {
                "count": self.lone_dissents,
                "judged": self.dissents_judged,
                "right": self.dissents_right,
                "right_rate": self.dissent_right_rate,
            },
            "position_changes": {
                "count": self.changes,
                "total": self.total_changes,
                "partial": self.changes - self.total_changes,
                "with_reason": self.changes_with_reason,
                "without_reason": self.changes - self.changes_with_reason,
                "judged": self.changes_judged,
                "toward_outcome": self.changes_toward,
                "away_from_outcome": self.changes_away,
            },
            "flags": {"contributions": self.flagged, "by_kind": self.flags},
            "failures": {
                "failed": self.failed,
                "gated": self.gated,
                "failed_by_kind": self.failures,
                "gated_by_kind": self.gate_rejections,
            },
            "contradicted_by_facts": self.contradicted,
            "calibration": {"brier": self.brier, "n": self.calibration_n},
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": str(self.cost),
            "cost_per_question": None if self.cost_per_question is None else str(round(self.cost_per_question, 6)),
            "latency_ms": {"median": self.latency_median_ms, "p95": self.latency_p95_ms},
        }


@dataclass(frozen=True)
class Bin:
    """One bin of the reliability curve: answers stated between ``low`` and ``high``."""

    low: float
    high: float
    n: int
    confidence: float  # mean stated confidence
    right: float  # mean outcome (share right)


@dataclass(frozen=True)
class Calibration:
    """Stated confidence against outcome, pooled over every voice."""

    n: int
    positions: int
    contradicted_claims: int
    squared_error: float
    bins: list[Bin]

    @property
    def brier(self) -> float | None:
        return ratio(self.squared_error, self.n)


@dataclass(frozen=True)
class Pair:
    """Two voices on the questions both took a side on: both sided with the verdict, one did, neither."""

    a: int
    b: int
    both: int
    only_a: int
    only_b: int
    neither: int

    @property
    def questions(self) -> int:
        return self.both + self.only_a + self.only_b + self.neither

    @property
    def agreement(self) -> float | None:
        return ratio(self.both + self.neither, self.questions)

    @property
    def kappa(self) -> float | None:
        return kappa(self.both, self.only_a, self.only_b, self.neither)

    def __add__(self, other: "Pair") -> "Pair":
        return Pair(
            a=self.a,
            b=self.b,
            both=self.both + other.both,
            only_a=self.only_a + other.only_a,
            only_b=self.only_b + other.only_b,
            neither=self.neither + other.neither,
        )


@dataclass(frozen=True)
class PanelFigures:
    """A panel's voices, its families as the engine judges them, and its independent voices."""

    id: int
    name: str
    slug: str
    questions: int
    voices: list[tuple[int, str]]  # (panelist id, name)
    families: list[str]
    heterogeneity: str  # the engine's own note on its latest run
    evidence: str
    independent: float | None
    why_not: str = ""


@dataclass(frozen=True)
class Figures:
    """Everything the Models page and GET /api/models show."""

    questions: int
    with_outcome: int
    records: list[Record]
    calibration: Calibration
    pairs: list[Pair]
    panels: list[PanelFigures]
    computed_at: str = field(default_factory=lambda: timezone.now().isoformat())

    def as_dict(self) -> dict:
        """The figures as GET /api/models returns them (docs/api.md)."""
        names = {record.id: record.name for record in self.records}
        return {
            "questions": self.questions,
            "with_outcome": self.with_outcome,
            "panelists": [record.as_dict() for record in self.records],
            "calibration": {
                "brier": self.calibration.brier,
                "n": self.calibration.n,
                "positions": self.calibration.positions,
                "contradicted_claims": self.calibration.contradicted_claims,
                "bins": [vars(b) for b in self.calibration.bins],
            },
            "agreement": [
                {
                    "a": p.a,
                    "a_name": names.get(p.a, ""),
                    "b": p.b,
                    "b_name": names.get(p.b, ""),
                    "questions": p.questions,
                    "same_side": p.both + p.neither,
                    "agreement": p.agreement,
                    "kappa": p.kappa,
                }
                for p in self.pairs
            ],
            "panels": [
                {
                    "id": p.id,
                    "name": p.name,
                    "slug": p.slug,
                    "questions": p.questions,
                    "voices": [{"id": pk, "name": name} for pk, name in p.voices],
                    "families": p.families,
                    "heterogeneity": p.heterogeneity,
                    "evidence": p.evidence,
                    "independent_voices": p.independent,
                    "independent_voices_missing": p.why_not,
                }
                for p in self.panels
            ],
            "computed_at": self.computed_at,
        }


# --- the queries ------------------------------------------------------------------------------


def build(user: AbstractBaseUser | AnonymousUser) -> Figures:
    """Every figure over the finished questions ``user`` may see (staff: all)."""
    reading.read_pending()
    finished = Question.objects.visible_to(user).filter(status__in=FINISHED)
    calls = Contribution.objects.filter(round__question__in=finished, panelist__isnull=False)
    standings = Standing.objects.filter(reading__question__in=finished).annotate(
        score=outcome_score("reading__question", "reading__person_decided"), right=right()
    )
    contradictions = Contradiction.objects.filter(reading__question__in=finished)
    records: dict[int, Record] = {}

    def record(pk: int) -> Record:
        return records.setdefault(pk, Record(pk))

    _calls(calls, record)
    _kinds(calls, record)
    _latency(calls, record)
    _positions(standings, contradictions, record)
    _changes(calls, record)
    for panelist in Panelist.objects.filter(pk__in=list(records)).select_related("provider"):
        into = records[panelist.pk]
        into.name, into.model, into.family = panelist.name, panelist.model, panelist.family
        into.provider = panelist.provider.name
    judged = Q(verdict_outcome__isnull=False) | Q(reading__person_decided=True)
    counts = finished.aggregate(n=Count("pk"), outcomes=Count("pk", filter=judged))
    pairs_by_panel = _pairs(standings)
    return Figures(
        questions=counts["n"],
        with_outcome=counts["outcomes"],
        records=sorted(records.values(), key=lambda r: (-r.positions, r.name)),
        calibration=_calibration(standings, contradictions),
        pairs=_merged(pairs_by_panel),
        panels=_panels(finished, standings, pairs_by_panel, records),
    )


type Recorder = Callable[[int], Record]


def _calls(calls: QuerySet[Contribution], record: Recorder) -> None:
    rows = calls.values("panelist").annotate(
        calls=Count("pk"),
        failed=Count("pk", filter=Q(status=Outcome.FAILED)),
        gated=Count("pk", filter=Q(status=Outcome.GATED)),
        tokens_in=Sum("tokens_in"),
        tokens_out=Sum("tokens_out"),
        cost=Sum("cost"),
    )
    for row in rows:
        into = record(row["panelist"])
        into.calls, into.failed, into.gated = row["calls"], row["failed"], row["gated"]
        into.tokens_in, into.tokens_out = row["tokens_in"], row["tokens_out"]
        into.cost = (row["cost"] or Decimal("0")).quantize(MICRODOLLAR)  # SQLite sums decimals as floats
    # Only the flagged few have their flags read as text.
    kinds = {f"flag_{i}": Count("pk", filter=Q(flag_text__icontains=word)) for i, word in enumerate(FLAG_KINDS)}
    flagged: Iterable[Mapping[str, Any]] = (
        calls.exclude(flags=[])
        .annotate(flag_text=Cast("flags", output_field=TextField()))
        .values("panelist")
        .annotate(flagged=Count("pk"), **kinds)
    )
    for counted in flagged:
        into = record(counted["panelist"])
        into.flagged = counted["flagged"]
        into.flags = {kind: counted[f"flag_{i}"] for i, kind in enumerate(FLAG_KINDS) if counted[f"flag_{i}"]}


def _kinds(calls: QuerySet[Contribution], record: Recorder) -> None:
    """Failures and gate rejections by kind, read from their error text."""
    kind = Case(*classify(GATE_KINDS, Outcome.GATED), *classify(FAILURE_KINDS, Outcome.FAILED), default=Value(OTHER))
    rows = calls.filter(status__in=[Outcome.FAILED, Outcome.GATED]).annotate(why=kind)
    for row in rows.values("panelist", "status", "why").annotate(n=Count("pk")):
        into = record(row["panelist"])
        (into.failures if row["status"] == Outcome.FAILED else into.gate_rejections)[row["why"]] = row["n"]


def _latency(calls: QuerySet[Contribution], record: Recorder) -> None:
    """Median and p95 by nearest rank: the value at rank ⌈p·n⌉ of the panelist's done calls."""
    ranked = calls.filter(status=Outcome.DONE).annotate(
        rank=Window(RowNumber(), partition_by=F("panelist"), order_by=[F("latency_ms").asc(), F("pk").asc()]),
        n=Window(Count("pk"), partition_by=F("panelist")),
    )
    median, p95 = (F("n") + 1) / 2, (F("n") * 95 + 99) / 100
    for row in ranked.filter(Q(rank=median) | Q(rank=p95)).values("panelist", "rank", "n", "latency_ms"):
        into = record(row["panelist"])
        if row["rank"] == (row["n"] + 1) // 2:
            into.latency_median_ms = row["latency_ms"]
        if row["rank"] == (row["n"] * 95 + 99) // 100:
            into.latency_p95_ms = row["latency_ms"]


def _squared_error(confidence: str) -> Combinable:
    """The Brier score's term: (stated confidence − outcome)²."""
    return (F(confidence) - F("right")) * (F(confidence) - F("right"))


def _positions(standings: Standings, contradictions: QuerySet[Contradiction], record: Recorder) -> None:
    """Siding with the verdict, lone dissent, and the Brier score's terms (with contradicted claims: wrong)."""
    calibrated = Q(right__isnull=False, confidence__isnull=False)
    rows = standings.values("panelist").annotate(
        positions=Count("pk"),
        known=Count("side"),
        sided=Count("pk", filter=Q(side=1)),
        reservations=Count("pk", filter=Q(reserved=True)),
        lone_dissents=Count("pk", filter=Q(lone=True)),
        lone_judged=Count("right", filter=Q(lone=True)),
        lone_right=Sum("right", filter=Q(lone=True)),
        calibration_n=Count("pk", filter=calibrated),
        squared_error=Sum(_squared_error("confidence"), filter=calibrated),
    )
    for row in rows:
        into = record(row["panelist"])
        into.positions, into.known = row["positions"], row["known"]
        into.sided, into.reservations = row["sided"], row["reservations"]
        into.lone_dissents, into.dissents_judged = row["lone_dissents"], row["lone_judged"]
        into.dissents_right = row["lone_right"] or 0.0
        into.calibration_n += row["calibration_n"]
        into.squared_error += row["squared_error"] or 0.0
    for claim in contradictions.values("contribution__panelist").annotate(
        n=Count("pk"), said=Count("confidence"), sq=Sum(F("confidence") * F("confidence"))
    ):
        into = record(claim["contribution__panelist"])
        into.contradicted, into.calibration_n = claim["n"], into.calibration_n + claim["said"]
        into.squared_error += claim["sq"] or 0.0


def _changes(calls: QuerySet[Contribution], record: Recorder) -> None:
    """Position changes a contribution's CHANGE line declared, and whether the voice ended on the outcome."""
    final = FilteredRelation(
        "round__question__reading__standings",
        condition=Q(round__question__reading__standings__panelist=F("panelist")),
    )
    changed = (
        calls.filter(kind__in=CHANGE_KINDS, ledger__change__degree__in=["partial", "total"])
        .alias(final=final)
        .annotate(
            side=F("final__side"),
            score=outcome_score("round__question", "round__question__reading__person_decided"),
            reason=Length(Coalesce(KT("ledger__change__reason"), Value(""))),
        )
        .annotate(right=right())
    )
    rows = changed.values("panelist").annotate(
        n=Count("pk"),
        total=Count("pk", filter=Q(ledger__change__degree="total")),
        with_reason=Count("pk", filter=Q(reason__gt=0)),
        judged=Count("right"),
        toward=Count("pk", filter=Q(right=1)),
        away=Count("pk", filter=Q(right=0)),
    )
    for row in rows:
        into = record(row["panelist"])
        into.changes, into.total_changes, into.changes_with_reason = row["n"], row["total"], row["with_reason"]
        into.changes_judged, into.changes_toward, into.changes_away = row["judged"], row["toward"], row["away"]


def _calibration(standings: Standings, contradictions: QuerySet[Contradiction]) -> Calibration:
    """Stated confidence against outcome, pooled: each position with both, and each contradicted
    claim with a confidence (its outcome: wrong)."""
    bin_of = Least(Floor(F("confidence") * BINS), Value(BINS - 1), output_field=IntegerField())
    n: dict[int, int] = defaultdict(int)
    said: dict[int, float] = defaultdict(float)
    right_sum: dict[int, float] = defaultdict(float)
    squared = 0.0
    rows = (
        standings.filter(right__isnull=False, confidence__isnull=False)
        .annotate(bin=bin_of)
        .values("bin")
        .annotate(n=Count("pk"), said=Sum("confidence"), right_sum=Sum("right"), sq=Sum(_squared_error("confidence")))
    )
    for row in rows:
        n[row["bin"]], said[row["bin"]], right_sum[row["bin"]] = row["n"], row["said"], row["right_sum"]
        squared += row["sq"]
    from_positions = sum(n.values())
    claims = (
        contradictions.filter(confidence__isnull=False)
        .annotate(bin=bin_of)
        .values("bin")
        .annotate(n=Count("pk"), said=Sum("confidence"), sq=Sum(F("confidence") * F("confidence")))
    )
    for claim in claims:  # each one wrong: it adds to the count and the confidence, not to the right
        n[claim["bin"]] += claim["n"]
        said[claim["bin"]] += claim["said"]
        squared += claim["sq"]
    bins = [Bin(b / BINS, (b + 1) / BINS, n[b], said[b] / n[b], right_sum[b] / n[b]) for b in sorted(n) if n[b]]
    return Calibration(sum(n.values()), from_positions, sum(n.values()) - from_positions, squared, bins)


def _pairs(standings: Standings) -> dict[int, list[Pair]]:
    """Per panel, each pair of voices that took a side on the same questions: how often they took the same."""
    peer = FilteredRelation(
        "reading__standings",
        condition=Q(reading__standings__panelist__gt=F("panelist"), reading__standings__side__isnull=False),
    )
    rows = (
        standings.filter(side__isnull=False)
        .alias(peer=peer)
        .values("reading__question__panel", "panelist", "peer__panelist")
        .annotate(
            both=Count("pk", filter=Q(side=1, peer__side=1)),
            only_a=Count("pk", filter=Q(side=1, peer__side=0)),
            only_b=Count("pk", filter=Q(side=0, peer__side=1)),
            neither=Count("pk", filter=Q(side=0, peer__side=0)),
        )
    )
    by_panel: dict[int, list[Pair]] = defaultdict(list)
    for row in rows:
        if row["peer__panelist"] is not None:
            counts = row["both"], row["only_a"], row["only_b"], row["neither"]
            by_panel[row["reading__question__panel"]].append(Pair(row["panelist"], row["peer__panelist"], *counts))
    return by_panel


def _merged(by_panel: dict[int, list[Pair]]) -> list[Pair]:
    """The pairs over every panel they sat on together (for the heat map)."""
    merged: dict[tuple[int, int], Pair] = {}
    for pairs in by_panel.values():
        for pair in pairs:
            key = pair.a, pair.b
            merged[key] = merged[key] + pair if key in merged else pair
    return [merged[key] for key in sorted(merged)]


def _panels(
    finished: QuerySet[Question],
    standings: Standings,
    pairs_by_panel: dict[int, list[Pair]],
    records: dict[int, Record],
) -> list[PanelFigures]:
    """Each panel's voices and families (the engine's heterogeneity) next to its independent voices."""
    voices: dict[int, set[int]] = defaultdict(set)
    for row in standings.values("reading__question__panel", "panelist").distinct():
        voices[row["reading__question__panel"]].add(row["panelist"])
    asked = dict(finished.filter(panel__in=list(voices)).values_list("panel").annotate(n=Count("pk")))
    latest = finished.filter(panel=OuterRef("pk")).order_by("-created_at")
    panels = Panel.objects.filter(pk__in=list(voices)).annotate(
        note=Subquery(latest.annotate(note=KT("panel_run__note")).values("note")[:1]),
        evidence=Subquery(latest.annotate(evidence=KT("panel_run__evidence")).values("evidence")[:1]),
    )
    found = []
    for panel in panels.order_by("name"):
        members = sorted(voices[panel.pk], key=lambda pk: records[pk].name)
        independent, why_not = _independent(members, pairs_by_panel.get(panel.pk, []))
        families = sorted({records[pk].family.casefold() for pk in members})
        named = [(pk, records[pk].name) for pk in members]
        found.append(
            PanelFigures(
                id=panel.pk,
                name=panel.name,
                slug=panel.slug,
                questions=asked[panel.pk],
                voices=named,
                families=families,
                heterogeneity=panel.note or "",
                evidence=panel.evidence or "",
                independent=independent,
                why_not=why_not,
            )
        )
    return found


def _independent(members: list[int], pairs: list[Pair]) -> tuple[float | None, str]:
    """N_eff from the pairs' kappas, once every pair shares MIN_SHARED questions; else why not."""
    if len(members) < 2:
        return None, "one voice"
    shared = {(p.a, p.b): p.kappa for p in pairs if p.questions >= MIN_SHARED}
    matrix = [[1.0 if a == b else shared.get((min(a, b), max(a, b))) for b in members] for a in members]
    if any(value is None for row in matrix for value in row):
        return None, f"needs {MIN_SHARED} questions shared by every pair of its voices"
    return independent_voices(matrix), ""  # type: ignore[arg-type]
