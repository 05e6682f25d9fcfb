"""A whole debate with a voice on OpenAI's Responses API, through the engine and the fake server: it
answers, debates and votes like any voice, and what it cites lands on the claims its words support."""

from dataclasses import replace

import pytest

from debates.engine.events import ContributionCited, ContributionFinished, LedgerUpdated
from debates.engine.run import run
from debates.providers.base import SearchTool
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.fakes.responses import SUMMARY
from tests.fakes.wire import Cite

BOILING = "https://example.org/boiling"
EVEREST = "https://example.org/everest"
TEXT = (
    "Water boils at 100 °C at sea level ([example.org](https://example.org/boiling)), so the kettle reads right. "
    "On Everest it boils near 70 °C ([example.org](https://example.org/everest)).\n\n"
    "ANSWER: 100 °C\n"
    "CLAIMS:\n"
    "1. [fact] Water boils at 100 °C at sea level | confidence: 90% | falsified if: a calibrated thermometer "
    "reads otherwise at sea level\n"
    "2. [fact] On Everest water boils near 70 °C | confidence: 80% | falsified if: a summit reading says 85 °C\n"
    "3. [inference] The kettle's thermostat is accurate | confidence: 60% | falsified if: it reads 95 °C in "
    "boiling water\n"
)
CITES = (
    Cite(BOILING, "Boiling point", supports="Water boils at 100 °C at sea level"),  # the sentence its link closes
    Cite(EVEREST, "Everest", supports="On Everest it boils near 70 °C"),
    Cite("https://example.org/kettles", "Kettles, looked up"),
)


def answer(request) -> str:
    if "on your own" in request.prompt:
        return TEXT
    return "I confirm it: the pages say so.\n\nCHANGE: none | the pages hold\nANSWER: 100 °C"


@pytest.fixture
def panel(fake_provider, spec_factory):
    """Panelist A on the Responses API, searching and citing; B and C on Chat Completions and Anthropic."""
    models = ["gpt-4.1", "model-beta", "model-gamma"]
    fake_provider.script("gpt-4.1", Script(answer=answer, sources=CITES, usage=(900, 120)))
    fake_provider.script("model-beta", answer)
    fake_provider.script("model-gamma", answer)
    fake_provider.script("model-moderator", SYNTHESIS)
    spec = spec_factory(3, models=models, wires=["responses", "openai", "anthropic"])
    first = spec.seats[0]
    endpoint = replace(first.voice.endpoint, search=SearchTool.RESPONSES)
    searching = replace(first, voice=replace(first.voice, search=True, endpoint=endpoint))
    return replace(spec, seats=(searching, *spec.seats[1:]))


async def test_a_responses_voice_takes_every_step_of_a_debate(fake_provider, panel, sink):
    finished = await run(panel, sink)
    assert finished.status == "done"
    asked = fake_provider.requests_for("gpt-4.1")
    assert {r.path for r in asked} == {"/v1/responses"}
    assert len(asked) >= 2  # its blind answer and the debate
    assert all("can search the web" in r.system for r in asked)  # its system prompt, as instructions
    assert all(r.body["tools"] == [{"type": "web_search"}] for r in asked)
    results = [e.result for e in sink.of(ContributionFinished) if e.result.seat == "p1"]
    assert all(r.ok for r in results)
    blind = next(r for r in results if r.kind == "answer")
    assert blind.text == TEXT
    assert (blind.tokens_in, blind.tokens_out, blind.tokens_estimated) == (900, 120, False)
    assert blind.searches == 1


async def test_its_sources_land_on_the_claims_their_words_support(fake_provider, panel, sink):
    await run(panel, sink)
    assert {e.seat for e in sink.of(ContributionCited)} == {"p1"}
    blind = next(e.result for e in sink.of(ContributionFinished) if e.result.seat == "p1" and e.result.kind == "answer")
    assert [s.url for s in blind.sources if s.cited] == [BOILING, EVEREST]
    assert [s.url for s in blind.sources if not s.cited] == [BOILING, EVEREST, "https://example.org/kettles"]
    assert [c["sources"] for c in blind.ledger["claims"]] == [[1], [2], []]
    ledger = sink.of(LedgerUpdated)[-1].ledger
    label = blind.label.removeprefix("Panelist ")
    backed = {row["id"]: [s["url"] for s in row["sources"]] for row in ledger["claims"]}
    assert (backed[f"{label}1"], backed[f"{label}2"], backed[f"{label}3"]) == ([BOILING], [EVEREST], [])
    (moderator,) = fake_provider.requests_for("model-moderator")
    assert f"— sourced: [1] Boiling point ({BOILING})" in moderator.prompt
    assert f"— sourced: [2] Everest ({EVEREST})" in moderator.prompt


async def test_a_reasoning_voices_summary_of_its_thinking_is_kept_apart_and_never_shown_to_the_others(
    fake_provider, spec_factory, sink
):
    """OpenAI's summary of a reasoning model's thinking is stored with its contribution (its page folds it
    under the text), and is no part of what it said: no other voice, nor the moderator, reads it."""
    models = ["o4-mini", "model-beta", "model-gamma"]
    for model in models:
        fake_provider.script(model, answer)
    fake_provider.script("model-moderator", SYNTHESIS)
    spec = spec_factory(3, models=models, wires=["responses", "openai", "anthropic"])
    assert (await run(spec, sink)).status == "done"
    mine = [e.result for e in sink.of(ContributionFinished) if e.result.seat == "p1"]
    assert mine
    assert all(r.thought == SUMMARY and SUMMARY not in r.text for r in mine)
    others = [r for r in fake_provider.requests if r.body.get("model") != "o4-mini"]
    assert others
    assert not any("The fake reasons about what is asked" in r.prompt + r.system for r in others)
