"""Why the database could store nothing, in words, on the ground floor: the pages' 503 (``errors``),
a run that could not record its step (``runs.execute``) and a socket that could not (``live.consumers``) all
say it the same way."""

from django.db import OperationalError


def unstored(exception: BaseException | None) -> str:
    """Why the database could store nothing, in words ("" for any other error): a full disk
    (SQLite's SQLITE_FULL, PostgreSQL's disk_full), else a database that is not answering."""
    if not isinstance(exception, OperationalError):
        return ""
    cause = exception.__cause__
    if "disk is full" in str(exception) or getattr(cause, "sqlstate", "") == "53100":
        return "The server's disk is full"
    return "The database is not answering"
