"""Whether a panel can run now, and what a run of it would cost and take.

The ask page's figures (``panel_options``) and the one rule for "cannot run" (``problems``), which
the ask form, the roster import, the question page's panel choices and ``manage.py evaluate`` share.
"""

import json
import statistics
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from debates.engine.attachments import IMAGE, PDF, Delivery, delivery
from debates.engine.protocols import Step, call_steps, planned_calls
from debates.models import CliReport, Contribution, Outcome, Panel, Panelist, Provider
from debates.providers import catalog, cli
from debates.providers.base import Voice
from debates.providers.presets import PRESETS, Wire
from debates.roster.estimate import Estimate, expected, judge_calls_of, judge_of, plan_of, ranged, searchers
from debates.roster.voices import endpoint_from_provider, voice_from_panelist

OPENAI_HOST = urlsplit(PRESETS["openai"].base_url).hostname
REPORT_EVERY = 30.0  # seconds between a debate worker's reports on the CLIs it can run (runs.clis)
REPORTS_KEPT = timedelta(seconds=3 * REPORT_EVERY)  # a worker silent longer is taken as gone


@dataclass(frozen=True)
class PanelOption:
    """A panel as the ask page shows it: what it runs and roughly what it costs."""

    panel: Panel
    voices: int
    families: list[str]
    calls: int
    cost: Decimal
    problems: list[str]
    warnings: list[str]
    setup: Provider | None  # the provider to give a key to, when that is what stops it
    seconds: float  # the run's expected duration
    measured: bool  # from the voices' past calls (else a guess)
    estimate: Estimate  # the cost as low / expected (``cost``) / high
    searching: tuple[str, ...] = ()  # the voices that search the web, unless the question turns it off
    search_cost: Decimal = Decimal(0)  # what their searches add to ``cost``: one search a call, planned
    sees_images: int = 0  # voices whose model reads an image natively
    reads_pdf: int = 0  # voices whose model takes a PDF as a document
    file_rates: dict[str, float | list[str]] = field(default_factory=dict)  # attach.js: $ a token costs, who reads how

    @property
    def file_rates_json(self) -> str:
        """``file_rates`` for the ask page's estimate of what attached files add (attach.js)."""
        return json.dumps(self.file_rates)

    @property
    def blind_to_images(self) -> str:
        """The warning an asker attaching an image gets before sending, when no voice can see one."""
        if self.sees_images:
            return ""
        return (
            "No voice of this panel can see images: each is told an image is attached that it cannot see. "
            "Pick a panel with a vision model, or describe the image in words."
        )

    @property
    def runnable(self) -> bool:
        return not self.problems

    @property
    def demo(self) -> bool:
        """Every voice on the embedded demo model: it shows the machinery, not meaningful answers."""
        voices = [*self.panel.roster(), self.panel.moderator]
        return all(p.provider.wire == Wire.LOCAL for p in voices)

    @classmethod
    def of(cls, panel: Panel) -> "PanelOption":
        members = panel.roster()
        steps = plan_of(panel)
        per_voice, moderator_calls = call_steps(steps, judging=False)
        judge_calls = judge_calls_of(panel, steps)
        cost, search_cost = expected(panel)
        calls = planned_calls(steps, len(members), judging=bool(judge_calls))
        families = sorted({p.family for p in members})
        seconds, measured = duration(panel, steps)
        searching = searchers(panel)
        sights = [p.sight() for p in members]
        # The judge's prompt carries the question's brief, files and all (engine/context.py), as the moderator's does.
        judge = [(judge_of(panel), judge_calls)] if judge_calls else []
        readers = [*((p, per_voice) for p in members), (panel.moderator, moderator_calls), *judge]
        return cls(
            panel=panel,
            voices=len(members),
            families=families,
            calls=calls,
            cost=cost,
            estimate=ranged(panel, cost, calls),
            problems=problems(panel),
            warnings=panel.self_judging(),
            setup=unkeyed_provider(panel),
            seconds=seconds,
            measured=measured,
            searching=tuple(p.name for p in searching),
            search_cost=search_cost,
            sees_images=sum(sight.vision for sight in sights),
            reads_pdf=sum(sight.pdf for sight in sights),
            file_rates=file_rates(readers),
        )


def file_rates(readers: list[tuple[Panelist, int]]) -> dict[str, float | list[str]]:
    """What one token of an attached file costs over a run, in dollars, by how the file is read: as
    text (a text file, by every call that reads the question), an image natively (by the voices
    whose model sees images), a PDF natively or as its text (by the voices that read PDFs or not).
    ``readers``: each voice that reads the question with its calls (the panel's, the moderator's, the
    judge's). ``unseen``, ``pdf_as_text``: the voices that get an image not at all, a PDF as its text
    (the engine's ``delivery`` rule), by name."""
    sights = {id(p): p.sight() for p, _calls in readers}

    def short_of(kind: str, how: Delivery) -> list[str]:
        got = (p.name for p, _calls in readers if delivery(kind, sights[id(p)].vision, sights[id(p)].pdf) == how)
        return list(dict.fromkeys(got))

    def rate(who: list[tuple[Panelist, int]]) -> float:
        return float(sum((calls * p.price_in for p, calls in who), Decimal(0)) / 1_000_000)

    return {
        "text": rate(readers),
        "image": rate([(p, c) for p, c in readers if sights[id(p)].vision]),
        "pdf_native": rate([(p, c) for p, c in readers if sights[id(p)].pdf]),
        "pdf_text": rate([(p, c) for p, c in readers if not sights[id(p)].pdf]),
        "calls": sum(c for _p, c in readers),
        "unseen": short_of(IMAGE, Delivery.UNSEEN),
        "pdf_as_text": short_of(PDF, Delivery.TEXT),
    }


def judges_of(panel: Panel) -> list[Panelist]:
    """Who answers besides the seats: the moderator, a tie-breaker and a judge when the panel names them."""
    return [panel.moderator, *(p for p in (panel.tie_breaker, panel.judge) if p is not None)]


def problems(panel: Panel) -> list[str]:
    """Why a panel cannot run now, in words: once per cause, naming the real one (a key named by
    an environment variable that is not set is not the same fix as a key never stored)."""
    return lineup_problems(panel.roster(), judges_of(panel))


def lineup_problems(members: list[Panelist], judges: list[Panelist]) -> list[str]:
    """Why these voices and judges cannot run now (see problems)."""
    voices = [*members, *judges]
    found = [] if members else ["it has no panelists"]
    keyless: dict[Provider, list[str]] = {}
    for p in dict.fromkeys(voices):
        if not p.enabled:
            found.append(f"{p.name} is disabled")
        elif not p.provider.enabled:
            found.append(f"the provider {p.provider.name} is disabled")
        elif not p.provider.has_usable_key:
            keyless.setdefault(p.provider, []).append(p.name)
        elif p.provider.wire == Wire.CLI and (unable := cli_problem(p.provider)):
            found.append(unable)
        elif wrong := wrong_wire(p):
            found.append(wrong)
    for provider, names in keyless.items():
        found.append(f"{provider.name} has no key for {', '.join(names)}: {missing_key(provider)}")
    return list(dict.fromkeys(found))


def cli_problem(provider: Provider) -> str:
    """Why a CLI voice cannot run where the debates run, or "": its program is not installed or not
    logged in on this machine (the single process runs its debates), or, in the server setup, on
    every debate worker that reported on it lately (a worker's machine has its own CLIs and logins)."""
    if settings.RUN_IN_PROCESS:
        unable = cli_here(provider)
        return unable and f"{unable} on the machine that runs the debates"
    reported = list(
        CliReport.objects.filter(provider=provider, seen_at__gte=timezone.now() - REPORTS_KEPT).values_list(
            "problem", flat=True
        )
    )
    if not reported:
        return (
            f"no debate worker has said whether it can run {provider.name} (each reports every "
            f"{REPORT_EVERY:.0f} s): start `manage.py debate_worker` where its CLI is installed and logged in"
        )
    if "" in reported:
        return ""
    workers = "the one worker" if len(reported) == 1 else f"each of the {len(reported)} workers"
    return f"no debate worker can run {provider.name}: {reported[0]} (on {workers})"


def cli_here(provider: Provider) -> str:
    """Why this machine cannot run a CLI provider, or "": its program missing, or not logged in
    (read without a call; where only a call can tell, nothing is said)."""
    login = cli.logged_in(endpoint_from_provider(provider))
    return login.said if login.ready is False else ""


def wrong_wire(panelist: Panelist) -> str:
    """Why a panelist's call would be refused by its provider's wire, or "": a model OpenAI serves only
    through its Responses API, seated on OpenAI's own Chat Completions (another server, a router's, may
    serve it its own way: nothing is said there)."""
    provider = panelist.provider
    if provider.wire != Wire.OPENAI or not catalog.responses_only(panelist.model):
        return ""
    preset = PRESETS.get(provider.preset)
    if urlsplit(provider.base_url or (preset.base_url if preset else "")).hostname != OPENAI_HOST:
        return ""
    return (
        f"{panelist.name}'s model {panelist.model} is served by OpenAI only through its Responses API, not "
        f"through Chat Completions, which {provider.name} speaks: seat it on a provider with the preset "
        f"“{PRESETS['openai_responses'].label}” (or set {provider.name}'s wire protocol to “{Wire.RESPONSES.label}”)"
    )


def missing_key(provider: Provider) -> str:
    """Why a provider that needs a key has none, naming the fix: an unset variable is not a key never stored."""
    if provider.api_key_env:
        return f"{provider.api_key_env} is not set in the server's environment"
    return "no API key is stored for it"


def probe_voice(provider: Provider) -> Voice:
    """The voice "test connection" calls: the provider's first enabled panelist, else one with no
    model (``check`` then lists the models, which costs nothing)."""
    panelist = provider.panelists.filter(enabled=True).first()
    if panelist is not None:
        return voice_from_panelist(panelist)
    return Voice(name=provider.name, model="", endpoint=endpoint_from_provider(provider))


def next_step() -> tuple[str, Provider | Panelist | None]:
    """What a roster on the demo model lacks next for real answers, as the ask page says it: a provider
    key ("key"), a panelist on the keyed provider ("panelist", the provider), or a panel for that
    panelist ("panel", the panelist)."""
    keyed = [p for p in Provider.objects.filter(enabled=True) if p.needs_key and p.has_usable_key]
    if not keyed:
        return "key", None
    panelist = Panelist.objects.filter(provider__in=keyed, enabled=True).order_by("pk").first()
    return ("panel", panelist) if panelist else ("panelist", keyed[0])


def providers_needing_keys() -> list[Provider]:
    """Enabled providers that an enabled panelist runs on and that still lack the key they need."""
    used = Provider.objects.filter(enabled=True, panelists__enabled=True).distinct()
    return [provider for provider in used if not provider.has_usable_key]


def unkeyed_provider(panel: Panel) -> Provider | None:
    """The first provider of the panel that lacks its key: where "set up keys" leads."""
    voices = [*panel.roster(), *judges_of(panel)]
    return next((p.provider for p in voices if p.provider.enabled and not p.provider.has_usable_key), None)


# Seconds per call when a voice has no past calls: the embedded model on two cores, a remote API.
GUESS_SECONDS = {Wire.LOCAL: 8.0, "remote": 25.0}
HISTORY = 20  # past calls per voice that the estimate reads


def call_seconds(panelists: list[Panelist]) -> dict[int, float]:
    """Median latency of each voice's latest completed calls (one query, bounded)."""
    rows = (
        Contribution.objects.filter(panelist__in=panelists, status=Outcome.DONE, latency_ms__gt=0)
        .order_by("-id")
        .values_list("panelist_id", "latency_ms")[: HISTORY * max(len(panelists), 1)]
    )
    latencies: dict[int, list[int]] = {}
    for panelist_id, latency_ms in rows:
        latencies.setdefault(panelist_id, []).append(latency_ms)
    return {pk: statistics.median(values[:HISTORY]) / 1000 for pk, values in latencies.items()}


def duration(panel: Panel, steps: list[Step]) -> tuple[float, bool]:
    """How long a run usually takes: each step as long as its slowest voice, the embedded model's
    voices one after another (one model, one lock), every other voice at once."""
    members = panel.roster()
    judge = judge_of(panel)
    measured = call_seconds([*members, panel.moderator, judge])

    def seconds(p: Panelist) -> float:
        return measured.get(p.pk) or GUESS_SECONDS[Wire.LOCAL if p.provider.wire == Wire.LOCAL else "remote"]

    local = sum(seconds(p) for p in members if p.provider.wire == Wire.LOCAL)
    remote = max((seconds(p) for p in members if p.provider.wire != Wire.LOCAL), default=0.0)
    panel_steps, solo_steps = call_steps(steps, judging=False)
    judged = judge_calls_of(panel, steps) * seconds(judge)
    return panel_steps * max(local, remote) + solo_steps * seconds(panel.moderator) + judged, bool(measured)


def expected_seconds(panel: Panel) -> float:
    """How long a run on this panel usually takes: the ask page's estimate, which a running
    question's page counts down from."""
    return duration(panel, plan_of(panel))[0]


def time_left(elapsed: float, expected: float, done: int, planned: int) -> float:
    """Seconds a running debate still needs: the estimate less the time gone, or, when the run is
    slower than its estimate, the calls left at the pace of the calls done so far (0: nothing to say)."""
    if done >= planned:
        return 0.0
    pace = elapsed / done * (planned - done) if done else 0.0
    return max(expected - elapsed, pace, 0.0)


def runnable_default() -> Panel | None:
    """The panel the form starts on: the default if it can run, else the first that can, else the default
    (whose refusal then says what to fix)."""
    default = Panel.objects.with_roster().default()
    if default is None or not problems(default):
        return default
    return next((panel for panel in Panel.objects.listed().with_roster() if not problems(panel)), default)


def preselected_slug() -> str | None:
    """runnable_default()'s slug: the form's initial panel, looked up only when the form is shown."""
    panel = runnable_default()
    return panel.slug if panel is not None else None


def panel_options() -> list[PanelOption]:
    return [PanelOption.of(panel) for panel in Panel.objects.listed().with_roster()]
