"""OpenTelemetry traces leave a worker of the server setup over OTLP/HTTP, as the SDK's exporter sends
them, to a receiver on loopback run by the test; read back with OpenTelemetry's own protobuf types:
a question is a workflow span, each voice's call a chat span inside it with the GenAI attributes,
and no prompt or answer travels unless the operator asks."""

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.integration import cluster as deploy
from tests.integration.debate import PANEL, VOICES, Deployment
from tests.integration.services import until

pytestmark = pytest.mark.services


class Receiver(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver: every span it is sent, with its resource's attributes."""

    def __init__(self) -> None:
        self.spans: list[tuple[dict, object]] = []
        self.paths: list[str] = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                received.paths.append(self.path)
                request = ExportTraceServiceRequest.FromString(body)
                for resource in request.resource_spans:
                    attributes = {a.key: a.value.string_value for a in resource.resource.attributes}
                    for scope in resource.scope_spans:
                        received.spans += [(attributes, span) for span in scope.spans]
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        super().__init__(("127.0.0.1", 0), Handler)


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()


def attributes(span) -> dict:
    found = {}
    for pair in span.attributes:
        value = pair.value
        found[pair.key] = next(
            (getattr(value, kind) for kind in ("string_value", "int_value", "double_value") if value.HasField(kind)),
            [v.string_value for v in value.array_value.values] if value.HasField("array_value") else None,
        )
    return found


def test_a_workers_run_reaches_an_otlp_receiver_as_a_workflow_of_chat_spans(
    deployment: Deployment, cluster: deploy.Cluster, receiver: Receiver
) -> None:
    endpoint = f"http://127.0.0.1:{receiver.server_address[1]}"
    tracing = {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint, "OTEL_BSP_SCHEDULE_DELAY": "200"}
    web = cluster.web("web")
    cluster.worker("worker", **tracing)
    question = deploy.ask(web, deployment.credentials, "Replicas or sharding for the reporting load? (traced)", PANEL)

    def workflow():
        wanted = str(question)
        return next(
            (
                span
                for _, span in receiver.spans
                if span.name == "invoke_workflow teorema" and attributes(span)["gen_ai.conversation.id"] == wanted
            ),
            None,
        )

    until(lambda: workflow() is not None, "the run's workflow span", patience=120)
    root = workflow()
    assert attributes(root)["teorema.status"] == "done"
    assert set(receiver.paths) == {"/v1/traces"}
    inside = [(resource, span) for resource, span in receiver.spans if span.parent_span_id == root.span_id]
    chats = [(resource, span) for resource, span in inside if attributes(span)["gen_ai.operation.name"] == "chat"]
    others = {span.name for _, span in inside} - {span.name for _, span in chats}
    assert others <= {"execute_tool sympy"}, others
    models = {attributes(span).get("gen_ai.request.model") for _, span in chats}
    assert {*VOICES, "it-moderator"} <= models
    for resource, span in chats:
        said = attributes(span)
        assert resource["service.name"] == "teorema"
        assert span.trace_id == root.trace_id
        assert span.name == f"chat {said['gen_ai.request.model']}"
        assert said["gen_ai.operation.name"] == "chat"
        assert said["gen_ai.provider.name"] == "openai"
        assert said["gen_ai.usage.output_tokens"] > 0
        assert said["gen_ai.response.finish_reasons"] == ["stop"]
        assert "gen_ai.input.messages" not in said
        assert "gen_ai.output.messages" not in said
