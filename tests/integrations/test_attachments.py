"""Files through the real clients: the ``openai`` package sends an image (an image_url data URI) and a
PDF (a file part) to /v1; the ``mcp`` SDK's client sends a file to ask_panel as base64. The panel's
voices here see no images: they read the PDF's text, pages marked, and are told of the image."""

import base64

import openai
import pytest

from tests.fakes import files
from tests.integrations.clients import mcp_session
from tests.integrations.conftest import Teorema

REPORT = files.pdf(["Revenue fell 4% in Q3.", "Churn doubled in Europe."])
CHART = files.image(40, 30)


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def stored_files(teorema: Teorema) -> list[tuple[str, str, int | None]]:
    newest = teorema.query("SELECT max(id) FROM debates_question")[0][0]
    return teorema.query(
        "SELECT name, kind, pages FROM debates_attachment WHERE question_id = ? ORDER BY position", newest
    )


def test_the_openai_client_sends_an_image_and_a_pdf(teorema, scripted):
    client = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"], max_retries=0)
    content = [
        {"type": "text", "text": "Why did revenue fall?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(CHART)}"}},
        {"type": "file", "file": {"filename": "q3.pdf", "file_data": f"data:application/pdf;base64,{b64(REPORT)}"}},
    ]

    reply = client.chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": content}])

    assert reply.choices[0].message.content
    assert stored_files(teorema) == [("image-1.png", "image", None), ("q3.pdf", "pdf", 2)]
    blind = scripted.requests_for("model-alpha")[0]
    assert "[q3.pdf p. 2]\nChurn doubled in Europe." in blind.prompt
    assert "image-1.png (image, 40 × 30 pixels): attached, but your model cannot see images" in blind.prompt


def test_the_openai_client_gets_a_bad_file_refused_in_openais_shape(teorema, fake_provider):
    client = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"], max_retries=0)
    content = [
        {"type": "text", "text": "Read this"},
        {
            "type": "file",
            "file": {"filename": "r.pdf", "file_data": f"data:application/pdf;base64,{b64(files.zip_archive())}"},
        },
    ]

    with pytest.raises(openai.BadRequestError) as refused:
        client.chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": content}])

    assert "r.pdf is a ZIP archive" in str(refused.value)
    assert fake_provider.requests == []


@pytest.mark.anyio
async def test_the_mcp_client_asks_with_a_file(teorema, scripted):
    attachment = {"name": "notes.md", "media_type": "text/markdown", "data": b64(b"# Q3\nChurn doubled in Europe.")}
    async with mcp_session(teorema.url, teorema.tokens["alice"]) as session:
        result = await session.call_tool(
            "ask_panel", {"question": "Why did revenue fall?", "attachments": [attachment], "wait": True}
        )

    assert not result.is_error, result.content
    assert stored_files(teorema) == [("notes.md", "markdown", None)]
    assert "# Q3\nChurn doubled in Europe." in scripted.requests_for("model-alpha")[0].prompt


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
