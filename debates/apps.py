import os
from pathlib import Path

from django.apps import AppConfig
from django.conf import settings
from django.core.signals import request_finished
from django.db import connections
from django.db.backends.signals import connection_created
from django.db.models.signals import post_migrate


class DebatesConfig(AppConfig):
    name = "debates"
    verbose_name = "Debates"

    def ready(self) -> None:
        # The provider layer knows nothing of Django: it is handed its retry policy and threads here.
        from debates.providers import retry, threads
        from debates.providers.cli import sandbox

        limits = settings.TEOREMA
        retry.POLICY = retry.RetryPolicy(
            base_seconds=limits["RETRY_BASE_SECONDS"],
            max_seconds=limits["RETRY_MAX_SECONDS"],
            retry_after_cap=limits["RETRY_AFTER_CAP_SECONDS"],
        )
        threads.configure(limits["LOCAL_THREADS"])
        from teorema import telemetry

        telemetry.configure(settings.OTEL_ENDPOINT, settings.OTEL_CONTENT)
        sandbox.SETTINGS = sandbox.Settings(
            scratch=Path(limits["CLI_SCRATCH"]), path=tuple(limits["CLI_PATH"]), output_bytes=limits["CLI_OUTPUT_BYTES"]
        )
        connection_created.connect(owner_only, dispatch_uid="teorema-sqlite-owner-only")
        request_finished.connect(close_request_connections, dispatch_uid="teorema-close-request-connections")
        from django.tasks.signals import task_enqueued
        from django_tasks_db.backend import DatabaseBackend

        from debates.runs import wake

        task_enqueued.connect(wake.wake_workers, sender=DatabaseBackend, dispatch_uid="teorema-wake-workers")
        from debates.lib import stamped

        post_migrate.connect(stamped.keep_triggers, sender=self, dispatch_uid="teorema-keep-stamp-triggers")
        from debates.signin import checks  # noqa: F401 (registers the SSO group's check)


def close_request_connections(**kwargs: object) -> None:
    """Close the database connections of the request that ends (give them back to the pool, on PostgreSQL).

    Under ASGI each request runs on a thread of its own that ends with it, so the connection it
    opened is never used again, yet CONN_MAX_AGE kept it open until a garbage collection freed
    it: 50 questions posted at once left 51 PostgreSQL connections open, and a server out of
    them answered 503. A connection inside a transaction (a test's) is left alone."""
    for connection in connections.all(initialized_only=True):
        if not connection.in_atomic_block:
            connection.close()


def owner_only(sender: object, connection: object, **kwargs: object) -> None:
    """A SQLite database holds questions and encrypted keys: its files are readable by their owner
    only (0600), however the umask created them; the WAL files SQLite adds beside it too."""
    if getattr(connection, "vendor", "") != "sqlite":
        return
    name = str(connection.settings_dict["NAME"])  # type: ignore[attr-defined]
    if name == ":memory:" or name.startswith("file:") or not Path(name).exists():
        return
    for path in (Path(name), Path(f"{name}-wal"), Path(f"{name}-shm")):
        if path.exists() and path.stat().st_mode & 0o077:
            os.chmod(path, 0o600)
