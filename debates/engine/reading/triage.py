"""The facilitator's triage, read: is a panel worth its cost, and the brief it wrote for the panel."""

from typing import Any

from debates.engine.reading import jsonish
from debates.engine.reading.text import without_thinking


def read(text: str) -> dict[str, Any] | None:
    """The triage's JSON object (the last one, after any think block), by its fields' plain keys;
    None when there is none."""
    found = jsonish.objects(without_thinking(text))
    return {str(key).strip().casefold(): value for key, value in found[-1].items()} if found else None
