"""Files through the real clients: the ``openai`` package sends an image (an image_url data URI) and a
PDF (a file part) to /v1; the ``mcp`` SDK's client sends a file to ask_panel as base64. The panel's
voices here see no images: they read the PDF's text, pages marked, and are told of the image. Over
stdio the MCP client names a file by its path; over either transport it may send a data: URI."""

import base64
import json
import subprocess

import openai
import pytest

from tests.fakes import files
from tests.integrations.clients import mcp_session, mcp_stdio_session
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


def test_curl_sending_a_file_named_with_a_folder_is_refused_by_the_running_server(teorema, fake_provider, tmp_path):
    """Issue 50: over multipart, ``../x.txt`` was taken as ``x.txt`` (Django keeps a name's last part)."""
    (tmp_path / "x.txt").write_text("notes")
    before = teorema.query("SELECT count(*) FROM debates_question")
    curl = [
        "curl", "-s", "-H", f"Authorization: Bearer {teorema.tokens['alice']}", "-F", "text=What is in it?",
        "-F", "attachments=@x.txt;filename=../x.txt", f"{teorema.url}/api/questions",
    ]  # fmt: skip
    answer = json.loads(subprocess.run(curl, cwd=tmp_path, capture_output=True, check=True).stdout)
    assert answer["fields"] == {"attachments": ["“../x.txt” is a path, not a file name: send the file's name alone."]}
    assert teorema.query("SELECT count(*) FROM debates_question") == before
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


@pytest.mark.anyio
async def test_the_mcp_client_over_stdio_names_a_file_by_its_path_and_sends_one_as_a_data_uri(
    teorema, scripted, tmp_path
):
    (tmp_path / "q3.pdf").write_bytes(REPORT)
    by_path = {"path": str(tmp_path / "q3.pdf")}
    as_uri = {"name": "notes.md", "data": f"data:text/markdown;base64,{b64(b'# Q3\nChurn doubled in Europe.')}"}
    async with mcp_stdio_session(teorema.env, "alice") as session:
        result = await session.call_tool(
            "ask_panel", {"question": "Why did revenue fall?", "attachments": [by_path, as_uri], "wait": False}
        )

    assert not result.is_error, result.content
    assert stored_files(teorema) == [("q3.pdf", "pdf", 2), ("notes.md", "markdown", None)]


def newest(teorema: Teorema) -> int:
    return teorema.query("SELECT max(id) FROM debates_question")[0][0]


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("where", "words"),
    [
        ("q3.pdf", "q3.pdf: the path must be absolute"),
        ("{dir}/gone.pdf", "gone.pdf: there is no such file."),
        ("{dir}", ": it is not a file (a directory?)."),
        ("{dir}/large.txt", "large.txt is 1.5\xa0MB; a file may be at most 1.0\xa0MB."),
        ("{dir}/archive.pdf", "archive.pdf is a ZIP archive"),
    ],
)
async def test_a_file_by_path_that_cannot_be_taken_is_refused_in_words_and_asks_nothing(
    teorema, fake_provider, tmp_path, where, words
):
    (tmp_path / "large.txt").write_bytes(b"x" * (3 * 2**19))  # over the 1 MiB the tests' server allows
    (tmp_path / "archive.pdf").write_bytes(files.zip_archive())  # the uploads' own checks
    before = newest(teorema)
    async with mcp_stdio_session(teorema.env, "alice") as session:
        refused = await session.call_tool(
            "ask_panel", {"question": "Read this", "attachments": [{"path": where.format(dir=tmp_path)}]}
        )

    assert refused.is_error
    assert words in refused.content[0].text
    assert newest(teorema) == before
    assert fake_provider.requests == []


@pytest.mark.anyio
async def test_over_http_a_file_by_path_is_refused_since_the_servers_disk_is_not_the_callers(teorema, fake_provider):
    before = newest(teorema)
    async with mcp_session(teorema.url, teorema.tokens["alice"]) as session:
        refused = await session.call_tool(
            "ask_panel", {"question": "Read this", "attachments": [{"path": "/etc/hostname"}]}
        )

    assert refused.is_error
    assert (
        "/etc/hostname: a file by path is read only over stdio (this server's disk is not yours); "
        'send its bytes as "data" (base64, or a data: URI).'
    ) in refused.content[0].text
    assert newest(teorema) == before


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
