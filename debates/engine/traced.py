"""Spans of a run, named and attributed as OpenTelemetry's GenAI conventions say: the question as an
``invoke_workflow`` span, each voice's call inside it as a ``chat`` span (model, tokens, finish
reason, the error's kind), the SymPy checks as an ``execute_tool`` span.

Only the API is used here: with no exporter configured (the default, teorema/telemetry.py) every
span is the API's no-op, a few hundred nanoseconds. Prompts and answers are never put on a span
unless the operator asks (``CONTENT``): a trace store is read by more people than a debate is.
"""

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, StatusCode

from debates.engine.events import ContributionResult
from debates.engine.vocabulary import Outcome
from debates.providers.base import Message, Voice

TRACER = trace.get_tracer("teorema")
CONTENT = False  # teorema/telemetry.py sets it from TEOREMA_OTEL_CONTENT
WORKFLOW = "teorema"
# gen_ai.provider.name's well-known values, by our wire; a CLI or a local model is named by its preset.
PROVIDERS = {"openai": "openai", "responses": "openai", "anthropic": "anthropic", "gemini": "gcp.gemini"}


@contextmanager
def workflow(question_id: int) -> Iterator[Span]:
    """The whole run of one question (a resumed run is a workflow span of its own)."""
    attributes = {
        "gen_ai.operation.name": "invoke_workflow",
        "gen_ai.workflow.name": WORKFLOW,
        "gen_ai.conversation.id": str(question_id),
    }
    with TRACER.start_as_current_span(f"invoke_workflow {WORKFLOW}", attributes=attributes) as span:
        yield span


@contextmanager
def chat(voice: Voice, step: str, messages: tuple[Message, ...] | list[Message]) -> Iterator[Span]:
    """One voice's call for one step, as a client span."""
    endpoint = voice.endpoint
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "chat",
        "gen_ai.provider.name": PROVIDERS.get(endpoint.wire, endpoint.cli or endpoint.wire),
        "gen_ai.request.model": voice.model,
        "gen_ai.request.temperature": voice.temperature,
        "gen_ai.request.max_tokens": voice.max_tokens,
        "teorema.step": step,
        "teorema.voice": voice.name,
    }
    if endpoint.base_url:
        where = urlsplit(endpoint.base_url)
        attributes["server.address"] = where.hostname or ""
        if where.port:
            attributes["server.port"] = where.port
    if CONTENT:
        attributes["gen_ai.input.messages"] = json.dumps(
            [{"role": m.role, "parts": [{"type": "text", "content": m.content}]} for m in messages]
        )
    with TRACER.start_as_current_span(f"chat {voice.model}", kind=SpanKind.CLIENT, attributes=attributes) as span:
        yield span


def answered(span: Span, result: ContributionResult) -> None:
    """What the call came to: its usage and finish reason, or why it is no answer."""
    span.set_attribute("gen_ai.usage.input_tokens", result.tokens_in)
    span.set_attribute("gen_ai.usage.output_tokens", result.tokens_out)
    span.set_attribute("teorema.outcome", str(result.status))
    if result.finish_reason:
        span.set_attribute("gen_ai.response.finish_reasons", [result.finish_reason])
    if result.first_token_ms is not None:
        span.set_attribute("teorema.first_token_ms", result.first_token_ms)
    if CONTENT and result.text:
        span.set_attribute(
            "gen_ai.output.messages",
            json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": result.text}]}]),
        )
    if result.status in (Outcome.FAILED, Outcome.GATED):
        span.set_attribute("error.type", str(result.status))
        span.set_status(StatusCode.ERROR, result.error[:200])


@contextmanager
def tool(name: str) -> Iterator[Span]:
    """A tool Teorema runs itself between rounds (the SymPy checks)."""
    attributes = {"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": name, "gen_ai.tool.type": "function"}
    with TRACER.start_as_current_span(f"execute_tool {name}", attributes=attributes) as span:
        yield span
