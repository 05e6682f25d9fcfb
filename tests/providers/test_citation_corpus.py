"""Each wire's citations, as real replies give them: the citations corpus (tests/corpus/citations/),
every event of it the official SDKs' own type, read by our client over a real socket, each page on
the claim it supports and cited or looked up as labelled (bench/bench_sources.py prints the figures)."""

import json

import pytest
from anthropic.types import RawMessageStreamEvent
from google.genai import types
from openai.types.chat import ChatCompletionChunk
from pydantic import TypeAdapter

from tests.fakes.replay import ReplayServer
from tests.providers.citations import ENTRIES, PROVIDERS, Score, read, score

TYPES = {
    "openai": ChatCompletionChunk.model_validate,
    "anthropic": TypeAdapter(RawMessageStreamEvent).validate_python,
    "gemini": types.GenerateContentResponse.model_validate,
}
NAMED = [pytest.param(entry, id=entry["id"]) for entry in ENTRIES]


@pytest.fixture(scope="module")
def replay():
    with ReplayServer() as server:
        yield server


def test_the_corpus_holds_every_shape_asked_for():
    assert {e["wire"] for e in ENTRIES} == set(PROVIDERS)
    assert len({e["lang"] for e in ENTRIES}) >= 6
    perplexity = [e for e in ENTRIES if e["wire"] == "perplexity"]
    assert any("citations" in json.dumps(e["responses"]) for e in perplexity)
    assert any('"citations"' not in json.dumps(e["responses"]) for e in perplexity)
    assert any(len(e["responses"]) > 1 for e in ENTRIES if e["wire"] == "anthropic")  # a paused turn
    assert all(e["cited"] or e["looked_up"] for e in ENTRIES)


@pytest.mark.parametrize("entry", NAMED)
def test_every_event_of_the_corpus_is_the_providers_sdks_own_type(entry):
    check = TYPES[PROVIDERS[entry["wire"]][0]]
    for response in entry["responses"]:
        for event in response:
            if event["data"] != "[DONE]":
                check(event["data"])


@pytest.mark.parametrize("entry", NAMED)
async def test_each_page_is_read_onto_its_own_claim_and_cited_or_looked_up_as_labelled(replay, entry):
    done = await read(replay, entry)
    found = score(entry, done)
    assert found.wrong == []
    assert found.misclassed == []
    assert found.right == found.credits
    assert len(replay.requests) == len(entry["responses"])  # a paused turn was continued, and only then


async def test_the_corpus_scores_no_page_on_the_wrong_claim(replay):
    total = Score()
    for entry in ENTRIES:
        total += score(entry, await read(replay, entry))
    assert (total.right, total.wrong, total.classed) == (total.credits, [], total.pages)
