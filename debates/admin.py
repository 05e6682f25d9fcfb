"""The admin: provider keys (masked, write-only), the roster, and the read-only debate history."""

from decimal import Decimal
from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.contrib.admin.options import IS_POPUP_VAR
from django.db.models import Count, QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.defaultfilters import linebreaksbr, truncatechars
from django.template.response import TemplateResponse
from django.urls import URLPattern
from django.utils import timezone
from django.utils.decorators import method_decorator
from django.utils.html import format_html, format_html_join
from django.views.decorators.debug import sensitive_post_parameters

from debates import admin_setup
from debates.admin_forms import HumanDecisionForm, PanelForm, ProviderForm
from debates.crypto import KeyUnreadable
from debates.models import (
    ApiToken,
    Contribution,
    Evaluation,
    Membership,
    Panel,
    Panelist,
    Provider,
    Question,
    Round,
    Status,
    VerdictOutcome,
)
from debates.tokens import assign_secret

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


@admin.register(Provider)
class ProviderAdmin(admin.ModelAdmin):
    """Its change page leads on: "Test connection" (a POST: it may make a paid call) and "Models"
    (pick a listed model as a panelist, then seat it on a panel: debates.admin_setup)."""

    form = ProviderForm
    list_display = ["name", "wire", "preset", "base_url", "key", "enabled"]
    list_filter = ["wire", "enabled"]
    search_fields = ["name"]
    readonly_fields = ["key"]
    fieldsets = [
        (None, {"fields": ["name", "preset", "wire", "base_url", "enabled"]}),
        (
            "API key",
            {
                "fields": ["key", "api_key", "clear_key", "api_key_env"],
                "description": "The key is stored encrypted and never shown again; "
                "or name an environment variable that holds it.",
            },
        ),
        ("Timeouts and retries", {"fields": ["connect_timeout", "stall_timeout", "total_timeout", "max_retries"]}),
    ]
    actions = ["test_connection"]

    class Media:
        js = ["debates/admin/preset.js"]
        css = {"all": ["debates/admin/setup.css"]}

    def get_urls(self) -> list[URLPattern]:
        return [
            admin_setup.object_page(self, "test/", admin_setup.connection_test_view, "test"),
            admin_setup.object_page(self, "models/", admin_setup.models_view, "models"),
            admin_setup.object_page(self, "models/add/", admin_setup.add_panelist_view, "add_panelist"),
            *super().get_urls(),
        ]

    @method_decorator(sensitive_post_parameters("api_key"))
    def changeform_view(self, *args, **kwargs) -> HttpResponse:
        return super().changeform_view(*args, **kwargs)

    def response_add(self, request: HttpRequest, obj: Provider, post_url_continue=None) -> HttpResponse:
        """A new provider lands on its change page, where the next steps are (test, then models)."""
        if "_addanother" in request.POST or IS_POPUP_VAR in request.POST:
            return super().response_add(request, obj, post_url_continue)
        said = f"The provider “{obj}” was added. Next: test the connection, then pick its models."
        self.message_user(request, said, messages.SUCCESS)
        if "_test" in request.POST:
            admin_setup.report_test(self, request, obj)
        return redirect("admin:debates_provider_change", obj.pk)

    def response_change(self, request: HttpRequest, obj: Provider) -> HttpResponse:
        if "_test" not in request.POST:
            return super().response_change(request, obj)
        self.message_user(request, f"The provider “{obj}” was saved.", messages.SUCCESS)
        admin_setup.report_test(self, request, obj)
        return redirect("admin:debates_provider_change", obj.pk)

    @admin.display(description="Key")
    def key(self, provider: Provider) -> str:
        try:
            return provider.masked_key or "—"
        except KeyUnreadable:
            return "unreadable with TEOREMA_FERNET_KEYS: enter it again"

    @admin.action(description="Test connection (one cheap real call)")
    def test_connection(self, request: HttpRequest, queryset: QuerySet[Provider]) -> None:
        for provider in queryset:
            admin_setup.report_test(self, request, provider)


@admin.register(Panelist)
class PanelistAdmin(admin.ModelAdmin):
    """A panelist's change page offers "Seat on a panel" (debates.admin_setup.seat_view)."""

    list_display = [
        *("name", "provider", "model", "family", "method", "temperature", "max_tokens"),
        *("price_in", "price_out", "enabled"),
    ]
    list_filter = ["provider", "family", "method", "enabled"]
    list_select_related = ["provider"]
    search_fields = ["name", "model", "family"]

    def get_urls(self) -> list[URLPattern]:
        return [admin_setup.object_page(self, "seat/", admin_setup.seat_view, "seat"), *super().get_urls()]


class MembershipInline(admin.TabularInline):
    model = Membership
    verbose_name, verbose_name_plural = "seat", "roster (voices in seat order)"
    fields = ["position", "panelist"]
    ordering = ["position"]
    extra = 1


@admin.register(Panel)
class PanelAdmin(admin.ModelAdmin):
    form = PanelForm
    inlines = [MembershipInline]
    list_display = ["name", "slug", "protocol", "voices", "moderator", "failure_policy", "is_default"]
    list_select_related = ["moderator"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (None, {"fields": ["name", "slug", "description", "protocol", "is_default"]}),
        ("Roles", {"fields": ["moderator", "tie_breaker", "fallback_moderator"]}),
        (
            "Run",
            {
                "fields": [
                    *("rounds", "debate", "merge_critique", "revote_on_dissent", "failure_policy", "quorum"),
                    *("default_criticality", "options"),
                ]
            },
        ),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Panel]:
        return super().get_queryset(request).prefetch_related("memberships__panelist")

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)  # the memberships are saved here
        for warning in form.instance.self_judging():
            self.message_user(request, warning, messages.WARNING)

    @admin.display(description="Roster (in order)")
    def voices(self, panel: Panel) -> str:
        return ", ".join(membership.panelist.name for membership in panel.memberships.all())


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class RoundTotals(TypedDict):
    """What RoundInline's queryset annotates a round with."""

    contribution_count: int
    tokens_total: int | None
    cost_total: Decimal | None
    latency_total: int | None


class RoundInline(ReadOnlyInline):
    model = Round
    fields = readonly_fields = (
        "index",
        "title",
        "kind",
        "status",
        "calls",
        "tokens",
        "cost",
        "latency_ms",
        "started_at",
    )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Round]:
        return (
            super()
            .get_queryset(request)
            .annotate(
                contribution_count=Count("contributions"),
                tokens_total=Sum("contributions__tokens_in") + Sum("contributions__tokens_out"),
                cost_total=Sum("contributions__cost"),
                latency_total=Sum("contributions__latency_ms"),
            )
        )

    @admin.display(description="Calls")
    def calls(self, round_: "WithAnnotations[Round, RoundTotals]") -> int:
        return round_.contribution_count

    @admin.display(description="Tokens")
    def tokens(self, round_: "WithAnnotations[Round, RoundTotals]") -> int:
        return round_.tokens_total or 0

    @admin.display(description="Cost ($)")
    def cost(self, round_: "WithAnnotations[Round, RoundTotals]") -> str:
        return f"{round_.cost_total or 0:.4f}"

    @admin.display(description="Latency (ms, summed)")
    def latency_ms(self, round_: "WithAnnotations[Round, RoundTotals]") -> int:
        return round_.latency_total or 0


CONTRIBUTION_COLUMNS = [
    *("Round", "Voice", "Panelist", "Kind", "Status", "Tokens in", "Tokens out"),
    *("Cost ($)", "Latency (ms)", "Contribution", "Error"),
]


def _contribution_row(row: Contribution) -> tuple:
    text = row.text or row.decision
    contribution = format_html(
        "<details><summary>{}</summary>{}</details>", truncatechars(text, 120), linebreaksbr(text)
    )
    return (
        row.round.index,
        row.label,
        row.panelist or "—",
        row.kind,
        row.status,
        row.tokens_in,
        row.tokens_out,
        f"{row.cost:.4f}",
        row.latency_ms,
        contribution,
        row.error,
    )


@admin.register(Question)
class QuestionAdmin(admin.ModelAdmin):
    """History is read-only: what a debate produced is evidence, so it is never edited here."""

    list_display = ["short_text", "status", "panel", "owner", "calls", "tokens", "cost", "created_at"]
    list_filter = ["status", "panel", "visibility", "created_at"]
    list_select_related = ["panel", "owner"]
    search_fields = ["text"]
    date_hierarchy = "created_at"
    inlines = [RoundInline]
    readonly_fields = ["contributions_table", "synthesis_text"]
    fieldsets = [
        (None, {"fields": ["text", "context", "panel", "owner", "criticality", "status", "phase", "error"]}),
        ("Outcome", {"fields": ["synthesis_text", "verdict", "consensus", "panel_run"]}),
        ("Human review", {"fields": ["human_decision", "human_decided_by", "human_decided_at"]}),
        ("Thread and sharing", {"fields": ["parent", "reask_of", "visibility", "hide_cost"]}),
        ("Contributions", {"fields": ["contributions_table"]}),
        ("Usage", {"fields": ["calls", "tokens_in", "tokens_out", "cost", "created_at", "started_at", "finished_at"]}),
    ]
    actions = ["record_human_decision"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_record_permission(self, request: HttpRequest) -> bool:
        return request.user.has_perm("debates.change_question")

    @admin.display(description="Question")
    def short_text(self, question: Question) -> str:
        return truncatechars(question.text, 80)

    @admin.display(description="Tokens")
    def tokens(self, question: Question) -> int:
        return question.tokens_in + question.tokens_out

    @admin.display(description="Synthesis")
    def synthesis_text(self, question: Question) -> str:
        synthesis = getattr(question, "synthesis", None)
        return linebreaksbr(synthesis.text) if synthesis else "—"

    @admin.display(description="Contributions")
    def contributions_table(self, question: Question) -> str:
        stored = Contribution.objects.filter(round__question=question).select_related("round", "panelist")
        if not stored:
            return "—"
        head = format_html_join("", "<th>{}</th>", ((column,) for column in CONTRIBUTION_COLUMNS))
        rows = format_html_join(
            "",
            "<tr>" + "<td>{}</td>" * len(CONTRIBUTION_COLUMNS) + "</tr>",
            (_contribution_row(row) for row in stored),
        )
        return format_html("<table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", head, rows)

    @admin.action(description="Record human decision", permissions=["record"])
    def record_human_decision(self, request: HttpRequest, queryset: QuerySet[Question]) -> HttpResponse | None:
        pending = queryset.filter(status=Status.NEEDS_REVIEW)
        if not pending.exists():
            self.message_user(request, "None of the selected questions needs human review.", messages.WARNING)
            return None
        form = HumanDecisionForm(request.POST if "apply" in request.POST else None)
        if form.is_valid():
            count = pending.update(
                human_decision=form.cleaned_data["decision"],
                human_decided_by=request.user,
                human_decided_at=timezone.now(),
                status=Status.DONE,
            )
            self.message_user(request, f"Recorded the decision on {count} question(s).", messages.SUCCESS)
            return None
        context = {
            **self.admin_site.each_context(request),
            "title": "Record a human decision",
            "opts": self.model._meta,
            "form": form,
            "questions": pending,
            "skipped": queryset.count() - pending.count(),
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        }
        return TemplateResponse(request, "admin/debates/question/human_decision.html", context)


@admin.register(ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """A token's plaintext is shown once, on the page after creation; only its digest is kept."""

    list_display = ["name", "user", "prefix", "created_at", "last_used_at"]
    list_select_related = ["user"]

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        return ("user", "name") if obj is None else ("user", "name", "prefix", "created_at", "last_used_at")

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> list[str]:
        return [] if obj is None else ["user", "prefix", "created_at", "last_used_at"]

    def save_model(self, request: HttpRequest, obj: ApiToken, form, change: bool) -> None:
        if not change:
            obj.plaintext = assign_secret(obj)
        super().save_model(request, obj, form, change)

    def response_add(self, request: HttpRequest, obj: ApiToken, post_url_continue=None) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": "API token created",
            "opts": self.model._meta,
            "token": obj,
            "plaintext": obj.plaintext,
        }
        return TemplateResponse(request, "admin/debates/apitoken/created.html", context)


@admin.register(Evaluation)
class EvaluationAdmin(admin.ModelAdmin):
    """Read-only, like the history: an evaluation's figures are evidence. Its page has the plot."""

    list_display = ["dataset", "panel", "owner", "status", "created_at", "finished_at", "page"]
    list_filter = ["status", "panel"]
    list_select_related = ["panel", "owner"]
    readonly_fields = ["page"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    @admin.display(description="Page")
    def page(self, evaluation: Evaluation) -> str:
        return format_html('<a href="{}">/evaluations/{}/</a>', evaluation.get_absolute_url(), evaluation.pk)


@admin.register(VerdictOutcome)
class VerdictOutcomeAdmin(admin.ModelAdmin):
    """Judged verdicts (the asker's or staff's, on the page, the API or the CLI); staff may correct one."""

    list_display = ["question", "value", "marked_by", "marked_at"]
    list_filter = ["value"]
    list_select_related = ["question", "marked_by"]
    raw_id_fields = ["question", "marked_by"]
    search_fields = ["question__text", "note"]
