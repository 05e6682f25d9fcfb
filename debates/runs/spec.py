"""What a run is given: the roster frozen when it starts, the engine's spec, the stored contributions."""

import json
import statistics
from dataclasses import replace

from django.conf import settings
from django.utils import timezone

from debates.conversations import threads
from debates.engine.dossier import shuffled_labels
from debates.engine.events import ContributionResult
from debates.engine.spec import RunSpec, Seat
from debates.engine.vocabulary import Criticality, DebateMode, FailurePolicy, Method, Outcome, Protocol, StepKind
from debates.models import Contribution, Panel, Panelist, Question
from debates.roster.voices import voice_from_panelist


class RosterGone(Exception):
    """The frozen roster cannot be run any more (a panelist was deleted)."""


def freeze_roster(question: Question) -> list[dict]:
    """The voices of this run with shuffled labels; later roster edits do not change it. A panel
    seat searches the web when its panelist may (on a provider that can), the question lets it
    and the panel does not forbid it; the moderator and the judges never do (they weigh what the panel found)."""
    panel = question.panel
    roster = panel.roster()
    searching = question.search and not panel.forbid_search
    entries = [
        _entry(f"p{i}", label, panelist) | {"search": searching and panelist.may_search}
        for i, (panelist, label) in enumerate(zip(roster, shuffled_labels(len(roster)), strict=True), 1)
    ]
    entries.append(_entry("moderator", "Moderator", panel.moderator))
    if panel.tie_breaker:
        entries.append(_entry("tie_breaker", "Tie-breaker", panel.tie_breaker))
    if panel.fallback_moderator:
        entries.append(_entry("fallback_moderator", "Moderator (stand-in)", panel.fallback_moderator))
    if panel.judge:
        entries.append(_entry("judge", "Judge", panel.judge))
    return entries


def freeze(question: Question) -> None:
    """Freeze the roster of a run starting for the first time, and note when it started."""
    question.roster = freeze_roster(question)
    question.started_at = timezone.now()
    question.save(update_fields=["roster", "started_at"])


def _entry(seat: str, label: str, panelist: Panelist) -> dict:
    sight = panelist.sight()  # frozen with the roster: which voice saw which file stays as it was
    return {
        "seat": seat,
        "label": label,
        "panelist_id": panelist.pk,
        "name": panelist.name,
        "model": panelist.model,
        "family": panelist.family,
        "provider": panelist.provider.name,
        "method": panelist.method,
        "vision": sight.vision,
        "pdf": sight.pdf,
    }


def seat_panelists(roster: list[dict]) -> dict[str, int | None]:
    """Seat key -> the panelist whose calls it makes: the judge's seat is the moderator's model's
    unless the panel names a judge."""
    found = {entry["seat"]: entry["panelist_id"] for entry in roster}
    found.setdefault("judge", found.get("moderator"))
    return found


def spec_for(question: Question) -> RunSpec:
    """Rebuild the engine's input from the frozen roster (keys are read fresh: they may rotate)."""
    panelists = current_panelists(question)
    seats = {}
    for entry in question.roster:
        panelist = panelists.get(entry["panelist_id"])
        if panelist is None:
            raise RosterGone(f"{entry['label']} ({entry['name']}) was deleted from the roster; the run cannot go on.")
        voice = voice_from_panelist(panelist)
        voice = replace(
            voice,
            model=entry["model"],
            search=voice.search and entry.get("search", False),
            vision=entry.get("vision", False),
            pdf=entry.get("pdf", False),
        )
        seats[entry["seat"]] = Seat(
            entry["seat"],
            entry["label"],
            voice,
            entry["name"],
            entry["family"],
            entry["provider"],
            Method(entry["method"]),
        )
    panel = question.panel
    deadline = question.deadline or panel.deadline
    return RunSpec(
        question=question.text,
        context=threads.context_for(question),  # a follow-up's carries the verdict it follows
        attachments=tuple(row.as_attached() for row in threads.attachments_for(question)),
        protocol=Protocol(panel.protocol),
        seats=tuple(s for k, s in seats.items() if k.startswith("p")),
        moderator=seats["moderator"],
        tie_breaker=seats.get("tie_breaker"),
        fallback_moderator=seats.get("fallback_moderator"),
        judge=seats.get("judge"),
        facilitator_brief=panel.facilitator_brief,
        options=tuple(question.options or panel.options),
        criticality=Criticality(question.criticality),
        force_panel=question.force_panel,
        rounds=panel.rounds,
        merge_critique=panel.merge_critique,
        revote_on_dissent=panel.revote_on_dissent,
        failure_policy=FailurePolicy(question.failure_policy or panel.failure_policy),
        quorum=panel.quorum,
        similarity=settings.TEOREMA["VOTE_SIMILARITY"],
        debate=DebateMode(question.debate or panel.debate),
        deadline=deadline,
        synthesis_time=synthesis_time(question.roster) if deadline else None,
        checks=question.checks and question.grounding,
        schema=json.dumps(question.answer_schema) if question.answer_schema else "",
    )


def current_panelists(question: Question) -> dict[int, Panelist]:
    """The frozen roster's panelists as they are now: those its panel came with (debates.roster.panels,
    as lease.claim reads it), else in one query."""
    wanted = {entry["panelist_id"] for entry in question.roster}
    panel = question.panel
    if getattr(panel, "prefetched_seats", None) is not None:
        roles = [getattr(panel, role) for role in Panel.JUDGES]
        held = {p.pk: p for p in [*panel.roster(), *roles] if p is not None}
        if wanted <= held.keys():
            return {pk: held[pk] for pk in wanted}
    return Panelist.objects.select_related("provider").in_bulk(list(wanted))


def synthesis_time(roster: list[dict]) -> float | None:
    """The moderator's median time for a synthesis over its last 20, in seconds (None: it wrote none yet)."""
    moderator = next((e["panelist_id"] for e in roster if e["seat"] == "moderator"), 0)
    latencies = Contribution.objects.filter(panelist_id=moderator, kind=StepKind.SYNTHESIS, status=Outcome.DONE)
    recent = list(latencies.order_by("-pk").values_list("latency_ms", flat=True)[:20])
    return statistics.median(recent) / 1000 if recent else None


def prior_for(question_id: int) -> dict[tuple[int, str], ContributionResult]:
    """The stored contributions of a run, as the engine replays them on resume."""
    stored = Contribution.objects.filter(round__question_id=question_id).select_related("round")
    return {(row.round.index, row.seat): row.as_result() for row in stored}
