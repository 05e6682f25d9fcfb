"""OpenTelemetry traces, exported over OTLP/HTTP where an endpoint is configured; off otherwise.

The exporter reads the standard variables itself (``OTEL_EXPORTER_OTLP_ENDPOINT`` or
``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, ``OTEL_EXPORTER_OTLP_HEADERS``, ``OTEL_SERVICE_NAME``…), so
an operator sets Teorema up as any other service. Without an endpoint the SDK is never imported and
the spans of debates.engine.traced are the API's no-ops.
"""

from debates.engine import traced


def configure(endpoint: str, content: bool) -> None:
    """Send this process's spans to ``endpoint`` (set by the environment), in batches off the loop."""
    if not endpoint:
        return
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: "teorema"}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))  # flushed at exit
    trace.set_tracer_provider(provider)
    traced.CONTENT = content
