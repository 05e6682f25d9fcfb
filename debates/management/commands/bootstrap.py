"""`manage.py bootstrap`: what a fresh install needs, without a prompt; safe to run every start.

Imports the default roster while there is no panel yet, says which coding-agent CLIs are installed
here and logged in (``--clis`` seats them as the default panel), and creates the superuser ``admin``
if absent, with TEOREMA_ADMIN_PASSWORD or a generated password printed this once only.
"""

import os
import secrets
from pathlib import Path

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandParser

from debates.models import Panel
from debates.roster import discover
from debates.roster.toml import import_roster

DEFAULT_ROSTER = Path(__file__).resolve().parents[2] / "default_roster.toml"
ADMIN = "admin"


class Command(BaseCommand):
    help = "Import the default roster and create the admin account, where missing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument(
            "--clis", action="store_true", help="Make the logged-in coding-agent CLIs found here the default panel."
        )

    def handle(self, *args, **options) -> None:
        if not Panel.objects.exists():
            report = import_roster(DEFAULT_ROSTER.read_text())
            self.stdout.write(f"Imported the default roster: {report.summary()}.")
        self.offer_clis(adopt=options.get("clis", False))
        users = get_user_model().objects
        if users.filter(username=ADMIN).exists():
            return
        given = os.environ.get("TEOREMA_ADMIN_PASSWORD", "")
        password = given or secrets.token_urlsafe(12)
        users.create_superuser(ADMIN, email="", password=password)
        if given:
            self.stdout.write(f'Created the admin account "{ADMIN}" with TEOREMA_ADMIN_PASSWORD.')
        else:
            self.stdout.write(
                self.style.WARNING(
                    f'Created the admin account "{ADMIN}" with password {password}\n'
                    "It is shown this once: note it now (change it at /admin/password_change/)."
                )
            )

    def offer_clis(self, adopt: bool) -> None:
        """Say which CLIs are installed here and whether each is logged in; make them a panel when asked."""
        found = discover.installed_clis()
        if not found:
            return
        for each in found:
            self.stdout.write(f"{each.login.said}.")
        if not adopt:
            if any(each.usable for each in found):
                self.stdout.write("Seat them as a panel: manage.py bootstrap --clis (or the button on the ask page).")
            return
        try:
            panel = discover.adopt_clis(found)
        except ValueError:
            self.stdout.write(self.style.WARNING("No CLI found here is logged in: no panel was made."))
        else:
            self.stdout.write(f"The panel “{panel.name}” is the default now.")
