"""An evaluation as CSV (one row per item, a column group per model) and as JSON (totals + items).

The page's download links and ``manage.py evaluate --export`` write the same bytes.
"""

import csv
import io
import json
import re
from typing import Any

from debates.evaluation.models import Evaluation, EvaluationItem
from debates.evaluation.summary import totals_of

FORMATS = ("csv", "json")
# A spreadsheet runs a cell starting with one of these as a formula; model output is untrusted.
FORMULA = re.compile(r"^[=+\-@\t\r]")
PLAIN_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?$")


def render(evaluation: Evaluation, fmt: str) -> str:
    """The evaluation in ``fmt`` ("csv" or "json")."""
    return as_csv(evaluation) if fmt == "csv" else json.dumps(as_json(evaluation), indent=2, ensure_ascii=False)


def as_json(evaluation: Evaluation) -> dict[str, Any]:
    items = list(evaluation.items.all())
    return {
        "evaluation": {
            "id": evaluation.pk,
            "dataset": evaluation.dataset,
            "panel": evaluation.panel.slug,
            "status": evaluation.status,
            "settings": evaluation.settings,
            "created_at": evaluation.created_at.isoformat(),
            "finished_at": evaluation.finished_at.isoformat() if evaluation.finished_at else None,
            "wall_seconds": evaluation.wall_ms / 1000,
            "totals": totals_of(evaluation).as_dict(),
        },
        "items": [_item(item) for item in items],
    }


def _item(item: EvaluationItem) -> dict[str, Any]:
    return {
        "index": item.index,
        "id": item.item_id,
        "question": item.text,
        "answer": item.answer,
        "expected": item.expected,
        "kind": item.kind,
        "options": item.options,
        "finished": item.finished_at is not None,
        "status": item.status,
        "question_id": item.question_id,
        "models": item.answers,
        "majority": item.majority,
        "majority_tie": item.majority_tie,
        "majority_correct": item.majority_correct,
        "verdict": item.verdict,
        "verdict_read": item.verdict_read,
        "verdict_correct": item.verdict_correct,
        "grounded": item.grounded,
        "calls": item.calls,
        "tokens_in": item.tokens_in,
        "tokens_out": item.tokens_out,
        "cost": str(item.cost),
        "wall_seconds": item.wall_ms / 1000,
    }


def as_csv(evaluation: Evaluation) -> str:
    items = list(evaluation.items.all())
    models = list(dict.fromkeys(answer["name"] for item in items for answer in item.answers))
    header = ["index", "id", "question", "expected", "kind", "status"]
    header += [f"{name} {column}" for name in models for column in ("answer", "read", "correct")]
    header += ["majority", "majority_tie", "majority_correct", "verdict", "verdict_read", "verdict_correct"]
    header += ["grounded", "calls", "tokens_in", "tokens_out", "cost", "wall_seconds", "question_id"]
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    for item in items:
        by_model = {answer["name"]: answer for answer in item.answers}
        row: list[object] = [item.index, item.item_id, item.text, item.expected, item.kind, item.status]
        for name in models:
            answer = by_model.get(name, {})
            row += [answer.get("answer", ""), answer.get("read", ""), answer.get("correct", "")]
        row += [item.majority, item.majority_tie, item.majority_correct]
        row += [item.verdict, item.verdict_read, item.verdict_correct, item.grounded, item.calls]
        row += [item.tokens_in, item.tokens_out, item.cost, item.wall_ms / 1000, item.question_id or ""]
        writer.writerow([_cell(value) for value in row])
    return out.getvalue()


def _cell(value: object) -> object:
    """A cell a spreadsheet shows as text: "=cmd()" gets a leading quote; "-27" stays a number."""
    if isinstance(value, str) and FORMULA.match(value) and not PLAIN_NUMBER.match(value):
        return "'" + value
    return value
