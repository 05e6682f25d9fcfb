"""The docs' examples for /v1, run as printed against a real server: the curl lines, the ``llm``
set-up (its YAML, a follow-up, an image), the Python of the ``openai`` package, LiteLLM and
LangChain, and the JSON snippets. Only the server's address and the token are the test's own."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import openai
import pytest

from tests.fakes import files
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.conftest import Teorema

ROOT = Path(__file__).resolve().parents[2]
FENCED = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
SECTIONS = {  # page -> where its /v1 part starts and ends
    "integrations.md": ("## OpenAI-compatible endpoint", None),
    "api.md": ("## `GET /v1/models`", "## MCP"),
}
ADDRESS = "http://127.0.0.1:8000"


def examples(language: str) -> list[str]:
    found = []
    for page, (start, end) in SECTIONS.items():
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        part = text[text.index(start) : text.index(end) if end else None]
        found += [code for kind, code in FENCED.findall(part) if kind == language]
    assert found, f"the /v1 docs have no {language} example"
    return found


def run(teorema: Teorema, tmp_path: Path, command: list[str], code: str) -> subprocess.CompletedProcess:
    env = teorema.env | {
        "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}",
        "LLM_USER_PATH": str(tmp_path),
        "TEOREMA_TOKEN": teorema.tokens["alice"],
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",  # LiteLLM's own switches: it never phones home
        "LITELLM_OFFLINE_MODE": "true",
    }
    printed = code.replace(ADDRESS, teorema.url).replace("tk_…", teorema.tokens["alice"])
    return subprocess.run(
        [*command, printed],
        cwd=tmp_path,
        env=env,
        input=teorema.tokens["alice"] + "\n",  # `llm keys set` asks for the token
        capture_output=True,
        text=True,
        timeout=300,
    )


@pytest.fixture
def moderating(scripted):
    """The moderator writes its synthesis, and asked in a schema, the docs' verdict in it."""
    verdict = {"verdict": "Use read replicas.", "confidence": 0.8}

    def answer(request) -> str:
        return json.dumps({k: verdict[k] for k in request.schema["properties"]}) if request.schema else SYNTHESIS

    scripted.script("model-moderator", Script(answer=answer))
    return scripted


def last_id(teorema: Teorema) -> int:
    return teorema.query("SELECT coalesce(max(id), 0) FROM debates_question")[0][0]


def asked_since(teorema: Teorema, before: int) -> list[tuple]:
    return teorema.query("SELECT id, parent_id, status FROM debates_question WHERE id > ? ORDER BY id", before)


@pytest.mark.parametrize("number", range(len(examples("sh"))))
def test_each_shell_example_runs_as_printed(teorema, scripted, tmp_path, number):
    (tmp_path / "chart.png").write_bytes(files.image(40, 30))
    before = last_id(teorema)
    done = run(teorema, tmp_path, ["bash", "-euo", "pipefail", "-c"], examples("sh")[number])
    assert done.returncode == 0, done.stderr
    asked = asked_since(teorema, before)
    assert asked
    assert all(status == "done" for *_, status in asked), asked
    if "llm -c" in examples("sh")[number]:  # the llm set-up: a question, its follow-up, one with an image
        first, follow_up, with_image = asked
        assert follow_up[1] == first[0]
        assert done.stdout.count(SYNTHESIS.strip()[-20:]) == 3
        assert "**Panelist A** · blind answers" in done.stdout  # the debate, before each answer
        image = teorema.query("SELECT kind FROM debates_attachment WHERE question_id = ?", with_image[0])
        assert image == [("image",)]
    else:
        assert json.loads(done.stdout)["choices"][0]["message"]["content"].startswith(SYNTHESIS.strip()[:30])


@pytest.mark.parametrize("number", range(len(examples("python"))))
def test_each_python_example_runs_as_printed(teorema, moderating, tmp_path, number):
    before = last_id(teorema)
    done = run(teorema, tmp_path, [sys.executable, "-c"], examples("python")[number])
    assert done.returncode == 0, done.stderr
    assert [status for *_, status in asked_since(teorema, before)] == ["done"]
    assert "Use read replicas" in done.stdout


def test_each_json_snippet_is_what_the_endpoint_takes(teorema, moderating):
    client = openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"])
    for snippet in examples("json"):
        shape = json.loads(snippet)
        reply = client.chat.completions.create(
            model="teorema", messages=[{"role": "user", "content": "Shard or replicate?"}], response_format=shape
        )
        verdict = json.loads(reply.choices[0].message.content)
        assert set(verdict) == set(shape["json_schema"]["schema"]["properties"])
