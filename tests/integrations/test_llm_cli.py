"""The ``llm`` command line with an OpenAI-compatible model pointed at Teorema: the documented lines, run."""

import subprocess
import sys

import pytest

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.conftest import Teorema

QUESTION = "Read replicas or sharding for our reporting load?"


MODELS = """
- model_id: teorema
  model_name: teorema/house
  api_base: {url}/v1
  api_key_name: teorema
- model_id: teorema-think
  model_name: teorema/house
  api_base: {url}/v1
  api_key_name: teorema
  headers:
    X-Teorema-Reasoning: think
"""


@pytest.fixture
def llm(teorema: Teorema, tmp_path):
    """``llm`` with its own config dir: Teorema's default panel as the model ``teorema`` (and as
    ``teorema-think``, the debate in the content), its token as the key: the documented lines."""
    (tmp_path / "extra-openai-models.yaml").write_text(MODELS.format(url=teorema.url))
    env = teorema.env | {"LLM_USER_PATH": str(tmp_path)}

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "llm", *args], env=env, capture_output=True, text=True, timeout=120
        )

    assert run("keys", "set", "teorema", "--value", teorema.tokens["alice"]).returncode == 0
    return run


@pytest.mark.parametrize("streamed", [True, False])
def test_llm_asks_the_panel_and_prints_its_synthesis_with_the_link(teorema, scripted, llm, streamed):
    answer = llm("-m", "teorema", QUESTION, *([] if streamed else ["--no-stream"]))
    assert answer.returncode == 0, answer.stderr
    assert SYNTHESIS.strip() in answer.stdout
    question = teorema.query("SELECT max(id) FROM debates_question")[0][0]
    assert f"[Teorema question {question}]({teorema.url}/q/{question}/)" in answer.stdout
    assert teorema.query("SELECT source, status FROM debates_question WHERE id = ?", question) == [("openai", "done")]


def test_llm_shows_the_debate_as_it_goes_when_the_header_asks_for_think_tags(teorema, scripted, llm):
    answer = llm("-m", "teorema-think", QUESTION)
    assert answer.returncode == 0, answer.stderr
    thought, _, after = answer.stdout.partition("</think>")
    assert thought.startswith("<think>")
    assert "**Panelist A** · blind answers" in thought
    assert SYNTHESIS.strip() in after


def test_llm_continues_the_conversation_as_a_follow_up(teorema, scripted, llm):
    assert llm("-m", "teorema", QUESTION).returncode == 0
    parent = teorema.query("SELECT max(id) FROM debates_question")[0][0]
    again = llm("-c", "And if writes triple next year?")
    assert again.returncode == 0, again.stderr
    assert teorema.query("SELECT parent_id, text FROM debates_question ORDER BY id DESC LIMIT 1") == [
        (parent, "And if writes triple next year?")
    ]


def test_llm_with_a_wrong_key_says_why(teorema, llm):
    assert llm("keys", "set", "teorema", "--value", "tk_wrong").returncode == 0
    answer = llm("-m", "teorema", QUESTION)
    assert answer.returncode != 0
    assert "The API key is not valid" in answer.stderr


def test_llm_without_streaming_asks_a_failing_debate_once(teorema, fake_provider, llm):
    """Issue 50: ``llm --no-stream`` retried the 502 of a failed debate twice: three debates."""
    for model in ("model-alpha", "model-beta", "model-gamma", "model-moderator"):
        fake_provider.script(model, *[Script(status=500, error="provider down")] * 6)
    text = "Replicas or shards, asked once?"
    answer = llm("-m", "teorema", "--no-stream", text)
    assert answer.returncode != 0
    assert "The debate failed" in answer.stderr
    assert teorema.query("SELECT status FROM debates_question WHERE text = ?", text) == [("failed",)]
