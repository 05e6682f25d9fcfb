"""The public surface besides stream(): connection check, Django rows to voices."""

from dataclasses import replace
from decimal import Decimal

import pytest

from debates.models import Panelist, Provider
from debates.providers import check, responses
from debates.providers.base import Fault, ProviderError, SearchTool, Voice
from debates.roster.voices import voice_from_panelist
from tests.fakes.provider_server import Script
from tests.providers.helpers import WIRES, failure


@pytest.mark.parametrize("wire", WIRES)
async def test_check_makes_one_tiny_call_and_says_it_worked(fake_provider, wire):
    message = await check(fake_provider.voice(wire, "tiny"))
    assert message.startswith(f"Fake {wire} answered as tiny in ")
    (request,) = fake_provider.requests
    assert request.prompt == "ping"
    asked = (request.body.get("max_tokens"), request.body.get("generationConfig", {}).get("maxOutputTokens"))
    # The Responses API refuses fewer than 16 tokens: the least it takes.
    assert 1 in asked or request.body.get("max_output_tokens") == responses.MIN_OUTPUT_TOKENS


async def test_check_of_a_voice_that_may_search_searches_nothing(fake_provider):
    endpoint = fake_provider.endpoint("anthropic", search=SearchTool.ANTHROPIC)
    await check(Voice("searcher", "tiny", endpoint, search=True))
    (request,) = fake_provider.requests
    assert "tools" not in request.body


async def test_check_reports_a_bad_key_in_words(fake_provider):
    fake_provider.script("m", Script(status=401, error="invalid x-api-key"))
    with pytest.raises(ProviderError) as caught:
        await check(fake_provider.voice("anthropic", "m"))
    assert caught.value.fault == Fault.AUTH
    assert str(caught.value) == "Fake anthropic rejected the key (401): invalid x-api-key"
    assert len(caught.value.attempts) == 1


async def test_an_unknown_wire_is_a_bad_request(fake_provider):
    voice = fake_provider.voice("openai")
    error, _ = await failure(replace(voice, endpoint=replace(voice.endpoint, wire="telepathy")))
    assert error.fault == Fault.BAD_REQUEST


@pytest.mark.django_db
def test_voice_from_panelist_snapshots_provider_key_and_prices():
    provider = Provider(name="Perplexity", wire="openai", preset="perplexity", stall_timeout=7, max_retries=4)
    provider.set_api_key("pplx-secret")
    provider.save()
    panelist = Panelist.objects.create(
        name="Sonar", provider=provider, model="sonar-pro", family="sonar", price_in=Decimal("1.5")
    )
    voice = voice_from_panelist(Panelist.objects.select_related("provider").get(pk=panelist.pk))
    assert (voice.name, voice.model, voice.price_in, voice.price_out) == ("Sonar", "sonar-pro", Decimal("1.5"), 0)
    endpoint = voice.endpoint
    assert (endpoint.wire, endpoint.base_url, endpoint.api_key) == (
        "openai",
        "https://api.perplexity.ai",
        "pplx-secret",
    )
    assert (endpoint.stall_timeout, endpoint.max_retries, endpoint.search) == (7, 4, "perplexity")
    assert "pplx-secret" not in repr(voice)
