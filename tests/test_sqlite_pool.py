"""A request thread's SQLite connection is kept for the next thread (teorema/sqlite), unless it is
unhealthy (an error on it, a transaction open) or its database file is not the one there now."""

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.db import connections

from teorema.sqlite.base import IDLE_AT_MOST, DatabaseWrapper


@pytest.fixture
def database(tmp_path: Path, django_db_blocker) -> Iterator[dict]:
    """Settings for a database file of this test's own (not the test database)."""
    with django_db_blocker.unblock():
        yield dict(connections.settings["default"], NAME=str(tmp_path / "pool.sqlite3"))


def opened_in_a_thread(settings: dict, then=None):
    """The raw connection a new thread's wrapper gets; ``then(wrapper)`` before the thread closes it."""
    got = {}

    def request() -> None:
        wrapper = DatabaseWrapper(settings, alias="pool-test")
        wrapper.ensure_connection()
        wrapper.cursor().execute("SELECT 1")
        got["raw"] = wrapper.connection
        if then is not None:
            then(wrapper)
        wrapper.close()

    thread = threading.Thread(target=request)
    thread.start()
    thread.join()
    return got["raw"]


def test_the_next_thread_gets_the_connection_the_last_one_closed(database):
    first = opened_in_a_thread(database)
    assert opened_in_a_thread(database) is first
    first.execute("SELECT 1")  # open, and usable from another thread


def test_a_kept_connection_is_in_autocommit_with_the_pragmas_of_a_new_one(database):
    opened_in_a_thread(database)

    def check(wrapper: DatabaseWrapper) -> None:
        assert wrapper.get_autocommit()
        assert not wrapper.connection.in_transaction
        assert wrapper.connection.execute("PRAGMA foreign_keys").fetchone() == (1,)
        assert wrapper.connection.execute("PRAGMA journal_mode").fetchone() == ("wal",)

    opened_in_a_thread(database, check)


def test_a_connection_in_a_transaction_is_not_kept(database):
    first = opened_in_a_thread(database, lambda wrapper: wrapper.connection.execute("BEGIN"))
    assert opened_in_a_thread(database) is not first


def test_a_connection_that_had_an_error_is_not_kept(database):
    def fail(wrapper: DatabaseWrapper) -> None:
        with pytest.raises(Exception, match="no such table"):
            wrapper.cursor().execute("SELECT * FROM missing")

    first = opened_in_a_thread(database, fail)
    assert opened_in_a_thread(database) is not first


def test_a_connection_to_a_file_replaced_meanwhile_is_not_used(database):
    first = opened_in_a_thread(database)
    path = Path(database["NAME"])
    for leftover in path.parent.glob(f"{path.name}*"):
        leftover.unlink()  # the database deleted, and made again by the next connection
    second = opened_in_a_thread(database)
    assert second is not first
    with pytest.raises(Exception, match="closed"):
        first.execute("SELECT 1")


def test_no_more_than_a_few_are_kept(database):
    wrappers = [DatabaseWrapper(database, alias="pool-test") for _ in range(IDLE_AT_MOST + 3)]
    for wrapper in wrappers:
        wrapper.ensure_connection()
    raws = [wrapper.connection for wrapper in wrappers]
    for wrapper in wrappers:
        wrapper.close()
    kept = DatabaseWrapper._idle[database["NAME"]]
    assert len(kept) == IDLE_AT_MOST
    with pytest.raises(Exception, match="closed"):
        raws[-1].execute("SELECT 1")
