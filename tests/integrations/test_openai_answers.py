"""What /v1 answers, as the real clients read it: the panel's story beside the synthesis (MCP's
answer for the same run, in the same words), the verdict as JSON where ``response_format`` asks
(LangChain's ``with_structured_output``), tools refused in words, and the debate as reasoning
where each client reads it."""

import json
import uuid
from typing import Literal

import openai
import pytest
from langchain_core.tools import tool
from pydantic import BaseModel

from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.integrations.chat_clients import ChatOpenAI, litellm
from tests.integrations.clients import mcp_session
from tests.integrations.conftest import Teorema
from tests.viewer import story


def fresh() -> str:
    return f"Read replicas or sharding for report {uuid.uuid4().hex[:8]}?"


def client(teorema: Teorema) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"])


def chat(teorema: Teorema, **options) -> ChatOpenAI:
    return ChatOpenAI(model="teorema/house", base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"], **options)


def newest(teorema: Teorema) -> int:
    return teorema.query("SELECT max(id) FROM debates_question")[0][0]


async def mcp_summary(teorema: Teorema, question: int) -> dict:
    async with mcp_session(teorema.url, teorema.tokens["alice"]) as session:
        return (await session.call_tool("get_question", {"question_id": question})).structured_content


@pytest.mark.anyio
async def test_the_answer_names_who_was_who_and_where_the_panel_stands_as_mcp_does(teorema, scripted):
    reply = await openai.AsyncOpenAI(
        base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"]
    ).chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": fresh()}])
    content = reply.choices[0].message.content
    found = await mcp_summary(teorema, newest(teorema))
    assert f"**Where the panel stands:** {found['support']['words']} · {found['evidence_strength']} evidence" in content
    assert len(found["identities"]) >= 3
    for voice in found["identities"]:
        assert f"- **{voice['voice']}**: {voice['name']} · {voice['model']}" in content
    assert content.index("Where the panel stands") > content.index(SYNTHESIS.strip()[-20:])


@pytest.mark.anyio
async def test_a_dissenting_voice_is_named_with_its_stance_and_why_as_mcp_names_it(teorema, fake_provider):
    """Issue 50: /v1 said "Panelist B dissents" with no name, where MCP named the voice."""
    story.script(fake_provider, split=True)
    reply = await openai.AsyncOpenAI(
        base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"]
    ).chat.completions.create(model="teorema/house", messages=[{"role": "user", "content": story.QUESTION}])
    content = reply.choices[0].message.content
    found = await mcp_summary(teorema, newest(teorema))
    [dissenting] = found["dissent"]
    assert dissenting["stance"] == "disagrees"
    assert dissenting["why"]
    [named] = [voice for voice in found["identities"] if voice["voice"] == dissenting["voice"]]
    said = f"- **{named['voice']}**: {named['name']} · {named['model']} — disagrees: {dissenting['why']}"
    assert said in content
    assert f"**Where the panel stands:** {found['support']['words']}" in content


def test_tools_are_refused_in_words_and_ask_nothing(teorema, fake_provider):
    before = newest(teorema)
    lookup = {"type": "function", "function": {"name": "lookup", "parameters": {"type": "object", "properties": {}}}}
    with pytest.raises(openai.BadRequestError, match="calls no tools") as raised:
        client(teorema).chat.completions.create(
            model="teorema/house", messages=[{"role": "user", "content": fresh()}], tools=[lookup]
        )
    assert raised.value.body["param"] == "tools"
    assert raised.value.response.headers["x-should-retry"] == "false"
    assert newest(teorema) == before
    assert not fake_provider.requests


def test_langchain_tools_are_refused_in_words(teorema, fake_provider):
    @tool
    def lookup(city: str) -> str:
        """The weather in a city."""
        return "sunny"

    with pytest.raises(openai.BadRequestError, match="calls no tools"):
        chat(teorema).bind_tools([lookup]).invoke(fresh())
    assert not fake_provider.requests


@pytest.mark.anyio
async def test_json_object_is_the_verdict_object_mcp_answers(teorema, scripted):
    reply = await openai.AsyncOpenAI(
        base_url=f"{teorema.url}/v1", api_key=teorema.tokens["alice"]
    ).chat.completions.create(
        model="teorema/house", messages=[{"role": "user", "content": fresh()}], response_format={"type": "json_object"}
    )
    verdict = json.loads(reply.choices[0].message.content)
    assert verdict == await mcp_summary(teorema, newest(teorema))  # the question in short, field for field
    assert verdict["status"] == "done"
    assert "Use read replicas" in verdict["verdict"]
    assert SYNTHESIS.strip()[:30] in reply.choices[0].message.model_extra["reasoning_content"]  # the synthesis, read


class Decision(BaseModel):
    choice: Literal["replicas", "sharding"]
    why: str
    confidence: float


DECIDED = {"choice": "replicas", "why": "Reads dominate the load.", "confidence": 0.8}


@pytest.fixture
def shaping(scripted):
    """The moderator writes its synthesis, then, asked in a schema, ``DECIDED``."""
    scripted.script(
        "model-moderator", Script(answer=lambda request: json.dumps(DECIDED) if request.schema else SYNTHESIS)
    )
    return scripted


def test_langchain_with_structured_output_gets_the_verdict_in_its_schema(teorema, shaping):
    decision = chat(teorema).with_structured_output(Decision).invoke(fresh())
    assert decision == Decision(**DECIDED)
    shaped = [r for r in shaping.requests_for("model-moderator") if r.schema]
    assert len(shaped) == 1  # one more call, by the moderator, natively structured
    assert set(shaped[0].schema["properties"]) == {"choice", "why", "confidence"}
    assert "Use read replicas." in shaped[0].prompt  # it writes from its synthesis
    question = newest(teorema)
    assert teorema.query("SELECT shaped FROM debates_question WHERE id = ?", question) == [(json.dumps(DECIDED),)]
    shaped_row = """SELECT c.label, c.status, c.tokens_out > 0 FROM debates_contribution c
        JOIN debates_round r ON c.round_id = r.id WHERE r.question_id = ? AND c.kind = 'shaped'"""
    assert teorema.query(shaped_row, question) == [("Moderator", "done", 1)]  # stored and billed as every call


def test_langchain_json_mode_gets_the_verdict_object(teorema, scripted):
    verdict = chat(teorema).with_structured_output(method="json_mode").invoke(fresh() + " Answer in JSON.")
    assert verdict["id"] == newest(teorema)
    assert "Use read replicas" in verdict["verdict"]


@pytest.mark.parametrize(
    ("response_format", "words"),
    [
        ({"type": "json_schema", "json_schema": {"name": "x"}}, "a json_schema needs its schema"),
        ({"type": "json_schema", "json_schema": {"schema": {"type": "array"}}}, "the schema's root must be an object"),
        ({"type": "json_schema", "json_schema": {"schema": {"type": 5}}}, "the schema is no JSON Schema"),
        ({"type": "xml"}, "the type 'xml' is none of text, json_object, json_schema"),
    ],
)
def test_a_response_format_the_verdict_cannot_take_is_refused_in_words(teorema, fake_provider, response_format, words):
    before = newest(teorema)
    with pytest.raises(openai.BadRequestError, match=words) as raised:
        client(teorema).chat.completions.create(
            model="teorema/house", messages=[{"role": "user", "content": fresh()}], response_format=response_format
        )
    assert raised.value.body["param"] == "response_format"
    assert newest(teorema) == before
    assert not fake_provider.requests


def test_a_verdict_that_never_fits_the_schema_is_said_never_sent(teorema, scripted):
    unfit = {"choice": "replicas", "why": "Reads dominate.", "confidence": "high"}
    scripted.script(
        "model-moderator", Script(answer=lambda request: json.dumps(unfit) if request.schema else SYNTHESIS)
    )
    with pytest.raises(openai.APIStatusError, match="The moderator wrote no verdict in the schema asked for") as raised:
        client(teorema).chat.completions.parse(
            model="teorema/house", messages=[{"role": "user", "content": fresh()}], response_format=Decision
        )
    assert "confidence: 'high' is not of type 'number'" in raised.value.message
    assert raised.value.status_code == 424
    assert raised.value.body["code"] == "verdict_does_not_fit"
    assert len([r for r in scripted.requests_for("model-moderator") if r.schema]) == 2  # asked again once


@pytest.mark.parametrize("stream", [False, True])
def test_litellm_reads_the_debate_as_its_reasoning(teorema, scripted, stream):
    options = {"model": "openai/teorema/house", "api_base": f"{teorema.url}/v1", "api_key": teorema.tokens["alice"]}
    reply = litellm.completion(messages=[{"role": "user", "content": fresh()}], stream=stream, **options)
    if stream:
        chunks = list(reply)
        reasoning = "".join(getattr(c.choices[0].delta, "reasoning_content", None) or "" for c in chunks if c.choices)
        content = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        reasoning, content = reply.choices[0].message.reasoning_content, reply.choices[0].message.content
    assert "**Panelist A** · blind answers" in reasoning
    assert content.startswith(SYNTHESIS.strip()[:40])


def test_langchain_reads_the_debate_in_the_content_when_asked_for_think(teorema, scripted):
    """ChatOpenAI keeps no reasoning field of a compatible server: the header puts the debate in the content."""
    answer = chat(teorema, default_headers={"X-Teorema-Reasoning": "think"}).invoke(fresh()).content
    thought, _, after = answer.partition("</think>")
    assert thought.startswith("<think>")
    assert "**Panelist A** · blind answers" in thought
    assert SYNTHESIS.strip()[:40] in after


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"
