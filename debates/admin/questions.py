"""The debate history in the admin, read-only (what a debate produced is evidence), with the
human decision on a question that needs review; evaluations and judged verdicts beside it."""

from decimal import Decimal
from typing import TYPE_CHECKING, TypedDict

from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import Count, QuerySet, Sum
from django.http import HttpRequest, HttpResponse
from django.template.defaultfilters import linebreaksbr, truncatechars
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from debates.admin.forms import HumanDecisionForm
from debates.models import Attachment, Contribution, Evaluation, Question, Round, Status

if TYPE_CHECKING:
    from django_stubs_ext import WithAnnotations


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class AttachmentInline(ReadOnlyInline):
    """The question's files: what each is and a link to it (downloaded, never shown inline)."""

    model = Attachment
    fields = readonly_fields = ("position", "download", "kind", "media_type", "size", "pages", "width", "height")

    @admin.display(description="file")
    def download(self, row: Attachment) -> str:
        return format_html('<a href="{}" download>{}</a>', row.download_path(), row.name)


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


class QuestionAdmin(admin.ModelAdmin):
    """History is read-only: what a debate produced is evidence, so it is never edited here."""

    list_display = ["short_text", "status", "panel", "owner", "calls", "tokens", "cost", "created_at"]
    list_filter = ["status", "panel", "visibility", "created_at"]
    list_select_related = ["panel", "owner"]
    search_fields = ["text"]
    date_hierarchy = "created_at"
    inlines = [AttachmentInline, RoundInline]
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


class VerdictOutcomeAdmin(admin.ModelAdmin):
    """Judged verdicts (the asker's or staff's, on the page, the API or the CLI); staff may correct one."""

    list_display = ["question", "value", "marked_by", "marked_at"]
    list_filter = ["value"]
    list_select_related = ["question", "marked_by"]
    raw_id_fields = ["question", "marked_by"]
    search_fields = ["question__text", "note"]
