"""The real CLIs, pinned in package-lock.json, as voices against the fake provider server: each
streams its words as they come, gets our system prompt and prompt, is offered no tool, and counts
its tokens (and its cost, where it reports one)."""

import base64
import json
from dataclasses import replace

import pytest

from debates.providers.base import Chunk, Completion, Message, Part
from tests.fakes.clis import MODELS, cli_voice
from tests.fakes.provider_server import Script
from tests.providers.helpers import collect, completion, text_of

ANSWER = "Seven is prime: no number but one and seven divides it."
SYSTEM = "You are panelist A of a Teorema debate: answer the question you are given."
PROMPT = "Is seven a prime number? Answer in one line."
MESSAGES = [Message("system", SYSTEM), Message("user", PROMPT)]
STREAMING = ["claude-code", "gemini-cli", "qwen-code"]
DOT_PNG = base64.b64decode(  # one pixel
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)

pytestmark = pytest.mark.usefixtures("cli_sandbox")


def tools_offered(request) -> list[str]:
    """The tools a request offers the model, whatever its wire."""
    body = request.body
    if request.wire == "gemini":
        return [d["name"] for tool in body.get("tools", []) for d in tool.get("functionDeclarations", [])]
    if request.wire == "anthropic":
        return [tool.get("name", "") for tool in body.get("tools", [])]
    return [tool.get("function", {}).get("name", "") for tool in body.get("tools", [])]


@pytest.mark.parametrize("cli", STREAMING)
async def test_a_cli_voice_streams_its_answer_word_by_word_and_counts_its_tokens(fake_provider, cli):
    fake_provider.script(MODELS[cli], ANSWER)
    events = await collect(cli_voice(fake_provider, cli), MESSAGES)
    done = completion(events)
    assert text_of(events) == done.text == ANSWER
    assert len([e for e in events if isinstance(e, Chunk)]) > 3  # as it came, not the whole at the end
    assert done.tokens_out == len(ANSWER.split())  # the CLI's own count of the fake's usage
    assert done.tokens_in > 0
    assert not done.tokens_estimated
    assert done.finish_reason == "stop"


@pytest.mark.parametrize("cli", STREAMING)
async def test_a_cli_voice_gets_our_system_prompt_and_our_prompt_and_no_tool(fake_provider, cli):
    fake_provider.script(MODELS[cli], ANSWER)
    await collect(cli_voice(fake_provider, cli), MESSAGES)
    (request,) = fake_provider.requests_for(MODELS[cli])
    assert SYSTEM in request.system
    assert request.prompt.endswith(PROMPT)
    assert tools_offered(request) == []


async def test_a_cli_voice_that_may_search_is_offered_its_own_search_tool_only(fake_provider):
    fake_provider.script(MODELS["gemini-cli"], ANSWER)
    await collect(replace(cli_voice(fake_provider, "gemini-cli"), search=True), MESSAGES)
    (request,) = fake_provider.requests_for(MODELS["gemini-cli"])
    assert tools_offered(request) == ["google_web_search"]


async def test_claude_codes_own_price_is_its_cost_on_an_api_key(fake_provider):
    fake_provider.script(MODELS["claude-code"], Script(answer=ANSWER, usage=(1000, 100)))
    done = completion(await collect(cli_voice(fake_provider, "claude-code"), MESSAGES))
    # Claude Code prices Sonnet 4.5 at $3 / $15 a million tokens: what its result reports.
    assert float(done.cost) == pytest.approx(1000 * 3 / 1e6 + 100 * 15 / 1e6)


async def test_a_cli_that_reports_no_cost_costs_the_voices_prices_which_a_subscription_leaves_at_nothing(
    fake_provider,
):
    fake_provider.script(MODELS["gemini-cli"], ANSWER)
    done = completion(await collect(cli_voice(fake_provider, "gemini-cli"), MESSAGES))
    assert isinstance(done, Completion)
    assert done.cost == 0


async def test_claude_code_gets_an_attached_image_from_its_workspace_as_the_wires_own_image(fake_provider):
    fake_provider.script(MODELS["claude-code"], ANSWER)
    asked = Message("user", "What is in the picture?", parts=(Part("image", "dot.png", "image/png", DOT_PNG),))
    await collect(cli_voice(fake_provider, "claude-code"), [Message("system", SYSTEM), asked])
    (request,) = fake_provider.requests_for(MODELS["claude-code"])
    assert [part["type"] for part in request.files] == ["image"]
    assert "`dot.png`" in request.prompt


async def test_codex_answers_through_the_fakes_responses_api_with_our_instructions_and_no_shell(fake_provider):
    fake_provider.script(MODELS["codex"], ANSWER)
    events = await collect(cli_voice(fake_provider, "codex"), MESSAGES)
    done = completion(events)
    assert text_of(events) == done.text == ANSWER
    assert done.tokens_out > 0
    assert not done.tokens_estimated
    (request,) = fake_provider.requests_for(MODELS["codex"])
    assert request.path.endswith("/v1/responses")
    assert SYSTEM in json.dumps(request.body)
    offered = {tool.get("name") or tool.get("type") for tool in request.body.get("tools", [])}
    assert not offered & {"shell", "exec_command", "apply_patch", "local_shell", "web_search"}, offered


async def test_codex_gets_an_attached_image_from_its_workspace_as_the_responses_apis_input_image(fake_provider):
    fake_provider.script(MODELS["codex"], ANSWER)
    asked = Message("user", "What is in the picture?", parts=(Part("image", "dot.png", "image/png", DOT_PNG),))
    await collect(cli_voice(fake_provider, "codex"), [Message("system", SYSTEM), asked])
    (request,) = fake_provider.requests_for(MODELS["codex"])
    assert [part["type"] for part in request.files] == ["input_image"]
    assert "`dot.png`" in request.prompt
