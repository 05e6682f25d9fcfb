"""A debate worker's reports on the CLI providers it can run (server setup, docs/server.md).

A CLI voice runs on the worker that claimed its debate, with that machine's program and login; the
web process that checks a panel before a question is asked may have neither, or others. So each
worker says, every ``REPORT_EVERY`` seconds, what it finds of each enabled CLI provider (read without
a call), and readiness believes the workers that reported lately.
"""

from django.utils import timezone

from debates.models import CliReport, Provider
from debates.providers.presets import Wire
from debates.roster.readiness import REPORTS_KEPT, cli_here


def report(worker: str) -> None:
    """Write this worker's reading of every enabled CLI provider; forget the reports of workers gone."""
    now = timezone.now()
    for provider in Provider.objects.filter(wire=Wire.CLI, enabled=True):
        CliReport.objects.update_or_create(
            worker=worker, provider=provider, defaults={"problem": cli_here(provider), "seen_at": now}
        )
    CliReport.objects.filter(seen_at__lt=now - REPORTS_KEPT).delete()


def withdraw(worker: str) -> None:
    """A stopping worker's reports, gone at once: its CLIs no longer count for readiness."""
    CliReport.objects.filter(worker=worker).delete()
