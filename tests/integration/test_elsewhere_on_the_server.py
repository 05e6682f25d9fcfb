"""The OpenAI-compatible endpoint and MCP over HTTP in the server setup: the run is on a worker,
its live text reaches the web process over Redis, and the clients read it from there."""

import re

import openai
import pytest

from tests.integration.cluster import Cluster
from tests.integration.debate import PANEL, VOICES, Deployment, Store
from tests.integrations.clients import mcp_session

pytestmark = [pytest.mark.services, pytest.mark.timeout(300)]
QUESTION = "Read replicas or sharding for our reporting load? (asked from elsewhere)"


@pytest.fixture
def web(deployment: Deployment, cluster: Cluster):
    cluster.worker("worker")
    return cluster.web("web")


def test_the_openai_stream_reads_a_workers_run_word_by_word(deployment: Deployment, web):
    client = openai.OpenAI(
        base_url=f"http://127.0.0.1:{web.port}/v1", api_key=deployment.credentials.token, max_retries=0
    )
    stream = client.chat.completions.create(
        model=f"teorema/{PANEL}", messages=[{"role": "user", "content": QUESTION}], stream=True
    )
    reasoning, content = [], []
    for chunk in stream:
        for choice in chunk.choices:
            reasoning.append((choice.delta.model_extra or {}).get("reasoning_content") or "")
            content.append(choice.delta.content or "")
    said = "".join(reasoning)
    for model in VOICES:
        assert said.count(f"{model} answer:") == 1  # each voice's blind answer, once
    assert "synthesis:" in "".join(content)
    assert sum(bool(text) for text in reasoning) > 10  # word by word, not at the end
    question = int(re.search(r"\[Teorema question (\d+)\]", "".join(content)).group(1))
    store = Store(deployment.database_url)
    try:
        stored = store.connection.execute("SELECT status, source FROM debates_question WHERE id = %s", [question])
        assert stored.fetchone() == ("done", "openai")
    finally:
        store.close()


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_mcp_over_http_reports_a_workers_run_as_progress(deployment: Deployment, web, anyio_backend):
    told: list[str] = []

    async def progress(done: float, total: float | None, message: str | None) -> None:
        told.append(message or "")

    async with mcp_session(f"http://127.0.0.1:{web.port}", deployment.credentials.token) as session:
        result = await session.call_tool(
            "ask_panel", {"question": QUESTION, "panel": PANEL}, progress_callback=progress
        )
    assert result.structured_content["status"] == "done"
    assert sum(message.endswith(")") and "answer" in message for message in told) >= len(VOICES)
