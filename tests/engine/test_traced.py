"""A run's spans, as OpenTelemetry's GenAI conventions name them: a chat span per voice's call with
its model, tokens and finish reason, an execute_tool span for the SymPy checks; no prompt or answer
on a span unless the operator asks. Recorded by the SDK's own in-memory exporter around a real run
on the fake provider server."""

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from debates.engine import traced
from debates.engine.run import run
from tests.engine import test_checks
from tests.engine.test_checks import MODELS, RIGHT
from tests.fakes.provider_server import Script

grounder = test_checks.grounder  # the fixtures of a run with checks, shared
panel = test_checks.panel


@pytest.fixture
def spans(monkeypatch) -> InMemorySpanExporter:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    monkeypatch.setattr(traced, "TRACER", provider.get_tracer("teorema"))
    return exporter


async def test_each_call_is_a_chat_span_and_the_checks_a_tool_span_inside_the_workflow(spans, panel, sink, grounder):
    with traced.workflow(41):
        finished = await run(panel([RIGHT, RIGHT, RIGHT]), sink, grounder=grounder)
    assert finished.status == "done"
    ended = spans.get_finished_spans()
    (workflow,) = [s for s in ended if s.name == "invoke_workflow teorema"]
    assert workflow.attributes["gen_ai.operation.name"] == "invoke_workflow"
    assert workflow.attributes["gen_ai.conversation.id"] == "41"
    chats = [s for s in ended if s.attributes.get("gen_ai.operation.name") == "chat"]
    assert {s.attributes["gen_ai.request.model"] for s in chats} >= {*MODELS, "model-moderator"}
    for span in chats:
        assert span.name == f"chat {span.attributes['gen_ai.request.model']}"
        assert span.kind == SpanKind.CLIENT
        assert span.parent is not None
        assert span.parent.span_id == workflow.context.span_id
        assert span.attributes["gen_ai.provider.name"] == "openai"
        assert span.attributes["server.address"] == "127.0.0.1"
        assert span.attributes["gen_ai.usage.output_tokens"] > 0
        assert span.attributes["gen_ai.response.finish_reasons"] == ("stop",)
        assert 0 <= span.attributes["teorema.first_token_ms"] <= span.end_time // 10**6 - span.start_time // 10**6
        assert "gen_ai.input.messages" not in span.attributes
        assert "gen_ai.output.messages" not in span.attributes
    tools = [s for s in ended if s.name == "execute_tool sympy"]
    assert tools
    assert tools[0].attributes["gen_ai.tool.name"] == "sympy"


async def test_prompts_and_answers_are_on_the_spans_only_when_asked(spans, panel, sink, grounder, monkeypatch):
    monkeypatch.setattr(traced, "CONTENT", True)
    await run(panel([RIGHT, RIGHT, RIGHT]), sink, grounder=grounder)
    chat = next(s for s in spans.get_finished_spans() if s.attributes.get("gen_ai.request.model") == MODELS[0])
    assert "How much memory do the pages need?" in chat.attributes["gen_ai.input.messages"]
    assert '"role": "assistant"' in chat.attributes["gen_ai.output.messages"]


async def test_a_failed_call_is_an_error_span_saying_why(spans, panel, sink, grounder, fake_provider):
    built = panel([RIGHT, RIGHT, RIGHT], failure_policy="degrade")
    fake_provider.script(MODELS[1], Script(status=401, error="invalid api key"))
    await run(built, sink, grounder=grounder)
    failed = [s for s in spans.get_finished_spans() if s.attributes.get("gen_ai.request.model") == MODELS[1]]
    assert failed
    assert failed[0].status.status_code == StatusCode.ERROR
    assert failed[0].attributes["error.type"] == "failed"
