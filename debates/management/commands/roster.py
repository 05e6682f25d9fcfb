"""`manage.py roster import FILE` / `roster export [FILE]`: the roster as a TOML file."""

import sys
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.urls import reverse

from debates.roster.readiness import missing_key, providers_needing_keys
from debates.roster.toml import RosterError, Unconfirmed, export_roster, import_roster, read_file

SHOWN_ERRORS = 50  # a broken file can have thousands: the first ones show what is wrong


class Command(BaseCommand):
    help = "Import or export providers, panelists and panels as TOML (docs/roster.md)."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        importing = actions.add_parser("import", help="Upsert the roster in FILE; all or nothing.")
        importing.add_argument("file", type=Path)
        importing.add_argument(
            "--yes",
            action="store_true",
            help="accept changes that are otherwise asked first (another default panel, a stored key set aside)",
        )
        exporting = actions.add_parser("export", help="Write the roster to FILE (default: stdout).")
        exporting.add_argument("file", type=Path, nargs="?")

    def handle(self, *args, action: str, file: Path | None, yes: bool = False, **options) -> None:
        if action == "export":
            text = export_roster()
            if file is None:
                self.stdout.write(text, ending="")
            else:
                file.write_text(text)
                self.stdout.write(f"Wrote the roster to {file}.")
            return
        assert file is not None, "argparse requires FILE for import"
        try:
            text = read_file(file)
            try:
                report = import_roster(text, confirmed=yes)
            except Unconfirmed as asked:
                if not self.agreed(asked.notices):
                    raise CommandError(
                        f"{file}: not imported, nothing changed. It would:\n"
                        + "\n".join(f"  {notice}" for notice in asked.notices)
                        + "\nRun it again with --yes to import it anyway."
                    ) from None
                report = import_roster(text, confirmed=True)
        except OSError as exc:
            raise CommandError(f"Cannot read {file}: {exc.strerror}.") from exc
        except RosterError as exc:
            shown = [f"  {error}" for error in exc.errors[:SHOWN_ERRORS]]
            if len(exc.errors) > SHOWN_ERRORS:
                shown.append(f"  … and {len(exc.errors) - SHOWN_ERRORS} more errors")
            errors = "\n".join(shown)
            raise CommandError(f"{file}: not imported, nothing changed.\n{errors}") from exc
        for change in report.changes:
            self.stdout.write(f"  {change}")
        for notice in report.notices:
            self.stdout.write(self.style.WARNING(f"  changed: {notice}"))
        for warning in report.warnings:
            self.stdout.write(self.style.WARNING(f"  warning: {warning}"))
        self.stdout.write(self.style.SUCCESS(f"Imported {file}: {report.summary()}."))
        if needing := providers_needing_keys():
            self.stdout.write("Still needing a key (set it in the admin, at the path after each):")
            for provider in needing:
                admin = reverse("admin:debates_provider_change", args=[provider.pk])
                self.stdout.write(f"  {provider.name}: {missing_key(provider)} · {admin}")

    def agreed(self, notices: list[str]) -> bool:
        """On a terminal, ask; anywhere else (a script, CI) the answer is no until --yes says so."""
        if not sys.stdin.isatty():
            return False
        self.stdout.write("This import would:")
        for notice in notices:
            self.stdout.write(self.style.WARNING(f"  {notice}"))
        return input("Import it anyway? [y/N] ").strip().casefold() in ("y", "yes")
