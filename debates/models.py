"""What Teorema stores: the roster (providers, panelists, panels) and what debates produce.

A debate is resumable from these rows alone: a Question keeps the frozen roster it runs with
(``roster``) and the shuffled labels; every completed contribution is a Contribution row, written once
when it completes; the engine skips every (round, panelist) that already has a completed Contribution.
"""

import dataclasses
import os
from decimal import Decimal

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models, transaction
from django.urls import reverse
from django.utils import timezone

# A question's attached files, likewise (debates/attachments/).
from debates.attachments.models import Attachment as Attachment

# Budgets (what a user, a panel or the site may spend), likewise (debates/budgets/).
from debates.budgets.models import Budget as Budget
from debates.engine.events import ContributionResult
from debates.engine.vocabulary import (
    FINISHED,
    Criticality,
    DebateMode,
    FailurePolicy,
    Held,
    Method,
    Outcome,
    Protocol,
    Status,
    StepKind,
)

# Evaluations (a labelled data set run through a panel) live in their own module: imported here,
# the app registers them with its other models.
from debates.evaluation.models import Evaluation as Evaluation
from debates.evaluation.models import EvaluationItem as EvaluationItem
from debates.lib import crypto
from debates.lib.labelled import Labelled
from debates.providers import base, catalog, cli
from debates.providers.base import SearchTool
from debates.providers.catalog import Sight
from debates.providers.cli import command as cli_command
from debates.providers.presets import PRESETS, Wire, search_preset

ZERO = Decimal("0")
# A deadline, in seconds: under 20 s no panel can answer and be synthesised; over an hour is no deadline.
MIN_DEADLINE, MAX_DEADLINE = 20, 3600
# A question's own cost cap, in dollars: a cent at least, and no more than a thousand (a typo's ceiling).
MIN_COST_CAP, MAX_COST_CAP = Decimal("0.01"), Decimal("1000")


class Provider(models.Model):
    """One API endpoint and its credentials. The key is encrypted at rest, never shown back."""

    name = models.CharField(max_length=80, unique=True)
    wire = models.CharField("wire protocol", max_length=16, choices=Wire.choices())
    preset = models.CharField(
        max_length=32,
        blank=True,
        choices=[(key, p.label) for key, p in PRESETS.items()],
        help_text="Fills the wire protocol and base URL when those are left blank.",
    )
    base_url = models.URLField(
        max_length=300,
        blank=True,
        help_text="Blank for the embedded local model; for a CLI, the base URL it is pointed at (blank: its own).",
    )
    command = models.CharField(
        max_length=500,
        blank=True,
        help_text="A CLI provider's program and its arguments, as a shell would split them ({prompt} and {system} "
        "stand for the prompts; without {prompt} the prompt goes on standard input). Blank: the preset's CLI.",
    )
    api_key_encrypted = models.TextField(blank=True, editable=False)
    api_key_env = models.CharField(
        max_length=100,
        blank=True,
        help_text="Name of an environment variable holding the key, instead of storing it.",
    )
    connect_timeout = models.FloatField(default=10.0, validators=[MinValueValidator(0.1)])
    stall_timeout = models.FloatField(
        default=60.0,
        validators=[MinValueValidator(0.1)],
        help_text="Seconds without a chunk before a stream counts as stalled.",
    )
    total_timeout = models.FloatField(default=600.0, validators=[MinValueValidator(1)])
    max_retries = models.PositiveSmallIntegerField(default=2, validators=[MaxValueValidator(10)])
    enabled = models.BooleanField(default=True)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.preset and self.preset not in PRESETS:
            raise ValidationError({"preset": f"Unknown preset {self.preset!r}."})
        preset = PRESETS.get(self.preset)
        if preset:
            self.wire = self.wire or preset.wire.value
            self.base_url = self.base_url or preset.base_url
        if self.wire not in list(Wire):
            raise ValidationError({"wire": f"Unknown wire protocol {self.wire!r}; use one of {', '.join(Wire)}."})
        if self.wire not in (Wire.LOCAL, Wire.CLI) and not self.base_url:
            raise ValidationError({"base_url": "A base URL is needed (or pick a preset)."})
        if self.wire == Wire.CLI:
            self.clean_command()
        if self.api_key_env and not self.api_key_env.replace("_", "").isalnum():
            raise ValidationError({"api_key_env": "An environment variable name: letters, digits and _."})

    def clean_command(self) -> None:
        """A CLI provider's command splits into words, and one is named where no preset's CLI is."""
        try:
            words = cli_command.split(self.command)
        except ValueError as exc:
            raise ValidationError({"command": f"The command cannot be read as a shell would: {exc}."}) from None
        if not words and self.preset not in cli.FLAVOURS:
            raise ValidationError({"command": "A command is needed: a program that reads a prompt and answers."})

    @property
    def command_words(self) -> tuple[str, ...]:
        """The command as its arguments (none when it cannot be read: clean() refuses it first)."""
        try:
            return cli_command.split(self.command)
        except ValueError:
            return ()

    def set_api_key(self, raw: str) -> None:
        """Store a new key (encrypted); an empty value clears it."""
        self.api_key_encrypted = crypto.encrypt(raw.strip()) if raw.strip() else ""

    @property
    def api_key(self) -> str:
        """The usable key: the environment variable if one is named, else the stored key."""
        if self.api_key_env:
            return os.environ.get(self.api_key_env, "")
        return crypto.decrypt(self.api_key_encrypted) if self.api_key_encrypted else ""

    @property
    def needs_key(self) -> bool:
        preset = PRESETS.get(self.preset)
        if preset is not None:
            return preset.needs_key
        return self.wire != Wire.LOCAL

    @property
    def masked_key(self) -> str:
        if self.api_key_env:
            return f"${self.api_key_env}" + ("" if self.api_key else " (not set)")
        return crypto.mask(self.api_key) if self.api_key_encrypted else ""

    @property
    def has_usable_key(self) -> bool:
        return bool(self.api_key) or not self.needs_key


class CliReport(models.Model):
    """What one debate worker found of a CLI provider's program and login (server setup): a CLI runs
    where its debate runs, so readiness asks the workers' reports, not the web process's own disk."""

    worker = models.CharField(max_length=200, help_text="The worker's lease owner: host, pid and a random part")
    provider = models.ForeignKey(Provider, on_delete=models.CASCADE, related_name="cli_reports")
    problem = models.TextField(blank=True, help_text="Why this worker cannot run it, in words; empty when it can")
    seen_at = models.DateTimeField()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["worker", "provider"], name="one_cli_report_per_worker")]

    def __str__(self) -> str:
        return f"{self.worker}: {self.problem or 'can run'} {self.provider_id}"


class Panelist(models.Model):
    """A voice: one model on one provider, with its method and prices."""

    name = models.CharField(max_length=80, unique=True)
    provider = models.ForeignKey(Provider, on_delete=models.PROTECT, related_name="panelists")
    model = models.CharField(max_length=200)
    family = models.CharField(
        max_length=60, help_text="Model family (e.g. claude, gpt, gemini): heterogeneity is judged on it."
    )
    method = models.CharField(max_length=32, choices=Method.choices(), default=Method.NONE)
    temperature = models.FloatField(default=0.7, validators=[MinValueValidator(0.0), MaxValueValidator(2.0)])
    max_tokens = models.PositiveIntegerField(
        default=1500, validators=[MinValueValidator(1), MaxValueValidator(200_000)]
    )
    price_in = models.DecimalField(
        "$ per 1M input tokens",
        max_digits=10,
        decimal_places=4,
        default=ZERO,
        validators=[MinValueValidator(ZERO)],
    )
    price_out = models.DecimalField(
        "$ per 1M output tokens",
        max_digits=10,
        decimal_places=4,
        default=ZERO,
        validators=[MinValueValidator(ZERO)],
    )
    search = models.BooleanField(
        "may search the web",
        default=False,
        help_text="Its answers may search the web with the provider's own tool (OpenAI's search models, "
        "Anthropic's web search, Gemini's Google Search grounding, Perplexity, OpenRouter's web plugin); "
        "what it cites is shown under each answer. A question or a panel can still turn it off.",
    )
    price_search = models.DecimalField(
        "$ per 1,000 searches",
        max_digits=10,
        decimal_places=4,
        default=ZERO,
        validators=[MinValueValidator(ZERO)],
        help_text="What the provider bills for its web searches (see docs/sources.md): the estimate and the "
        "cost of each answer count them.",
    )
    sees_images = models.BooleanField(
        "sees images",
        null=True,
        blank=True,
        help_text="Whether the model reads images natively. Empty: guessed from the model's name.",
    )
    reads_pdf = models.BooleanField(
        "reads PDFs",
        null=True,
        blank=True,
        help_text="Whether the provider takes a PDF as a document for this model. Empty: guessed from the model's "
        "name and provider; otherwise it gets the PDF's text, page by page.",
    )
    enabled = models.BooleanField(default=True)

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def search_tool(self) -> SearchTool:
        """How its provider searches the web (NONE: it cannot)."""
        provider = self.provider
        found = search_preset(provider.preset, provider.wire, provider.base_url)
        return found.search if found is not None else SearchTool.NONE

    @property
    def may_search(self) -> bool:
        """It may search the web, on a provider that can."""
        return self.search and self.search_tool != SearchTool.NONE

    def clean(self) -> None:
        if not self.search or not self.provider_id:
            return
        if self.search_tool == SearchTool.NONE:
            raise ValidationError(
                {
                    "search": f"{self.provider.name} has no web search Teorema can ask for: turn “may search the "
                    "web” off, or seat a model of a provider that has one (OpenAI's search models, Anthropic, "
                    "Gemini, Perplexity, OpenRouter)."
                }
            )
        if self.search_tool == SearchTool.OPENAI and not catalog.always_searches(self.model):
            raise ValidationError(
                {
                    "search": f"OpenAI searches the web in Chat Completions only with its search models "
                    f"(gpt-5-search-api, gpt-4o-search-preview…), not {self.model}: pick one of them, or turn "
                    "“may search the web” off."
                }
            )

    def sight(self) -> Sight:
        """What this voice reads natively: its own setting, else the catalog's guess from its model."""
        preset = PRESETS.get(self.provider.preset)
        base_url = self.provider.base_url or (preset.base_url if preset else "")
        if self.provider.wire == Wire.CLI:  # what its CLI reads, handed as files in its workspace
            guessed = cli.FLAVOURS.get(self.provider.preset, cli.COMMAND).sight
        else:
            guessed = catalog.sight(self.model, self.provider.wire, base_url)
        vision = guessed.vision if self.sees_images is None else self.sees_images
        pdf = guessed.pdf if self.reads_pdf is None else self.reads_pdf
        return Sight(vision=vision, pdf=pdf)


class PanelQuerySet(models.QuerySet["Panel"]):
    def default(self) -> "Panel | None":
        """The panel a question gets when the asker names none (exactly one is marked)."""
        return self.filter(is_default=True).first()

    def listed(self) -> "PanelQuerySet":
        """The panels offered to askers: not those made for one question's hand-picked voices."""
        return self.filter(ad_hoc=False)

    def with_roster(self) -> "PanelQuerySet":
        """Each panel with its judges and its seats (roster() reads them): checking every panel
        then costs two queries, not a few per panel."""
        seats = Membership.objects.select_related("panelist__provider").order_by("position")
        judged = self.select_related(
            "moderator__provider", "tie_breaker__provider", "fallback_moderator__provider", "judge__provider"
        )
        return judged.prefetch_related(models.Prefetch("memberships", queryset=seats, to_attr="prefetched_seats"))


class Panel(models.Model):
    JUDGES = ("moderator", "tie_breaker", "fallback_moderator", "judge")  # the roles outside the panel's seats

    name = models.CharField(max_length=80, unique=True)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    protocol = models.CharField(max_length=16, choices=Protocol.choices(), default=Protocol.TEOREMA)
    members = models.ManyToManyField(Panelist, through="Membership", related_name="panels")
    moderator = models.ForeignKey(Panelist, on_delete=models.PROTECT, related_name="moderated_panels")
    tie_breaker = models.ForeignKey(
        Panelist, on_delete=models.PROTECT, null=True, blank=True, related_name="tie_broken_panels"
    )
    fallback_moderator = models.ForeignKey(
        Panelist,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="fallback_for_panels",
        help_text="Writes the synthesis if the moderator fails. Empty: the tie-breaker, else a panelist of "
        "another family (always disclosed on the page).",
    )
    judge = models.ForeignKey(
        Panelist,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="judged_panels",
        help_text="Groups each round's answers by meaning (who gives the same answer). Empty: the moderator's "
        "model. A judge on a small model groups by wording only.",
    )
    facilitator_brief = models.BooleanField(
        default=False,
        help_text="The facilitator restates the question as a self-contained brief before the panel answers "
        "(one more call; the adversarial protocol always does).",
    )
    rounds = models.PositiveSmallIntegerField(
        default=0,
        validators=[MaxValueValidator(6)],
        help_text="Debate rounds after the blind round. 0 means the protocol's default "
        "(teorema 1, adversarial 2: critique + final positions; vote with re-vote: 1 debate + re-vote).",
    )
    options = models.JSONField(
        default=list,
        blank=True,
        help_text="Vote: the decisions voters must choose from, verbatim (a list of strings). "
        "A question may give its own.",
    )
    merge_critique = models.BooleanField(
        default=False, help_text="Adversarial: merge critique and final positions into one round (cheaper)."
    )
    revote_on_dissent = models.BooleanField(
        default=False, help_text="Vote: with no consensus, debate the dissent and vote again (once per round)."
    )
    failure_policy = models.CharField(max_length=16, choices=FailurePolicy.choices(), default=FailurePolicy.STRICT)
    quorum = models.PositiveSmallIntegerField(
        null=True, blank=True, help_text="Quorum policy: minimum answering voices."
    )
    debate = models.CharField(
        max_length=16,
        choices=DebateMode.choices(),
        default=DebateMode.ALWAYS,
        help_text="Teorema and adversarial: on_dissent skips the debate when a mixed panel's blind answers "
        "agree, and otherwise debates only the contested claims.",
    )
    default_criticality = models.CharField(max_length=8, choices=Criticality.choices(), default=Criticality.MEDIUM)
    deadline = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_DEADLINE), MaxValueValidator(MAX_DEADLINE)],
        help_text="Answer within this many seconds (a question may set its own): voices still running when the "
        "panel's share is up are stopped and disclosed. Empty: no deadline.",
    )
    is_default = models.BooleanField(default=False)
    ad_hoc = models.BooleanField(
        default=False, help_text="Made for the voices an asker picked for one question: not offered on the ask page."
    )
    forbid_search = models.BooleanField(
        "forbid web search",
        default=False,
        help_text="No voice of this panel searches the web, whatever its panelist may do (the answers rest on "
        "what the models know; no search is billed).",
    )

    objects = PanelQuerySet.as_manager()

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        # Exactly one default panel: marking this one unmarks the others.
        with transaction.atomic():
            if self.is_default:
                Panel.objects.exclude(pk=self.pk).filter(is_default=True).update(is_default=False)
            super().save(*args, **kwargs)

    def clean(self) -> None:
        if self.failure_policy == FailurePolicy.QUORUM and not self.quorum:
            raise ValidationError({"quorum": "The quorum policy needs a minimum number of voices."})

    def roster(self) -> list[Panelist]:
        """The panelists in seat order, from with_roster()'s prefetch when the panel came with it
        (debates.roster.panels' do; its own attribute: another prefetch of memberships may be stale, as in
        the admin's save)."""
        memberships = getattr(self, "prefetched_seats", None)
        if memberships is None:
            memberships = self.memberships.select_related("panelist__provider").order_by("position")
        return [membership.panelist for membership in memberships]

    def self_judging(self) -> list[str]:
        """Judges on the same model as some panelists but not all: they would favour their own answers
        over the others' (self-preference). A panel all on the judge's model has no other answer to
        disfavour; that its voices are one model is said as its heterogeneity, not here."""
        members = self.roster()
        judges = [("moderator", self.moderator), ("tie-breaker", self.tie_breaker)]
        judges += [("moderator's stand-in", self.fallback_moderator), ("agreement judge", self.judge)]
        warnings = []
        for role, judge in judges:
            same = [m.name for m in members if judge and (m.model, m.provider_id) == (judge.model, judge.provider_id)]
            if judge is not None and same and len(same) < len(members):
                who = f"panelist {same[0]} does" if len(same) == 1 else f"panelists {', '.join(same)} do"
                warnings.append(
                    f"The {role} {judge.name} runs {judge.model}, as {who}: it would judge its own answers "
                    "(models favour their own). Pick a judge on another model."
                )
        return warnings


class Membership(models.Model):
    """A panelist's place in a panel's ordered roster (a seat is a voice's place in one run)."""

    panel = models.ForeignKey(Panel, on_delete=models.CASCADE, related_name="memberships")
    panelist = models.ForeignKey(Panelist, on_delete=models.PROTECT, related_name="memberships")
    position = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["position"]
        constraints = [models.UniqueConstraint(fields=["panel", "panelist"], name="one_membership_per_panelist")]

    def __str__(self) -> str:
        return f"{self.panel} #{self.position}: {self.panelist}"


class Visibility(Labelled):
    """Who may open a question besides its asker and staff (conversations.sharing changes it)."""

    PRIVATE = "private", "Private: you and staff"
    USERS = "users", "Shared with every signed-in user"
    LINK = "link", "Anyone with the link, read-only"


class Source(Labelled):
    """Where a question was asked: History says so, and a script's questions can be told from a person's."""

    PAGE = "page", "the page"
    API = "api", "the JSON API"
    CLI = "cli", "the command line"
    TELEGRAM = "telegram", "Telegram"
    MCP = "mcp", "an MCP client"
    OPENAI = "openai", "the OpenAI-compatible endpoint"


class QuestionQuerySet(models.QuerySet["Question"]):
    def visible_to(self, user) -> "QuestionQuerySet":
        """Private questions are for their asker and staff; shared ones for any signed-in user.

        A question shared by link is not listed for others: the link itself opens it (read-only).
        """
        if not user.is_authenticated:
            return self.none()
        if user.is_staff:
            return self
        return self.filter(models.Q(owner=user) | models.Q(visibility=Visibility.USERS))


class Question(models.Model):
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="questions"
    )
    panel = models.ForeignKey(Panel, on_delete=models.PROTECT, related_name="questions")
    text = models.TextField()
    context = models.TextField(blank=True)
    criticality = models.CharField(max_length=8, choices=Criticality.choices())
    force_panel = models.BooleanField(
        default=False, help_text="The asker asked for the full panel whatever the triage says."
    )
    grounding = models.BooleanField(
        default=True,
        help_text="SymPy computes the question's maths for the panel first; off when the panel itself is measured "
        "(an evaluation), since the verified fact would hand every voice the answer.",
    )
    checks = models.BooleanField(
        default=True,
        help_text="SymPy checks the computations each round states before the next round reads them (with "
        "grounding on). Off for the runs started before the checks existed, whose rounds keep their indices.",
    )
    search = models.BooleanField(
        default=True,
        help_text="Voices whose panelist may search the web do so for this question (unless its panel forbids it).",
    )
    options = models.JSONField(
        default=list, blank=True, help_text="Vote: the decisions to choose from (empty: the panel's options, if any)."
    )
    debate = models.CharField(
        max_length=16, choices=DebateMode.choices(), blank=True, help_text="Blank: the panel's setting."
    )
    deadline = models.PositiveIntegerField(
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_DEADLINE), MaxValueValidator(MAX_DEADLINE)],
        help_text="Answer within this many seconds. Empty: the panel's deadline, if any.",
    )
    max_cost = models.DecimalField(
        "cost cap (USD)",
        max_digits=8,
        decimal_places=2,
        null=True,
        blank=True,
        validators=[MinValueValidator(MIN_COST_CAP), MaxValueValidator(MAX_COST_CAP)],
        help_text="Spend at most this many dollars: refused when the run's expected cost is more, stopped before "
        "a round that would pass it. Empty: only the budgets limit it.",
    )
    reserved = models.DecimalField(
        max_digits=12,
        decimal_places=6,
        default=ZERO,
        help_text="What its run holds against its budgets while it runs (budgets.hold); 0 once it has ended.",
    )
    failure_policy = models.CharField(
        max_length=16,
        choices=FailurePolicy.choices(),
        blank=True,
        help_text="Blank: the panel's. Set to degrade when the asker chose to go on without a failed voice.",
    )
    visibility = models.CharField(max_length=8, choices=Visibility.choices(), default=Visibility.PRIVATE)
    source = models.CharField(
        max_length=8, choices=Source.choices(), default=Source.PAGE, help_text="Where it was asked"
    )
    share_token = models.CharField(
        max_length=64, blank=True, editable=False, help_text="The read-only link's secret; empty: no link opens it."
    )
    hide_cost = models.BooleanField(default=False, help_text="The read-only link and its exports show no cost.")
    parent = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="follow_ups",
        help_text="The question this one follows up: its verdict and disputed points brief the panel.",
    )
    root = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The first question of its thread (empty for a first question): History groups by it.",
    )
    reask_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="reasks",
        help_text="The question this one asks again, on another panel.",
    )
    status = models.CharField(max_length=16, choices=Status.choices(), default=Status.QUEUED, db_index=True)
    phase = models.CharField(max_length=120, blank=True)
    error = models.TextField(blank=True)
    # Frozen at the start of the run: the voices (with their labels), so resume and reveal
    # do not depend on later roster edits (runs.spec.freeze_roster).
    roster = models.JSONField(default=list, blank=True)
    panel_run = models.JSONField(
        default=dict, blank=True, help_text="What actually ran: voices, degradations, heterogeneity."
    )
    consensus = models.JSONField(default=dict, blank=True)
    ledger = models.JSONField(
        default=dict, blank=True, help_text="Claims, attacks, concessions, position changes (engine.ledger)."
    )
    verdict = models.TextField(blank=True)
    answer_schema = models.JSONField(
        null=True, blank=True, help_text="A JSON Schema its asker wants the verdict in (an OpenAI client's)."
    )
    shaped = models.JSONField(
        null=True, blank=True, help_text="The verdict in that schema, as the moderator wrote it and the schema took it."
    )
    human_decision = models.TextField(blank=True)
    human_decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    human_decided_at = models.DateTimeField(null=True, blank=True)
    cancel_requested = models.BooleanField(default=False)
    # How a client's repeated request finds this question instead of starting another run (runs.once).
    idempotency_key = models.CharField(
        max_length=255,
        blank=True,
        help_text="The key its asker's client sent with it: that key again gets this question.",
    )
    request_digest = models.CharField(
        max_length=64,
        blank=True,
        db_index=True,
        help_text="Its channel's request, digested: the same request again while this one runs joins it.",
    )
    calls = models.PositiveIntegerField(default=0)
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=ZERO)
    created_at = models.DateTimeField(default=timezone.now, db_index=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # Who is running it now; a lease that expires lets another runner resume it.
    lease_owner = models.CharField(max_length=120, blank=True)
    lease_expires = models.DateTimeField(null=True, blank=True)

    objects = QuestionQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.UniqueConstraint(
                fields=["share_token"], condition=~models.Q(share_token=""), name="one_question_per_share_token"
            ),
            models.UniqueConstraint(
                fields=["owner", "idempotency_key"],
                condition=~models.Q(idempotency_key=""),
                name="one_question_per_idempotency_key",
            ),
        ]

    def __str__(self) -> str:
        return self.text[:80]

    def get_absolute_url(self) -> str:
        return reverse("debates:question", args=[self.pk])

    @property
    def is_finished(self) -> bool:
        return self.status in FINISHED

    def can_act(self, user) -> bool:
        """Cancel or retry: the asker and staff."""
        return user.is_authenticated and (self.owner_id == user.pk or user.is_staff)

    @property
    def duration(self):
        if self.started_at and self.finished_at:
            return self.finished_at - self.started_at
        return None

    @property
    def seats_on_subscription(self) -> set[str]:
        """The voices a CLI's subscription paid for: their calls are in no cost."""
        paid = Contribution.objects.filter(round__question=self, on_subscription=True)
        return set(paid.values_list("seat", flat=True))

    @property
    def voices_on_subscription(self) -> int:
        return len(self.seats_on_subscription)


class Round(models.Model):
    """One step of a run: the blind round, a debate round, a vote, the synthesis."""

    question = models.ForeignKey(Question, on_delete=models.CASCADE, related_name="rounds")
    index = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=24, choices=StepKind.choices())
    title = models.CharField(max_length=120)
    status = models.CharField(max_length=16, default="running")
    started_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["index"]
        constraints = [models.UniqueConstraint(fields=["question", "index"], name="one_round_per_index")]

    def __str__(self) -> str:
        return f"{self.index}. {self.title}"


# A Contribution row holds every field of the engine's ContributionResult; the round is a row of its own.
RESULT_FIELDS = tuple(f.name for f in dataclasses.fields(ContributionResult) if f.name != "round")
LIST_FIELDS = ("flags", "attempts")  # tuples in the frozen result, JSON lists in the row


class Contribution(models.Model):
    """One voice's contribution in one round, written once when it completes (or fails).

    ``seat`` is the voice's key in the question's frozen roster ("moderator" and
    "tie_breaker" for those roles), so a resumed run can tell which calls are done.
    """

    round = models.ForeignKey(Round, on_delete=models.CASCADE, related_name="contributions")
    seat = models.CharField(max_length=40)
    label = models.CharField(max_length=40)
    panelist = models.ForeignKey(
        Panelist, on_delete=models.SET_NULL, null=True, blank=True, related_name="contributions"
    )
    kind = models.CharField(max_length=24, choices=StepKind.choices())
    status = models.CharField(max_length=16, choices=Outcome.choices())
    text = models.TextField(blank=True)
    decision = models.TextField(blank=True)
    confidence = models.FloatField(null=True, blank=True)
    reasoning = models.TextField(blank=True)
    error = models.TextField(blank=True)
    sources = models.JSONField(
        default=list, blank=True, help_text="What it cites or looked up (providers.base.Source, as stored)"
    )
    searches = models.PositiveIntegerField(default=0, help_text="Web searches the provider made for it")
    flags = models.JSONField(default=list, blank=True, help_text="e.g. sycophancy, estimated tokens")
    attempts = models.JSONField(
        default=list, blank=True, help_text="One entry per provider attempt: error and latency."
    )
    tokens_in = models.PositiveIntegerField(default=0)
    tokens_out = models.PositiveIntegerField(default=0)
    tokens_estimated = models.BooleanField(default=False)
    cost = models.DecimalField(max_digits=12, decimal_places=6, default=ZERO)
    on_subscription = models.BooleanField(
        default=False, help_text="A CLI voice that reported no cost and had none: its subscription paid for it."
    )
    latency_ms = models.PositiveIntegerField(default=0)
    first_token_ms = models.PositiveIntegerField(
        null=True, blank=True, help_text="From the call's start to its first words (empty: it wrote none)"
    )
    finish_reason = models.CharField(max_length=40, blank=True)
    ledger = models.JSONField(default=dict, blank=True, help_text="Its closing block as read: claims, attacks…")
    thought = models.TextField(
        blank=True, help_text="The summary of its reasoning its provider gave (OpenAI's Responses API); no part of it"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["round__index", "label"]
        constraints = [models.UniqueConstraint(fields=["round", "seat"], name="one_contribution_per_seat_per_round")]

    def __str__(self) -> str:
        return f"{self.label} · {self.kind} ({self.status})"

    @staticmethod
    def fields_of(result: ContributionResult) -> dict:
        """The row's fields from the engine's result (all but the round), by the dataclass's own fields."""
        values = {name: getattr(result, name) for name in RESULT_FIELDS}
        return (
            values
            | {name: list(values[name]) for name in LIST_FIELDS}
            | {"sources": [source.as_dict() for source in result.sources]}
        )

    def as_result(self) -> ContributionResult:
        """The stored contribution as the engine replays it on resume."""
        values = {name: getattr(self, name) for name in RESULT_FIELDS}
        return ContributionResult(
            round=self.round.index,
            **values
            | {name: tuple(values[name]) for name in LIST_FIELDS}
            | {"sources": tuple(base.Source.from_dict(stored) for stored in self.sources)},
        )


class Synthesis(models.Model):
    """The moderator's (or facilitator's) final word, in the sections the protocol asks for."""

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="synthesis")
    text = models.TextField()
    sections = models.JSONField(default=list, blank=True, help_text="[heading, body] pairs, in the order written")
    evidence_strength = models.CharField(max_length=16, blank=True, help_text="strong or weak, by panel heterogeneity")
    confidence = models.FloatField(null=True, blank=True, help_text="The moderator's own, 0–1, from its closing block")
    stances = models.JSONField(
        default=dict, blank=True, help_text="Label -> the moderator's word on that voice's stance (its closing block)"
    )
    created_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Synthesis of {self.question_id}"


class ApiToken(models.Model):
    """A per-user token for scripts using the JSON API; only its hash is stored."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80)
    digest = models.CharField(max_length=64, unique=True, editable=False)
    prefix = models.CharField(max_length=12, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    plaintext = ""  # the secret, on the instance that created it only (shown once, never stored)

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class Stamp(models.Model):
    """The last change to a group of tables, as a random number the database's own triggers write
    (migration 0018): a process keeps copies of those rows until it changes (debates.lib.stamped)."""

    name = models.CharField(max_length=16, primary_key=True)
    value = models.BigIntegerField()

    def __str__(self) -> str:
        return f"{self.name} changed ({self.value})"


class VerdictOutcome(models.Model):
    """Whether a finished question's verdict turned out right, as its asker (or staff) judged it.

    One per question, changed in place: the track record needs the current judgement, not its history.
    """

    MAX_NOTE = 2000

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="verdict_outcome")
    value = models.CharField(max_length=8, choices=Held.choices())
    note = models.TextField(blank=True, max_length=MAX_NOTE)
    marked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    marked_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"{self.question_id}: {self.value}"


class Reading(models.Model):
    """A finished question read once for the track record (track.reading): the side each voice took
    and the claims its verified facts contradict. Read again when the question's status changes."""

    question = models.OneToOneField(Question, on_delete=models.CASCADE, related_name="reading")
    status = models.CharField(max_length=16, help_text="The question's status when it was read")
    person_decided = models.BooleanField(
        default=False, help_text="Vote: a person's decision names one of the options (that option was right)"
    )
    read_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return f"Reading of {self.question_id}"


class Standing(models.Model):
    """A voice's position on a read question: the side it took against the verdict, its stated confidence."""

    reading = models.ForeignKey(Reading, on_delete=models.CASCADE, related_name="standings")
    panelist = models.ForeignKey(Panelist, on_delete=models.CASCADE, related_name="standings")
    side = models.PositiveSmallIntegerField(null=True, help_text="1 sided with the verdict, 0 did not, empty unknown")
    reserved = models.BooleanField(default=False, help_text="Sided with reservations (ledger stance: partly)")
    lone = models.BooleanField(default=False, help_text="The one dissenter of three or more voices with a side")
    confidence = models.FloatField(null=True, help_text="Stated: the ballot's, else its claims' mean")

    class Meta:
        indexes = [models.Index(fields=["reading", "panelist"], name="standing_of_voice")]

    def __str__(self) -> str:
        return f"{self.panelist_id} on {self.reading_id}: {self.side}"


class Contradiction(models.Model):
    """A claim a verified fact refutes: it counts against the claim and its voice in the track record."""

    reading = models.ForeignKey(Reading, on_delete=models.CASCADE, related_name="contradictions")
    contribution = models.ForeignKey(Contribution, on_delete=models.CASCADE, related_name="contradictions")
    claim = models.CharField(max_length=40, blank=True, help_text="The ledger's claim id; blank: in the text")
    confidence = models.FloatField(null=True, blank=True, help_text="The confidence stated for what was refuted")
    text = models.TextField()

    def __str__(self) -> str:
        return self.text[:80]
