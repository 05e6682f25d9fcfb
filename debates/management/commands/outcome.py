"""``python manage.py outcome ID right|wrong|partly [--note "…"] [--user NAME]``: judge a finished verdict.

The same rule as the page and the API (track.outcomes): only a finished verdict, one of the three
values, a note of at most 2,000 characters; judging again replaces the judgement. With ``--user``
the judge must be the asker or staff; without it, the judgement is recorded as an operator's.
"""

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from debates import service
from debates.refusal import Refused


class Command(BaseCommand):
    help = "Record whether a finished question's verdict turned out right, wrong or partly right."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("question", type=int, help="the question's number (its page is /q/ID/)")
        parser.add_argument("outcome", metavar="right|wrong|partly", help="how the verdict turned out")
        parser.add_argument("--note", default="", help="what happened, a source (at most 2,000 characters)")
        parser.add_argument("--user", help="who judges: the asker or a staff member (default: an unnamed operator)")

    def handle(self, *args, question: int, outcome: str, note: str, user: str | None, **options) -> None:
        judge = None
        if user is not None:
            judge = get_user_model().objects.filter(username=user).first()
            if judge is None:
                raise CommandError(f"There is no user {user!r}.")
        try:
            recorded = service.outcome(judge, question, value=outcome, note=note)
        except Refused as refused:
            raise CommandError(refused.message) from None
        said = f" Note: {recorded['note']}" if recorded["note"] else ""
        self.stdout.write(f"Question {question}: the verdict was {recorded['outcome']}.{said}")
