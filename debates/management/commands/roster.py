"""`manage.py roster import FILE` / `roster export [FILE]`: the roster as a TOML file."""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from debates.roster import RosterError, export_roster, import_roster, read_file

SHOWN_ERRORS = 50  # a broken file can have thousands: the first ones show what is wrong


class Command(BaseCommand):
    help = "Import or export providers, panelists and panels as TOML (README, 'Roster as code')."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True)
        importing = actions.add_parser("import", help="Upsert the roster in FILE; all or nothing.")
        importing.add_argument("file", type=Path)
        exporting = actions.add_parser("export", help="Write the roster to FILE (default: stdout).")
        exporting.add_argument("file", type=Path, nargs="?")

    def handle(self, *args, action: str, file: Path | None, **options) -> None:
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
            report = import_roster(read_file(file))
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
        for warning in report.warnings:
            self.stdout.write(self.style.WARNING(f"  warning: {warning}"))
        self.stdout.write(self.style.SUCCESS(f"Imported {file}: {report.summary()}."))
