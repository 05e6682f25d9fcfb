"""Copies, kept in this process, of rows that rarely change and every question reads (the panels with
their seats and judges, the API tokens), that never outlive a change to them.

The database notes each change itself: triggers on the tables behind a group (``install_triggers``) write
a fresh random number into its ``Stamp`` row on every insert, update, delete or truncate, whoever makes it
(the admin, a roster import's bulk writes, another process, raw SQL), so no change can go unseen the way
one without a Django signal would. They are checked after every ``migrate``: SQLite rebuilds a table to
alter one of its columns and drops its triggers with it (migration 0021 did, to the providers'), which
left a disabled provider shown as enabled until the process restarted. A reader compares that stamp,
one row read without the ORM (a few microseconds, where a query with joins costs about a millisecond
to compile), with the one its copies were made under and reads the rows again on a difference.
A rolled-back change rolls its stamp back with it. Without a stamp (a database just flushed, or one
without the triggers) nothing is kept.
"""

import copy
from collections.abc import Callable, Hashable, Iterator

from django.apps import AppConfig
from django.db import connection, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.models import Model

ROSTER = "roster"  # providers, panelists, panels and their seats
TOKENS = "tokens"  # API tokens and their users

# The tables behind each group: any change to one of them writes a fresh stamp for its group.
USER = "USER"  # the user model's table, named by the caller (a migration knows its own user model)
GROUPS = {
    ROSTER: ("debates_provider", "debates_panelist", "debates_panel", "debates_membership"),
    TOKENS: ("debates_apitoken", USER),
}
SQLITE_EVENTS = ("insert", "update", "delete")  # SQLite has triggers for each row only

# PostgreSQL: one function, a trigger per table (once per statement; TRUNCATE too, as a flush does).
POSTGRES_FUNCTION = """
CREATE OR REPLACE FUNCTION teorema_stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO debates_stamp (name, value) VALUES (TG_ARGV[0], floor(random() * 9.0e18)::bigint)
    ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
    RETURN NULL;
END $$
"""


def _triggers(vendor: str, user_table: str) -> Iterator[tuple[str, str, str]]:
    """(table, trigger name, statement creating it) for each trigger a database of this kind needs."""
    for group, names in GROUPS.items():
        for name in names:
            table = user_table if name == USER else name
            if vendor == "postgresql":
                yield (
                    table,
                    "teorema_stamp",
                    f"CREATE TRIGGER teorema_stamp AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON {table} "
                    f"FOR EACH STATEMENT EXECUTE FUNCTION teorema_stamp('{group}')",
                )
            elif vendor == "sqlite":
                for event in SQLITE_EVENTS:
                    trigger = f"teorema_stamp_{table}_{event}"
                    yield (
                        table,
                        trigger,
                        f"CREATE TRIGGER {trigger} AFTER {event.upper()} ON {table} "
                        f"BEGIN REPLACE INTO debates_stamp (name, value) VALUES ('{group}', random()); END",
                    )
            # Another database: no stamp is ever written, and nothing is kept (every read is a query).


def present_triggers(db: BaseDatabaseWrapper) -> set[tuple[str, str]]:
    """(table, trigger) for each stamp trigger the database holds now."""
    with db.cursor() as cursor:
        if db.vendor == "postgresql":
            cursor.execute(
                "SELECT c.relname, t.tgname FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid "
                "WHERE t.tgname = 'teorema_stamp' AND pg_table_is_visible(c.oid)"
            )
        elif db.vendor == "sqlite":
            cursor.execute("SELECT tbl_name, name FROM sqlite_master WHERE type = 'trigger'")
        else:
            return set()
        return {(table, name) for table, name in cursor.fetchall()}


def install_triggers(db: BaseDatabaseWrapper, user_table: str) -> int:
    """Create the stamp triggers the database lacks (none, usually), on the tables it has; the count."""
    tables = set(db.introspection.table_names())
    if "debates_stamp" not in tables:
        return 0  # migrated back before the stamps: nothing to write to
    have = present_triggers(db)
    needed = _triggers(db.vendor, user_table)
    missing = [sql for table, trigger, sql in needed if table in tables and (table, trigger) not in have]
    with db.cursor() as cursor:
        if missing and db.vendor == "postgresql":
            cursor.execute(POSTGRES_FUNCTION)
        for sql in missing:
            cursor.execute(sql)
    return len(missing)


def remove_triggers(db: BaseDatabaseWrapper, user_table: str) -> None:
    """Drop every stamp trigger (and PostgreSQL's function): the stamps' migration undone."""
    with db.cursor() as cursor:
        for table, trigger, _sql in _triggers(db.vendor, user_table):
            on = f" ON {table}" if db.vendor == "postgresql" else ""
            cursor.execute(f"DROP TRIGGER IF EXISTS {trigger}{on}")
        if db.vendor == "postgresql":
            cursor.execute("DROP FUNCTION IF EXISTS teorema_stamp()")


def keep_triggers(sender: AppConfig, using: str, **kwargs: object) -> None:
    """After each ``migrate`` (post_migrate): put back any trigger a table's rebuild took with it."""
    from django.contrib.auth import get_user_model

    install_triggers(connections[using], get_user_model()._meta.db_table)


def stamp(group: str) -> int | None:
    """The group's last change, as the database has it now (None: no stamp to trust)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT value FROM debates_stamp WHERE name = %s", [group])
        row = cursor.fetchone()
    return None if row is None else row[0]


class Stamped[K: Hashable, M: Model]:
    """Rows of one group read once per change: ``read(key)`` reads one from the database (None: there
    is none, and nothing is kept). Each caller gets its own copy of a kept row: what it sets on it is
    not the next caller's."""

    def __init__(self, group: str, read: Callable[[K], M | None]) -> None:
        self.group = group
        self.read = read
        self.held: tuple[int | None, dict[K, M]] = (None, {})

    def get(self, key: K) -> M | None:
        current = stamp(self.group)
        if current is None:
            return self.read(key)
        # The stamp and its copies change together, as one tuple: a row read under an older stamp by
        # another thread meanwhile lands in a dictionary nobody reads any more.
        held_at, kept = self.held
        if held_at != current:
            kept = {}
            self.held = (current, kept)
        found = kept.get(key)
        if found is None:
            found = self.read(key)  # read after the stamp: never older than what it is kept under
            if found is None:
                return None
            kept[key] = found
        return copy.copy(found)
