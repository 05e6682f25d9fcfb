"""The reply as JSON, for a client that asks with ``response_format`` (LangChain's
``with_structured_output``, an SDK's ``parse``): ``json_object`` gets the panel's verdict as the
question in short (``represent.summary``, MCP's answer, in its names); ``json_schema`` gets the
verdict in the client's own schema, which the run's moderator writes last and the run checks
(``engine/shaping.py``). A format the verdict cannot take is refused before any debate runs.
"""

import json
from dataclasses import dataclass
from typing import Any

from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from debates.models import Question
from debates.refusal import Kind, Refused

TYPES = ("text", "json_object", "json_schema")


class Unfit(Exception):
    """The run gave no verdict in the client's schema: why, in words."""


@dataclass(frozen=True)
class Shape:
    """The JSON a client asked for: ``schema`` None is the verdict object."""

    schema: dict[str, Any] | None = None

    def content(self, question: Question, found: dict[str, Any], why: str) -> str:
        """The content: the verdict object (``found``), or the question's verdict in the schema; ``why``:
        what the moderator's call said when it wrote none."""
        if self.schema is None:
            return json.dumps(found, ensure_ascii=False)
        if question.shaped is None:
            raise Unfit(f"The moderator wrote no verdict in the schema asked for ({why or 'no verdict to write'})")
        return json.dumps(question.shaped, ensure_ascii=False)


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
    if schema.get("type") != "object":
        raise refused("'response_format': the schema's root must be an object (\"type\": \"object\"), as OpenAI's.")
    return Shape(schema)
