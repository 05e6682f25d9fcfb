"""``python manage.py evaluate DATASET --panel SLUG``: run a labelled data set through a panel.

Each item is a real question (runs.execute), stored and visible like any other; the evaluation
is stored too (/evaluations/<id>/) and resumes where it stopped when the same command, or
``--resume ID``, is run again. Prints a line per item, a progress line (a bar on a terminal,
plain lines otherwise), then Du et al.'s table: each model alone, the majority vote of the blind
answers, the verdict after debate. Exit status: 0 finished, 130 interrupted (resumable).
"""

import asyncio
import sys
from pathlib import Path
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from debates.evaluation import export
from debates.evaluation.models import Evaluation, EvaluationItem, EvaluationStatus
from debates.evaluation.runner import Runner, begin, runnable
from debates.evaluation.summary import Row, Totals, totals_of
from debates.models import Panel
from debates.refusal import Refused
from debates.templatetags.teorema import milliseconds

BAR = 24
MAX_CONCURRENCY = 32


class Command(BaseCommand):
    help = "Run a labelled data set (JSONL, CSV or arithmetic:N[:SEED]) through a panel and score it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "dataset",
            nargs="?",
            default="",
            help="a .jsonl or .csv file of question + answer (+ options, id), or arithmetic:N[:SEED] "
            "(Du et al.'s a+b*c+d-e*f task, generated)",
        )
        parser.add_argument("--panel", help="panel slug (default: the default panel)")
        parser.add_argument("--limit", type=int, help="only the first N items")
        parser.add_argument("--concurrency", type=int, default=1, help="items run at once (default 1)")
        parser.add_argument("--user", help="username that owns the evaluation and its questions (default: staff-only)")
        parser.add_argument("--resume", type=int, metavar="ID", help="continue evaluation ID where it stopped")
        parser.add_argument(
            "--grounding",
            action="store_true",
            help="let SymPy compute each item's maths for the panel first (off: it would hand the panel the answer)",
        )
        parser.add_argument(
            "--export", nargs=2, metavar=("FORMAT", "PATH"), help="then write the results as csv or json to PATH"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["export"] and options["export"][0] not in export.FORMATS:
            raise CommandError(f"--export takes csv or json, not “{options['export'][0]}”.")
        if options["export"] and not Path(options["export"][1]).resolve().parent.is_dir():
            raise CommandError(f"--export: the folder of {options['export'][1]} does not exist.")
        if not 1 <= options["concurrency"] <= MAX_CONCURRENCY:
            raise CommandError(f"--concurrency must be between 1 and {MAX_CONCURRENCY}.")
        evaluation = self.resumed(options) if options["resume"] is not None else self.started(options)
        if evaluation.status != EvaluationStatus.DONE:
            self.run(evaluation, options["concurrency"])
        evaluation.refresh_from_db()
        self.report(evaluation, totals_of(evaluation))
        if options["export"]:
            fmt, path = options["export"]
            try:
                Path(path).write_text(export.render(evaluation, fmt), encoding="utf-8")
            except OSError as error:
                raise CommandError(f"Cannot write {path}: {error.strerror or error}.") from error
            self.stdout.write(f"Exported to {path} ({fmt}).")

    def started(self, options: dict[str, Any]) -> Evaluation:
        if not options["dataset"]:
            raise CommandError("Give a data set (a .jsonl or .csv file, or arithmetic:N[:SEED]) or --resume ID.")
        if options["limit"] is not None and options["limit"] < 1:
            raise CommandError("--limit must be at least 1.")
        panel = self.panel(options["panel"])
        owner = None
        if options["user"]:
            owner = get_user_model().objects.filter(username=options["user"]).first()
            if owner is None:
                raise CommandError(f"There is no user “{options['user']}”.")
        try:
            evaluation, resumed = begin(
                options["dataset"], panel, owner, options["limit"], options["concurrency"], options["grounding"]
            )
        except Refused as refused:
            raise CommandError(str(refused)) from refused
        self.head(evaluation, resumed)
        return evaluation

    def resumed(self, options: dict[str, Any]) -> Evaluation:
        if options["dataset"]:
            raise CommandError("Give a data set or --resume ID, not both.")
        evaluation = Evaluation.objects.select_related("panel").filter(pk=options["resume"]).first()
        if evaluation is None:
            raise CommandError(f"There is no evaluation {options['resume']}.")
        if evaluation.status != EvaluationStatus.DONE:
            try:
                runnable(evaluation.panel)
            except Refused as refused:
                raise CommandError(str(refused)) from refused
        self.head(evaluation, resumed=True)
        return evaluation

    def panel(self, slug: str | None) -> Panel:
        panel = Panel.objects.filter(slug=slug).first() if slug else Panel.objects.default()
        if panel is None:
            slugs = ", ".join(Panel.objects.order_by("slug").values_list("slug", flat=True)) or "none yet"
            raise CommandError(f"There is no panel “{slug}”. The panels: {slugs}." if slug else "No default panel.")
        return panel

    def head(self, evaluation: Evaluation, resumed: bool) -> None:
        total = evaluation.items.count()
        done = evaluation.items.filter(finished_at__isnull=False).count()
        state = f" · resuming: {done} of {total} done" if resumed else ""
        heading = f"Evaluation {evaluation.pk} · {evaluation.dataset} · panel {evaluation.panel.name} · {total} items"
        self.stdout.write(self.style.MIGRATE_HEADING(heading + state))

    def run(self, evaluation: Evaluation, concurrency: int) -> None:
        progress = Progress(self, evaluation.items.count())
        runner = Runner(evaluation, concurrency, item_done=progress.item_done, note=progress.note)
        try:
            asyncio.run(runner.run())
        except KeyboardInterrupt:
            progress.end()
            done = evaluation.items.filter(finished_at__isnull=False).count()
            self.stderr.write(
                f"Interrupted after {done} of {progress.total} items. Run the same command again, or "
                f"manage.py evaluate --resume {evaluation.pk}, to continue where it stopped."
            )
            sys.exit(130)
        progress.end()

    def report(self, evaluation: Evaluation, totals: Totals) -> None:
        """Du et al.'s table, then what it cost."""
        heading = f"== {evaluation.get_status_display()}: {totals.done} of {totals.planned} items =="
        self.stdout.write("\n" + self.style.MIGRATE_HEADING(heading))
        rows = totals.rows()
        width = max(len(_name(row)) for row in rows)
        self.stdout.write(f"{'':{width}}  {'correct':>9}  {'accuracy':>8}  95% interval")
        for row in rows:
            figures = f"{row.correct}/{row.total}"
            line = f"{_name(row):{width}}  {figures:>9}  {row.percent:>8}  {row.interval_text}"
            self.stdout.write(self.style.SUCCESS(line) if row.kind == "verdict" else line)
        if totals.ties:
            self.stdout.write(f"Majority vote: {totals.ties} tie(s), counted wrong.")
        if totals.grounded:
            grounded = (
                f"SymPy computed the maths of {totals.grounded} of {totals.done} items and gave it to the panel "
                "before it answered: those figures say whether the panel used it, not whether it can compute."
            )
            self.stdout.write(self.style.WARNING(grounded))
        if totals.failed:
            self.stdout.write(self.style.WARNING(f"{totals.failed} question(s) did not finish done: see the page."))
        self.stdout.write(
            f"{totals.calls} calls · {totals.tokens_in:,} tokens in + {totals.tokens_out:,} out · "
            f"${totals.cost:.4f} · wall {milliseconds(evaluation.wall_ms)}"
        )
        self.stdout.write(f"Page: /evaluations/{evaluation.pk}/")


class Progress:
    """A line per item, and the progress so far: a bar rewritten in place on a terminal, plain text elsewhere."""

    def __init__(self, command: Command, total: int) -> None:
        self.out = command.stdout
        self.style = command.style
        self.total = total
        self.tty = command.stdout.isatty()
        self.drawn = False

    def item_done(self, item: EvaluationItem, totals: Totals) -> None:
        marks = ", ".join(f"{a['name']} {a['read'] or '—'} {_mark(a['correct'])}" for a in item.answers)
        majority = "tie" if item.majority_tie else (item.majority or "—")
        line = (
            f"item {item.item_id} · expected {item.expected} · {marks} · majority {majority} "
            f"{_mark(item.majority_correct)} · verdict {item.verdict_read or '—'} {_mark(item.verdict_correct)} · "
            f"{item.calls} calls · ${item.cost:.4f} · {milliseconds(item.wall_ms)}"
        )
        self.write(f"[{totals.done}/{self.total}] {line}")
        self.status(totals)

    def note(self, text: str) -> None:
        self.write(self.style.WARNING(text))

    def status(self, totals: Totals) -> None:
        best = totals.best_model()
        so_far = (
            f"{totals.done}/{self.total} · verdict {totals.row('verdict').percent} · majority "
            f"{totals.row('majority').percent} · best model {best.percent if best else '—'} · "
            f"${totals.cost:.4f}"
        )
        if self.tty:
            filled = round(BAR * totals.done / self.total) if self.total else BAR
            self.out.write(f"\r\x1b[K{'█' * filled}{'░' * (BAR - filled)} {so_far}", ending="")
            self.out.flush()
            self.drawn = True
        else:
            self.out.write(f"  so far: {so_far}")

    def write(self, line: str) -> None:
        if self.drawn:
            self.out.write("\r\x1b[K", ending="")
            self.drawn = False
        self.out.write(line)

    def end(self) -> None:
        if self.drawn:
            self.out.write("")
            self.drawn = False


def _name(row: Row) -> str:
    return f"{row.label} ({row.detail})" if row.kind == "model" else row.label


def _mark(correct: bool) -> str:
    return "✓" if correct else "✗"
