"""``python manage.py ask "…" --panel SLUG``: run a debate here and follow it in the terminal.

The run is the web's run (runs.execute: same lease, recorder and live sink); the terminal
follows it the way a viewer does, from the live state in the cache and the stored contributions:
round headers, each voice when it completes, the synthesis as it streams, then the verdict
and who was who. Exit status: 0 done or answered, 1 failed or cancelled, 2 needs human review.
"""

import asyncio
import sys
from collections import Counter
from decimal import Decimal

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from debates.engine.reading import judgement
from debates.engine.vocabulary import DebateMode, StepKind
from debates.forms import AskForm
from debates.live.cards import FINISHED_STATUSES
from debates.live.follow import follow
from debates.live.layer import broadcasts_stay_in_process
from debates.live.state import LiveState, read_state
from debates.models import Contribution, Criticality, Outcome, Protocol, Question, Source, Status
from debates.represent import public_url
from debates.runs import execute

EXIT: dict[str, int] = {Status.DONE: 0, Status.ANSWERED: 0, Status.NEEDS_REVIEW: 2}
FOLLOW_EVERY = 0.1  # seconds between two looks at the run (the live view flushes every 50 ms at most)
SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
CARD_MARKS = {
    "waiting": "·",
    "queued": "·",
    "streaming": "…",
    "retrying": "↻",
    "done": "✓",
    "failed": "✗",
    "gated": "✗",
}


class Command(BaseCommand):
    help = "Ask the panel a question and stream the debate to the terminal."

    def add_arguments(self, parser) -> None:
        parser.add_argument("text", nargs="?", default="", help="the question")
        parser.add_argument("--panel", help="panel slug (default: the default panel)")
        parser.add_argument("--criticality", choices=list(Criticality), help="default: the panel's")
        parser.add_argument("--context", default="", help="optional context for the panel")
        parser.add_argument("--force-panel", action="store_true", help="always run the full panel (no triage)")
        parser.add_argument(
            "--voice",
            action="append",
            default=[],
            dest="voices",
            metavar="PANELIST",
            help="pick the voices for this question only (repeat it; by panelist name), on the panel's settings",
        )
        parser.add_argument(
            "--protocol", choices=list(Protocol), help="this question's protocol (default: the panel's)"
        )
        parser.add_argument("--moderator", metavar="PANELIST", help="this question's moderator (default: the panel's)")
        parser.add_argument(
            "--debate",
            choices=list(DebateMode),
            help="on_dissent: skip the debate when a mixed panel's blind answers agree (default: the panel's)",
        )
        parser.add_argument(
            "--deadline",
            type=int,
            metavar="SECONDS",
            help="answer within this many seconds: late voices are stopped and disclosed (default: the panel's)",
        )
        parser.add_argument("--user", help="username that owns the question (default: none, staff-only)")
        parser.add_argument(
            "--option",
            action="append",
            default=[],
            dest="choices",
            metavar="OPTION",
            help="vote protocol: a decision voters must pick verbatim (repeat it for each option)",
        )
        parser.add_argument(
            "--follow-up",
            type=int,
            metavar="ID",
            help="follow up question ID: the panel gets its verdict and disputed points (visible to --user)",
        )
        parser.add_argument(
            "--retry",
            "--retry-synthesis",
            type=int,
            dest="retry",
            metavar="ID",
            help="run failed question ID again: only the calls that did not complete are made again",
        )
        parser.add_argument(
            "--without-failed",
            action="store_true",
            help="with --retry: go on without the failed voices, as the degrade policy would (disclosed)",
        )

    def handle(self, *args, text: str, panel: str | None, user: str | None, **options) -> None:
        if options["retry"] is not None:
            question = self.retry(options["retry"], options["without_failed"])
        elif options["without_failed"]:
            raise CommandError("--without-failed goes with --retry ID: it says how to run a failed question again.")
        else:
            question = self.ask(text, panel, user, options)
        self.stdout.write(self.style.MIGRATE_HEADING(f"Question {question.pk} · panel {question.panel.name}"))
        self.stdout.write(in_the_browser(question))
        try:
            status = asyncio.run(Follower(question.pk, self).run())
        except KeyboardInterrupt:
            execute.cancel(question.pk)
            self.stderr.write("Cancelled.")
            sys.exit(130)
        if status not in EXIT:
            sys.exit(1)
        if EXIT[status]:
            sys.exit(EXIT[status])

    def ask(self, text: str, panel: str | None, user: str | None, options: dict) -> Question:
        owner = get_user_model().objects.filter(username=user).first() if user else None
        if user and owner is None:
            raise CommandError(f"There is no user “{user}”.")
        # Without --user the question is staff-only, and so is what it may follow up: any question.
        followable = Question.objects.visible_to(owner) if owner else Question.objects.all()
        form = AskForm(
            {
                "text": text,
                "panel": panel or "",
                "criticality": options["criticality"] or "",
                "context": options["context"],
                "force_panel": options["force_panel"],
                "options": options["choices"],
                "debate": options["debate"] or "",
                "voices": options["voices"],
                "protocol": options["protocol"] or "",
                "moderator": options["moderator"] or "",
                "follow_up_of": options["follow_up"],
                "deadline": options["deadline"],
            },
            followable=followable,
        )
        if not form.is_valid():
            raise CommandError(" ".join(e["message"] for errs in form.errors.get_json_data().values() for e in errs))
        return form.save(owner=owner, source=Source.CLI)

    def retry(self, question_id: int, without_failed: bool) -> Question:
        question = Question.objects.select_related("panel").filter(pk=question_id).first()
        if question is None:
            raise CommandError(f"There is no question {question_id}.")
        if refused := execute.reopen(question, without_failed):  # then followed here, like a new question
            raise CommandError(f"Question {question_id} was not run again: {refused}.")
        return question


class Follower:
    """Runs the question on this loop and prints what a viewer would see, as it happens."""

    def __init__(self, question_id: int, command: Command) -> None:
        self.question_id = question_id
        self.out = command.stdout
        self.style = command.style
        self.headed: set[int] = set()  # rounds whose header is printed
        self.printed: set[str] = set()  # card keys already printed whole
        self.streamed: dict[str, int] = {}  # synthesis card key -> characters printed so far
        # A terminal gets one status line rewritten in place while the voices think.
        self.tty = command.stdout.isatty()
        self.status_shown = ""
        self.ticks = 0

    async def run(self) -> str:
        task = asyncio.create_task(execute.execute(self.question_id))
        async for question, state in follow(self.question_id, every=FOLLOW_EVERY, patience=float("inf")):
            await self.show(state)
            if question.is_finished or task.done():
                break
        await task
        # The DB can say finished before the live state shows the last steps (the recorder goes
        # first): once the run is over, its state is whole.
        await self.show(read_state(self.question_id))
        return await sync_to_async(self.finish)()

    async def show(self, state: LiveState | None) -> None:
        if state is None:
            return
        # Round by round, from what the state holds: a look may come after several steps went by.
        for index, live_round in sorted(state.rounds.items()):
            if index not in self.headed and live_round.title:
                self.headed.add(index)
                self.clear_status()
                self.out.write("\n" + self.style.MIGRATE_HEADING(f"== {live_round.title} =="))
            await self.show_round(state, index)
        self.show_status(state)

    def show_status(self, state: LiveState) -> None:
        """What is happening now, between the printed contributions: no minutes of silence."""
        if any(key in self.streamed for key in state.cards):
            return  # the synthesis is streaming in full: its own text says what happens
        current = sorted(
            (c for c in state.cards.values() if c.round == max(state.rounds, default=-1)), key=lambda card: card.label
        )
        voices = " ".join(f"{c.label.removeprefix('Panelist ')} {CARD_MARKS.get(c.status, '·')}" for c in current)
        status = f"{state.phase} · {voices}" if voices else state.phase
        if not self.tty:
            return  # a pipe or a log has each round's header; a rewritten line would be noise there
        self.ticks += 1
        self.out.write(f"\r\x1b[K{SPINNER[self.ticks % len(SPINNER)]} {status}"[:200], ending="")
        self.out.flush()
        self.status_shown = status

    def clear_status(self) -> None:
        """Before printing anything else, the status line goes (a terminal only)."""
        if self.tty and self.status_shown:
            self.out.write("\r\x1b[K", ending="")
            self.status_shown = ""

    async def show_round(self, state: LiveState, index: int) -> None:
        for key, card in ((k, c) for k, c in state.cards.items() if c.round == index):
            if card.status in FINISHED_STATUSES and key not in self.printed:
                self.printed.add(key)
                self.clear_status()
                await sync_to_async(self.print_contribution)(key, card.round, card.seat)
            elif card.kind == "synthesis" and card.text:
                self.stream(key, card.label, card.text)

    def stream(self, key: str, label: str, text: str) -> None:
        """The synthesis, one voice, is printed as it arrives."""
        if key not in self.streamed:
            self.clear_status()
            self.out.write(self.style.MIGRATE_LABEL(f"\n{label}:"))
        elif len(text) < self.streamed[key]:
            self.out.write(self.style.WARNING("\n[the moderator's answer restarts]"))
            self.streamed[key] = 0
        self.out.write(text[self.streamed.get(key, 0) :], ending="")
        self.out.flush()
        self.streamed[key] = len(text)

    def print_contribution(self, key: str, round_index: int, seat: str) -> None:
        row = Contribution.objects.filter(
            round__question_id=self.question_id, round__index=round_index, seat=seat
        ).first()
        if row is None:
            return
        if row.kind == "synthesis" and row.status == Outcome.DONE:
            self.stream(key, row.label, row.text)  # the rest of it, from the stored contribution
            self.out.write("")
            return
        stats = f"{row.tokens_in + row.tokens_out} tokens · ${row.cost:.4f} · {row.latency_ms / 1000:.1f} s"
        self.out.write(self.style.MIGRATE_LABEL(f"\n{row.label} · {row.kind} · {row.status} · {stats}"))
        if row.status != Outcome.DONE:
            self.out.write(self.style.ERROR(row.error or row.status))
        judged = judgement.read(row.text) if row.kind == StepKind.AGREEMENT and row.status == Outcome.DONE else ""
        if isinstance(judged, judgement.Judgement):  # the judge's grouping in words, not its JSON
            self.out.write("\n".join(judged.lines()))
            return
        self.out.write(row.text.strip())

    def print_ledger(self, question: Question) -> None:
        """Where each voice stands, what the claims became, and what skipping the debate saved."""
        debate = question.panel_run.get("debate")
        if debate and debate["skipped"]:
            net = ", net of the judge's call that decided it" if debate.get("judge", {}).get("calls") else ""
            self.out.write(
                f"Debate skipped: {debate['reason']}. Saved {debate['calls_saved']} calls (~{debate['tokens_saved']} "
                f"tokens, ~${Decimal(debate['cost_saved']):.4f}) against always debating{net}."
            )
        elif debate:
            self.out.write(
                f"Debated only the contested claims ({', '.join(debate['contested']) or 'none'}): {debate['reason']}."
            )
        ledger = question.ledger
        if not ledger.get("labels"):
            return
        statuses = Counter(claim["status"] for claim in ledger["claims"])
        if statuses:
            self.out.write("Claims: " + ", ".join(f"{n} {status}" for status, n in statuses.most_common()))
        stances = ", ".join(f"{label} {s['stance']}" for label, s in ledger["stances"].items())
        self.out.write(f"Stances: {stances}")
        for flag in ledger["flags"]:
            self.out.write(self.style.WARNING(flag))

    def finish(self) -> str:
        self.clear_status()
        question = Question.objects.get(pk=self.question_id)
        self.out.write("\n\n" + self.style.MIGRATE_HEADING(f"== {question.get_status_display()} =="))
        if question.error:
            self.out.write(self.style.ERROR(question.error))
        consensus = question.consensus
        if consensus:
            self.out.write(f"Consensus: agreement {consensus['agreement']} against threshold {consensus['threshold']}")
        self.print_ledger(question)
        if question.verdict:
            self.out.write(self.style.SUCCESS(f"Verdict: {question.verdict}"))
        elif question.status == Status.DONE:
            self.out.write(self.style.WARNING("The moderator wrote no verdict of its own: read its synthesis above."))
        for voice in (question.panel_run.get("reveal") or {}).values():
            self.out.write(f"  {voice['label']}: {voice['name']} ({voice['model']}, {voice['provider']})")
        cost = f"{question.calls} calls · {question.tokens_in + question.tokens_out} tokens · ${question.cost:.4f}"
        self.out.write(cost)
        if question.status == Status.FAILED:
            self.out.write(what_can_be_done(question))
        return question.status


def what_can_be_done(question: Question) -> str:
    """A failed run's ways on, as commands (the page's "What you can do")."""
    failure = execute.failure_of(question)
    again = f"python manage.py ask --retry {question.pk}"
    if not failure.failed:
        return f"Run it again from where it stopped: {again}"
    names = ", ".join(failure.labels)
    lines = [f"Retry {names} (every completed contribution is reused): {again}"]
    if not failure.without:
        lines.append(f"Go on without {names}, as the degrade policy would: {again} --without-failed")
    return "\n".join(lines)


def in_the_browser(question: Question) -> str:
    """Where the page is; with the in-memory channel layer its live text cannot leave this process."""
    url = public_url(question.get_absolute_url())
    if broadcasts_stay_in_process():
        return f"Follow it in the browser: {url} — it refreshes there every few seconds; the live text is here."
    return f"Watch it live in the browser too: {url}"
