"""The evaluation pages: the list and the form that starts one, one evaluation, its exports.

Progress refreshes by htmx polling, not the socket: an evaluation moves an item at a time (each a
whole debate, with its own live page), its figures are the totals stored after each item, and a
worker in another process runs it; a poll every few seconds reads what is stored, the same in
local mode and on a server, with nothing to broadcast.

An evaluation is its owner's and staff's, like the private questions it asked: for anyone else
it does not exist (404).
"""

from decimal import Decimal
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render

from debates.evaluation import export, tasks
from debates.evaluation.forms import EvaluationForm
from debates.evaluation.models import Evaluation, EvaluationStatus
from debates.evaluation.plot import plot
from debates.evaluation.summary import Totals

POLL_SECONDS = 3


@login_required
def evaluations(request: HttpRequest) -> HttpResponse:
    """The list, and the form that starts one: a background run owned by the signed-in user."""
    form = EvaluationForm(request.POST or None)
    if request.method == "POST" and form.is_valid() and (started := form.start(request.user)):
        evaluation, resumed = started
        if resumed and evaluation.status == EvaluationStatus.RUNNING:
            messages.info(request, "That evaluation is already running: here is its progress.")
        else:
            tasks.submit_evaluation(evaluation)
            said = "Resuming it where it stopped" if resumed else "Started"
            messages.success(request, f"{said}: each item is a whole debate, so this takes a while.")
        return redirect(evaluation)
    context = {"form": form, **list_context(request)}
    return render(request, "debates/evaluations.html", context, status=400 if form.is_bound else 200)


@login_required
def evaluation_list(request: HttpRequest) -> HttpResponse:
    """The list alone: what htmx polls while an evaluation in it runs."""
    return render(request, "debates/evaluation_list.html", list_context(request))


def list_context(request: HttpRequest) -> dict[str, Any]:
    listed = list(Evaluation.objects.visible_to(request.user).select_related("panel"))
    return {
        "evaluations": [(e, headline(e.totals)) for e in listed],
        "running": any(e.status == EvaluationStatus.RUNNING for e in listed),
        "poll_seconds": POLL_SECONDS,
    }


def headline(totals: dict[str, Any]) -> dict[str, Any]:
    """The list's columns, from the totals stored after each item (summing every item of every
    evaluation would make the list as slow as its largest evaluation)."""
    rows = totals.get("rows", [])
    scored = [row for row in rows if row["accuracy"] is not None]
    best = max((row for row in scored if row["kind"] == "model"), key=lambda row: row["accuracy"], default=None)
    by_kind = {row["kind"]: row for row in scored if row["kind"] != "model"}
    shown = {"best": best, "majority": by_kind.get("majority"), "verdict": by_kind.get("verdict")}
    return {
        "done": totals.get("done", 0),
        "items": totals.get("items", 0),
        "cost": Decimal(totals.get("cost", "0")),
        **{key: f"{row['accuracy']:.0%}" if row else "" for key, row in shown.items()},
    }


def visible_evaluation(request: HttpRequest, pk: int) -> Evaluation:
    return get_object_or_404(Evaluation.objects.visible_to(request.user).select_related("panel", "owner"), pk=pk)


@login_required
def evaluation(request: HttpRequest, pk: int) -> HttpResponse:
    return render(request, "debates/evaluation.html", results_context(visible_evaluation(request, pk)))


@login_required
def results(request: HttpRequest, pk: int) -> HttpResponse:
    """The part of the page that changes while it runs: what htmx polls."""
    return render(request, "debates/evaluation_results.html", results_context(visible_evaluation(request, pk)))


@login_required
def download(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    if fmt not in export.FORMATS:
        raise Http404("No such format.")
    shown = visible_evaluation(request, pk)
    content_type = "text/csv" if fmt == "csv" else "application/json"
    response = HttpResponse(export.render(shown, fmt), content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="evaluation-{shown.pk}.{fmt}"'
    return response


def results_context(shown: Evaluation) -> dict[str, Any]:
    items = list(shown.items.all())
    totals = Totals.of(items, len(items))
    models = list(dict.fromkeys(answer["name"] for item in items for answer in item.answers))
    # Each item's answers in the columns' order (a model missing from an item's roster: None).
    cells = [(item, [{a["name"]: a for a in item.answers}.get(name) for name in models]) for item in items]
    return {
        "evaluation": shown,
        "totals": totals,
        "rows": totals.rows(),
        "plot": plot(totals.rows()),
        "items": cells,
        "models": models,
        "in_flight": [item for item in items if item.finished_at is None and item.question_id],
        "running": shown.status == EvaluationStatus.RUNNING,
        "poll_seconds": POLL_SECONDS,
    }
