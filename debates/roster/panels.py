"""The panels as they are now, each with its judges and seats (their panelists and providers): what
every question reads twice before its first call (the ask form, the run's start), read here once
per change to the roster and kept in this process (debates.lib.stamped)."""

from debates.lib.stamped import ROSTER, Stamped
from debates.models import Panel


def _read(key: tuple[str, object]) -> Panel | None:
    field, value = key
    found = list(Panel.objects.with_roster().filter(**{field: value}).order_by()[:1])  # one at most: unsorted
    return found[0] if found else None


_PANELS: Stamped[tuple[str, object], Panel] = Stamped(ROSTER, _read)


def by_pk(pk: int) -> Panel | None:
    return _PANELS.get(("pk", pk))


def by_slug(slug: str) -> Panel | None:
    """Any panel, one made for picked voices included (a script may name one again)."""
    return _PANELS.get(("slug", slug))


def default() -> Panel | None:
    """The panel a question gets when the asker names none."""
    return _PANELS.get(("is_default", True))
