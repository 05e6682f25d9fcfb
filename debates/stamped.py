"""Copies, kept in this process, of rows that rarely change and every question reads (the panels with
their seats and judges, the API tokens), that never outlive a change to them.

The database notes each change itself: triggers on the tables behind a group (migration 0018) write a
fresh random number into its ``Stamp`` row on every insert, update, delete or truncate, whoever makes it (the
admin, a roster import's bulk writes, another process, raw SQL), so no change can go unseen the way
one without a Django signal would. A reader compares that stamp, one row read without the ORM (a few
microseconds, where a query with joins costs about a millisecond to compile), with the one its copies
were made under and reads the rows again on a difference. A rolled-back change rolls its stamp back
with it. Without a stamp (a database just flushed, or one without the triggers) nothing is kept.
"""

import copy
from collections.abc import Callable, Hashable

from django.db import connection
from django.db.models import Model

ROSTER = "roster"  # providers, panelists, panels and their seats
TOKENS = "tokens"  # API tokens and their users


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
