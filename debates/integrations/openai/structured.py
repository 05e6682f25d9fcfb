"""The reply as JSON, for a client that asks with ``response_format`` (LangChain's
``with_structured_output``, an SDK's ``parse``): the panel's verdict as the question in short
(``represent.summary``, MCP's answer, in its names), whole for ``json_object``, and in the client's
schema for ``json_schema``.

A schema is taken when it asks for an object whose properties are the verdict's own fields (the
panel writes no other); what the run gives is checked against it before it is sent, and a value
that does not fit is said, never sent as if it did. Anything else is refused before a debate runs.
"""

from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from debates.refusal import Kind, Refused

# represent.summary's fields: what a schema may ask for (tests check they are the summary's own).
FIELDS = (
    "id",
    "url",
    "text",
    "panel",
    "status",
    "phase",
    "verdict",
    "confidence",
    "support",
    "evidence_strength",
    "agreement",
    "dissent",
    "synthesis",
    "sources",
    "searched",
    "error",
    "identities",
    "calls",
    "tokens_in",
    "tokens_out",
    "cost",
    "follow_up_of",
)
TYPES = ("text", "json_object", "json_schema")


class Unfit(Exception):
    """The run's verdict does not fit the client's schema: why, in words."""


@dataclass(frozen=True)
class Shape:
    """The JSON a client asked for: ``schema`` None is the whole verdict object."""

    schema: dict[str, Any] | None = None

    def value(self, found: dict[str, Any]) -> dict[str, Any]:
        """The verdict (``represent.summary``) in this shape, checked against the schema."""
        if self.schema is None:
            return found
        value = {name: found[name] for name in self.schema["properties"]}
        wrong = sorted(Draft202012Validator(self.schema).iter_errors(value), key=lambda e: list(e.absolute_path))
        if wrong:
            said = "; ".join(f"{'.'.join(map(str, e.absolute_path)) or 'the verdict'}: {e.message}" for e in wrong)
            raise Unfit(f"The panel's verdict does not fit the schema asked for ({said})")
        return value


def refused(message: str) -> Refused:
    return Refused(message, Kind.INVALID, {"response_format": [message]})


def shape_of(given: dict[str, Any] | None) -> Shape | None:
    """The shape ``response_format`` asks for (None: prose), or its refusal in words."""
    kind = (given or {}).get("type", "text")
    if kind == "text":
        return None
    if kind == "json_object":
        return Shape()
    if kind != "json_schema":
        raise refused(f"'response_format': the type {kind!r} is none of {', '.join(TYPES)}.")
    spec = (given or {}).get("json_schema")
    schema = spec.get("schema") if isinstance(spec, dict) else None
    if not isinstance(schema, dict):
        raise refused('\'response_format\': a json_schema needs its schema, {"json_schema": {"schema": {…}}}.')
    try:
        Draft202012Validator.check_schema(schema)
    except SchemaError as error:
        raise refused(f"'response_format': the schema is no JSON Schema: {error.message}.") from None
    properties = schema.get("properties")
    if schema.get("type") != "object" or not isinstance(properties, dict) or not properties:
        raise refused(
            "'response_format': the panel's verdict is an object; a schema asks for some of its fields as the "
            f"object's properties: {', '.join(FIELDS)}."
        )
    if unknown := [name for name in properties if name not in FIELDS]:
        raise refused(
            f"'response_format': the panel's verdict has no field {', '.join(map(repr, unknown))}; a schema may "
            f"ask for {', '.join(FIELDS)} (docs/api.md)."
        )
    return Shape(schema)
