"""Reading finished questions once for the track record: each voice's side, and contradicted claims.

Where a voice stood is stored inside JSON written by the engine — the ledger's stances keyed by
the voice's label, a vote's consensus groups — and reading that JSON on every request costs a
parse per contribution and per figure (seconds at 100,000 contributions). So each finished
question is read once, in SQL (track.sql), into narrow Standing rows that the figures aggregate;
a question is read again when its status changes (a person decides a vote that needed review).
Reading is incremental: a request reads only the questions that finished since the last one.

The same pass finds the claims that SymPy's verified facts contradict. A run keeps its facts
only in the text of its grounding contribution (the brief the panel read, Grounding.as_brief),
and the contradictions the engine told the moderator are not stored, so they are found again
here with the engine's own ``grounding.contradictions``.
"""

import re
from collections import defaultdict
from collections.abc import Iterable
from typing import TYPE_CHECKING, TypedDict

from django.db import IntegrityError, transaction
from django.db.models import Case, Exists, F, FloatField, IntegerField, OuterRef, Q, Value, When
from django.db.models.expressions import Combinable
from django.db.models.functions import Coalesce, NullIf

from debates.grounding import Fact, contradictions
from debates.models import (
    FINISHED,
    Contradiction,
    Contribution,
    Outcome,
    Protocol,
    Question,
    Reading,
    Standing,
)
from debates.track.sql import ClaimsConfidence, InGroup, JsonText, StanceSide

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations

POSITION_KINDS = ("answer", "vote")  # a voice's position: its blind answer, or its first ballot
BATCH = 1000  # questions read per transaction
SYMPY_SEAT = "sympy"
# One line of Grounding.as_brief's verified facts: "- arithmetic: `2+2` → `4`".
FACT_LINE = re.compile(r"^- (?P<kind>\w+): `(?P<expression>[^`]+)` → `(?P<result>[^`]+)`$", re.MULTILINE)


def read_pending() -> int:
    """Read every finished question not read yet, or read before its status changed; how many were."""
    read = Reading.objects.filter(question=OuterRef("pk"), status=OuterRef("status"))
    pending = list(Question.objects.filter(status__in=FINISHED).filter(~Exists(read)).values_list("pk", flat=True))
    for start in range(0, len(pending), BATCH):
        try:
            with transaction.atomic():
                read_questions(pending[start : start + BATCH])
        except IntegrityError:
            continue  # another request read these at the same time
    return len(pending)


def read_questions(ids: list[int]) -> None:
    """(Re)read these questions: their readings, standings and contradictions."""
    Reading.objects.filter(question_id__in=ids).delete()
    person = InGroup(F("consensus"), F("human_decision"))
    questions = Question.objects.filter(pk__in=ids).annotate(
        person=Case(
            When(~Q(human_decision="") & Q(panel__protocol=Protocol.VOTE) & person, then=Value(True)),
            default=Value(False),
        )
    )
    readings = Reading.objects.bulk_create(
        Reading(question_id=q.pk, status=q.status, person_decided=q.person) for q in questions.only("status")
    )
    by_question = {reading.question_id: reading for reading in readings}
    Standing.objects.bulk_create(standings(ids, by_question))
    grounded = Contribution.objects.filter(round__question_id__in=ids, seat=SYMPY_SEAT, status=Outcome.DONE)
    briefs = {row.round.question_id: facts_of(row.text) for row in grounded.select_related("round")}
    if briefs := {pk: found for pk, found in briefs.items() if found}:
        voices = Contribution.objects.filter(round__question_id__in=briefs, status=Outcome.DONE, panelist__isnull=False)
        Contradiction.objects.bulk_create(
            found
            for voice in voices.select_related("round").annotate(said=said())
            for found in contradicted(by_question[voice.round.question_id], voice, briefs[voice.round.question_id])
        )


def standings(ids: list[int], readings: dict[int, Reading]) -> list[Standing]:
    """Each voice's position on these questions, its side computed in SQL; the lone dissenter marked."""
    rows = (
        Contribution.objects.filter(round__question_id__in=ids, kind__in=POSITION_KINDS, panelist__isnull=False)
        .annotate(side=side(), stance=stance(), said=said())
        .values_list("round__question_id", "panelist_id", "side", "stance", "said")
    )
    by_question: dict[int, list[Standing]] = defaultdict(list)
    for question, panelist, taken, ledger_stance, confidence in rows:
        reserved = taken == 1 and ledger_stance == "partly"
        by_question[question].append(
            Standing(
                reading=readings[question], panelist_id=panelist, side=taken, reserved=reserved, confidence=confidence
            )
        )
    for voices in by_question.values():
        known = [voice for voice in voices if voice.side is not None]
        dissenters = [voice for voice in known if voice.side == 0]
        if len(known) >= 3 and len(dissenters) == 1:
            dissenters[0].lone = True
    return [voice for voices in by_question.values() for voice in voices]


# --- the side a voice took, in SQL -------------------------------------------------------------


def decided() -> Combinable:
    """A vote's decided option: a person's decision, else the tie-breaker's, else the consensus's."""
    consensus = F("round__question__consensus")
    return Coalesce(
        NullIf(F("round__question__human_decision"), Value("")),
        JsonText(consensus, "tie_breaker", "decision"),
        JsonText(consensus, "decision"),
    )


def stance() -> JsonText:
    """The voice's stance in the question's ledger: agrees, partly, disagrees or unknown."""
    return JsonText(F("round__question__ledger"), "stances", F("label"), "stance")


def side() -> Case:
    """1: the voice sided with the verdict; 0: it did not; NULL: unknown.

    Vote: its ballot is in the consensus group that was decided (by the threshold, the
    tie-breaker or a person). Teorema and adversarial: its ledger stance against the verdict
    (agrees or partly: 1; disagrees: 0).
    """
    consensus = F("round__question__consensus")
    in_group = Case(When(InGroup(consensus, decided(), F("label")), then=1), default=0)
    vote = Case(When(InGroup(consensus, decided()), then=in_group))
    return Case(
        When(round__question__panel__protocol=Protocol.VOTE, then=vote),
        default=StanceSide(stance()),
        output_field=IntegerField(),
    )


def said() -> Coalesce:
    """The confidence a voice stated: its ballot's, else the mean of its claims' confidences."""
    return Coalesce(F("confidence"), ClaimsConfidence(F("ledger")), output_field=FloatField())


# --- claims the verified facts contradict ------------------------------------------------------


def facts_of(brief: str) -> tuple[Fact, ...]:
    """The verified facts listed in a grounding brief (its "Not verified" notes are no facts)."""
    verified = brief.split("### Not verified", 1)[0]
    return tuple(Fact(m["kind"], m["expression"], m["result"]) for m in FACT_LINE.finditer(verified))


class Said(TypedDict):
    said: float | None


def contradicted(
    reading: Reading, voice: "WithAnnotations[Contribution, Said]", facts: tuple[Fact, ...]
) -> Iterable[Contradiction]:
    """A contradiction per refuted claim of its ledger (with the claim's confidence), then per
    refuted sentence elsewhere in its text (with what the voice stated: ``said``, annotated)."""
    seen: set[str] = set()
    claims = voice.ledger.get("claims", []) if isinstance(voice.ledger, dict) else []
    for claim in claims:
        for text in contradictions(facts, str(claim.get("text", ""))):
            seen.add(text)
            confidence = claim.get("confidence")
            yield Contradiction(
                reading=reading,
                contribution=voice,
                claim=str(claim.get("id", ""))[:40],
                confidence=confidence if isinstance(confidence, int | float) else voice.said,
                text=text,
            )
    for text in contradictions(facts, voice.text):
        if text not in seen:
            yield Contradiction(reading=reading, contribution=voice, confidence=voice.said, text=text)
