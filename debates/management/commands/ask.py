"""``python manage.py ask "…" --panel SLUG``: run a debate here and follow it in the terminal.

The run is the web's run (runs.execute: same lease, recorder and live sink), asked through the one
service; the terminal prints what the one follower (live.watch) yields, as ``integrations.cli``
words it. ``--follow ID`` follows a question running elsewhere (asked on the page, say): leaving
it stops the following, never the run. Exit status: 0 done or answered, 1 failed or cancelled, 2
needs human review.
"""

import asyncio
import sys
from argparse import ArgumentParser, _ArgumentGroup
from pathlib import Path

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from debates import service
from debates.attachments.check import Upload
from debates.engine.vocabulary import DebateMode
from debates.integrations.cli import DEMO, Printer, opening
from debates.live.layer import broadcasts_stay_in_process
from debates.live.snapshot import on_demo_model
from debates.live.watch import Ended, watch
from debates.models import Criticality, Protocol, Question, Source, Status
from debates.refusal import Refused
from debates.represent import public_url
from debates.runs import execute

EXIT: dict[str, int] = {Status.DONE: 0, Status.ANSWERED: 0, Status.NEEDS_REVIEW: 2}


class Command(BaseCommand):
    help = "Ask the panel a question and stream the debate to the terminal."

    def add_arguments(self, parser) -> None:
        asked(parser)
        settings_of(parser.add_argument_group("this question's panel settings (default: the panel's)"))
        earlier(parser.add_argument_group("an earlier question, by its ID"))

    def handle(self, *args, text: str, panel: str | None, user: str | None, **options) -> None:
        if options["without_failed"] and options["retry"] is None:
            raise CommandError("--without-failed goes with --retry ID: it says how to run a failed question again.")
        owner = self.owner(user)
        try:
            if options["follow"] is not None:
                question = service.visible(owner, options["follow"])
            elif options["retry"] is not None:
                question = service.retry(
                    owner, options["retry"], without_failed=options["without_failed"], runs_here=True
                )
            else:
                question = service.ask(
                    owner,
                    source=Source.CLI,
                    runs_here=True,
                    attachments=attached(options["attach"]),
                    **self.fields(text, panel, options),
                )
        except Refused as refused:
            raise CommandError(refused.in_words) from None
        here = options["follow"] is None  # a new or retried run runs in this process
        self.stdout.write(self.style.MIGRATE_HEADING(f"Question {question.pk} · panel {question.panel.name}"))
        for line in opening(question):
            self.stdout.write(line)
        if on_demo_model(question):
            self.stdout.write(self.style.WARNING(DEMO))
        if link := in_the_browser(question, here):
            self.stdout.write(link)
        try:
            status = asyncio.run(self.follow(question.pk, here))
        except KeyboardInterrupt:
            if here:  # the run lives in this process: stopping it here is the operator's explicit cancel
                execute.cancel(question.pk)
                self.stderr.write("Cancelled.")
            else:
                self.stderr.write(f"Stopped following; the debate goes on (its page: /q/{question.pk}/).")
            sys.exit(130)
        if status not in EXIT:
            sys.exit(1)
        if EXIT[status]:
            sys.exit(EXIT[status])

    def owner(self, user: str | None):
        """The user the question belongs to; without one it is the operator's, staff-only, and may
        follow up any question."""
        owner = get_user_model().objects.filter(username=user).first() if user else None
        if user and owner is None:
            raise CommandError(f"There is no user “{user}”.")
        return owner

    def fields(self, text: str, panel: str | None, options: dict) -> dict:
        return {
            "text": text,
            "panel": panel,
            "criticality": options["criticality"],
            "context": options["context"],
            "force_panel": options["force_panel"],
            "search": options["search"],
            "options": options["choices"],
            "debate": options["debate"],
            "voices": options["voices"],
            "protocol": options["protocol"],
            "moderator": options["moderator"],
            "follow_up_of": options["follow_up"],
            "deadline": options["deadline"],
            "max_cost": options["max_cost"],
        }

    async def follow(self, question_id: int, here: bool) -> str:
        """Print the run as it happens (running it on this loop when ``here``), then how it ended."""
        printer = Printer(self.stdout, self.style)
        run = asyncio.create_task(execute.execute(question_id)) if here else None
        async for happening in watch(question_id):
            printer.show(happening)
            if isinstance(happening, Ended):
                break
        if run is not None:
            await run
        found = await sync_to_async(service.read)(None, question_id)
        await sync_to_async(printer.ending)(found)
        return found["status"]


def attached(paths: list[str]) -> list[Upload]:
    """The files named on the command line, by their own names (their kind is read from their content)."""
    uploads = []
    for given in paths:
        path = Path(given)
        try:
            uploads.append(Upload(path.name, "", path.read_bytes()))
        except OSError as error:
            raise CommandError(f"Cannot attach {given}: {error.strerror or error}.") from None
    return uploads


def in_the_browser(question: Question, here: bool) -> str:
    """Where the page is, when the site's address is known (``TEOREMA_PUBLIC_URL``); a run of this
    process with the in-memory channel layer cannot stream its words to the page."""
    url = public_url(question.get_absolute_url())
    if not url:
        return ""
    if here and broadcasts_stay_in_process():
        return f"Follow it in the browser: {url} — it refreshes there every few seconds; the live text is here."
    return f"Watch it live in the browser too: {url}"


def asked(parser: ArgumentParser) -> None:
    """The question: its words, its panel, its files, who asks it."""
    parser.add_argument("text", nargs="?", default="", help="the question")
    parser.add_argument("--panel", help="panel slug (default: the default panel)")
    parser.add_argument("--criticality", choices=list(Criticality), help="default: the panel's")
    parser.add_argument("--context", default="", help="optional context for the panel")
    parser.add_argument("--force-panel", action="store_true", help="always run the full panel (no triage)")
    parser.add_argument(
        "--no-search",
        action="store_false",
        dest="search",
        help="no voice searches the web for this question (by default those whose panelist may, do)",
    )
    parser.add_argument(
        "--attach",
        action="append",
        default=[],
        dest="attach",
        metavar="FILE",
        help="attach a file for the panel to read (repeat it): PDF, DOCX, text, code, CSV, JSON, or an image",
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


def settings_of(group: _ArgumentGroup) -> None:
    """The panel's settings this question changes: voices, protocol, moderator, debate, time, money."""
    group.add_argument(
        "--voice",
        action="append",
        default=[],
        dest="voices",
        metavar="PANELIST",
        help="pick the voices for this question only (repeat it; by panelist name), on the panel's settings",
    )
    group.add_argument("--protocol", choices=list(Protocol), help="this question's protocol (default: the panel's)")
    group.add_argument("--moderator", metavar="PANELIST", help="this question's moderator (default: the panel's)")
    group.add_argument(
        "--debate",
        choices=list(DebateMode),
        help="on_dissent: skip the debate when a mixed panel's blind answers agree (default: the panel's)",
    )
    group.add_argument(
        "--deadline",
        type=int,
        metavar="SECONDS",
        help="answer within this many seconds: late voices are stopped and disclosed (default: the panel's)",
    )
    group.add_argument(
        "--max-cost",
        metavar="USD",
        help="spend at most this many dollars: refused when the run is expected to cost more, stopped "
        "before a round that would pass it (default: no cap; the budgets still apply)",
    )


def earlier(group: _ArgumentGroup) -> None:
    """A question asked before: followed up, run again, or followed where it runs."""
    group.add_argument(
        "--follow-up",
        type=int,
        metavar="ID",
        help="follow up question ID: the panel gets its verdict and disputed points (visible to --user)",
    )
    group.add_argument(
        "--retry",
        "--retry-synthesis",
        type=int,
        dest="retry",
        metavar="ID",
        help="run failed question ID again: only the calls that did not complete are made again",
    )
    group.add_argument(
        "--follow",
        type=int,
        metavar="ID",
        help="follow question ID, running elsewhere (the page, a worker): leaving stops the following, not the run",
    )
    group.add_argument(
        "--without-failed",
        action="store_true",
        help="with --retry: go on without the failed voices, as the degrade policy would (disclosed)",
    )
