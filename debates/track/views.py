"""The Models page, and judging a verdict from the question page."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from debates.access import visible_question
from debates.question_page import render_question
from debates.refusal import Refused
from debates.track import figures, svg
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
