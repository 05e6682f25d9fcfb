"""The Models page, judging a verdict from the question page, and the admin's spend page."""

from django.contrib import admin, messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_safe

from debates.access import visible_question
from debates.question_page import render_question
from debates.refusal import Refused
from debates.track import figures, spend, svg
from debates.track.outcomes import OutcomeForm, record


@login_required
def models_page(request: HttpRequest) -> HttpResponse:
    found = figures.build(request.user)
    charts = {
        "reliability": svg.reliability(found.calibration.bins),
        "heatmap": svg.heatmap(found.records, found.pairs),
        "cost": svg.cost_against_agreement(found.records),
    }
    voices = [record for record in found.records if record.positions]
    others = [record for record in found.records if not record.positions]
    context = {"figures": found, "charts": charts, "voices": voices, "others": others}
    return render(request, "debates/models.html", context)


@login_required
@require_http_methods(["GET", "POST"])
def mark_outcome(request: HttpRequest, pk: int) -> HttpResponse:
    """Record the judgement; a value or note refused shows the page again with the note as typed.
    A GET is the form alone, for a page whose run just ended under the reader's eyes."""
    question = visible_question(request, pk)
    if request.method == "GET":
        return render(request, "debates/partials/verdict_outcome.html", {"q": question})
    form = OutcomeForm(request.POST)
    try:
        outcome = record(question, request.user, form)
    except Refused as refused:
        if refused.field:
            return render_question(request, question, status=400, outcome_form=form)
        messages.error(request, f"The outcome was not recorded. {refused.message}")
    else:
        messages.success(request, f"Recorded: the verdict was {outcome.get_value_display().lower()}.")
    return redirect(f"{question.get_absolute_url()}#verdict-outcome")


@staff_member_required
@require_safe
def spend_page(request: HttpRequest) -> HttpResponse:
    """The admin's spend page: the table and the chart of ``GET /api/spend``, the same parameters."""
    try:
        found = spend.report(spend.asked(request.GET.dict()))
    except Refused as refused:
        context = {"refused": refused, "choices": spend_choices(request.GET.dict())}
        return render(request, "admin/spend.html", context | admin.site.each_context(request), status=400)
    keys, calendar = [t.key for t in found.totals], found.asked.calendar
    index = {day: i for i, day in enumerate(calendar)}
    dollars = {(index[r.period], r.key): float(r.cost) for r in found.rows if r.period in index}
    series = svg.spend_series(keys)
    legend = {key: series.index(key if key in series else svg.OTHERS) for key in keys}
    context = {
        "report": found,
        "chart": svg.spend_over_time([found.asked.tick(day) for day in calendar], keys, dollars),
        "totals": [(t, legend[t.key]) for t in found.totals],
        "choices": spend_choices(request.GET.dict()),
        "title": "Spend",
    }
    return render(request, "admin/spend.html", context | admin.site.each_context(request))


def spend_choices(params: dict[str, str]) -> dict:
    """The form's choices and what is chosen (as asked, even when it was refused)."""
    return {
        "by": list(spend.BY),
        "periods": list(spend.PERIODS),
        "chosen": {"by": params.get("by", "provider"), "period": params.get("period", "day")},
        "since": params.get("since", ""),
    }
