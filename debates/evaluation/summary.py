"""An evaluation added up: Du et al.'s table (each model alone, the majority vote of the blind
answers, the verdict after debate), each accuracy with its 95% Wilson interval, and what it cost.

Computed from the item rows every time (the page, the CLI's progress line, the stored totals),
so a figure never disagrees with the items it sums.
"""

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from debates.evaluation.models import Evaluation, EvaluationItem

Z95 = 1.959964  # the normal quantile of a two-sided 95% interval


def wilson(correct: int, total: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a proportion: sound at 0/n, n/n and small n, unlike p ± 1.96·se."""
    if total == 0:
        return 0.0, 1.0
    p = correct / total
    spread = Z95**2 / total
    centre = (p + spread / 2) / (1 + spread)
    half = Z95 * math.sqrt(p * (1 - p) / total + spread / (4 * total)) / (1 + spread)
    low = 0.0 if correct == 0 else max(0.0, centre - half)
    return low, 1.0 if correct == total else min(1.0, centre + half)  # exact at the ends, not 0.9999…


@dataclass(frozen=True)
class Row:
    """One line of the table and one bar of the plot."""

    kind: str  # "model", "majority" or "verdict"
    label: str
    detail: str
    correct: int
    total: int

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.total if self.total else None

    @property
    def interval(self) -> tuple[float, float]:
        return wilson(self.correct, self.total)

    @property
    def percent(self) -> str:
        return "—" if self.accuracy is None else f"{self.accuracy:.1%}"

    @property
    def interval_text(self) -> str:
        low, high = self.interval
        return f"{low:.0%}–{high:.0%}" if self.total else "—"


def totals_of(evaluation: Evaluation) -> "Totals":
    """The evaluation's totals from its item rows as they are now."""
    return Totals.of(evaluation.items.all(), evaluation.items.count())


@dataclass
class Totals:
    planned: int
    done: int = 0
    models: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> model, correct, total, answered
    majority_correct: int = 0
    ties: int = 0
    verdict_correct: int = 0
    grounded: int = 0
    failed: int = 0  # questions that did not finish done (failed, cancelled, needs review…)
    calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost: Decimal = Decimal(0)

    @classmethod
    def of(cls, items: Iterable[EvaluationItem], planned: int) -> "Totals":
        totals = cls(planned)
        for item in items:
            if item.finished_at is not None:
                totals.add(item)
        return totals

    def add(self, item: EvaluationItem) -> None:
        self.done += 1
        for answer in item.answers:
            model = self.models.setdefault(
                answer["name"], {"model": answer["model"], "correct": 0, "total": 0, "answered": 0}
            )
            model["total"] += 1
            model["correct"] += bool(answer["correct"])
            model["answered"] += bool(answer["read"])
        self.majority_correct += item.majority_correct
        self.ties += item.majority_tie
        self.verdict_correct += item.verdict_correct
        self.grounded += item.grounded
        self.failed += item.status not in ("done", "answered")
        self.calls += item.calls
        self.tokens_in += item.tokens_in
        self.tokens_out += item.tokens_out
        self.cost += item.cost

    def rows(self) -> list[Row]:
        """Each model alone, then the majority vote of their blind answers, then the verdict."""
        rows = [Row("model", name, m["model"], m["correct"], m["total"]) for name, m in self.models.items()]
        ties = f"{self.ties} tie{'s' if self.ties != 1 else ''} counted wrong" if self.ties else "blind answers"
        rows.append(Row("majority", "Majority vote", ties, self.majority_correct, self.done))
        rows.append(Row("verdict", "Verdict after debate", "the moderator", self.verdict_correct, self.done))
        return rows

    def row(self, kind: str) -> Row:
        """The "majority" or "verdict" row."""
        return next(row for row in self.rows() if row.kind == kind)

    def best_model(self) -> Row | None:
        models = [row for row in self.rows() if row.kind == "model" and row.total]
        return max(models, key=lambda row: row.correct / row.total, default=None)  # the first of equals

    def as_dict(self) -> dict[str, Any]:
        """Stored on the evaluation and exported; accuracies and intervals included for readers of the JSON."""
        return {
            "items": self.planned,
            "done": self.done,
            "rows": [
                {
                    "kind": row.kind,
                    "label": row.label,
                    "detail": row.detail,
                    "correct": row.correct,
                    "total": row.total,
                    "accuracy": row.accuracy,
                    "interval95": list(row.interval),
                }
                for row in self.rows()
            ],
            "ties": self.ties,
            "grounded": self.grounded,
            "failed": self.failed,
            "calls": self.calls,
            "tokens_in": self.tokens_in,
            "tokens_out": self.tokens_out,
            "cost": str(self.cost),
        }
