"""The evaluation pages: the list, one evaluation (refreshed by htmx while it runs), its exports.

An evaluation is its owner's and staff's, like the private questions it asked: for anyone else
it does not exist (404).
"""

from decimal import Decimal
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from debates.evaluation import export
from debates.evaluation.models import Evaluation, EvaluationStatus
from debates.evaluation.plot import plot
from debates.evaluation.summary import Totals

POLL_SECONDS = 3


@login_required
def evaluations(request: HttpRequest) -> HttpResponse:
    listed = Evaluation.objects.visible_to(request.user).select_related("panel")
    return render(request, "debates/evaluations.html", {"evaluations": [(e, headline(e.totals)) for e in listed]})


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
