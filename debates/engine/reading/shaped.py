"""The verdict in the asker's schema, read from the moderator's reply: its JSON value (read as
leniently as every reader reads JSON, ``jsonish``), checked against the schema. What does not fit
is said, never mended: a value the schema refuses is no verdict in that schema."""

from typing import Any

from jsonschema import Draft202012Validator

from debates.engine.reading import jsonish


def read(text: str, schema: dict[str, Any]) -> tuple[Any, str]:
    """(the value, "") when ``text`` holds one JSON value that fits ``schema``; else (None, why)."""
    value = jsonish.whole(text)
    if value is None:
        found = jsonish.values(text, "{[")
        value = found[-1] if found else None
    if value is None:
        return None, "it wrote no JSON value"
    wrong = sorted(Draft202012Validator(schema).iter_errors(value), key=lambda error: list(error.absolute_path))
    if wrong:
        return None, "; ".join(f"{'.'.join(map(str, e.absolute_path)) or 'the value'}: {e.message}" for e in wrong[:5])
    return value, ""
