"""Listing a provider's models: each wire's GET …/models read into plain ids, failures in words."""

import pytest

from debates.providers import check
from debates.providers.base import Endpoint, Fault, ProviderError
from debates.providers.catalog import family, models
from tests.fakes.provider_server import Script
from tests.providers.helpers import WIRES

KEY = "sk-proj-Zq8VtR2mXk41LpW9sYb7NcE3"


@pytest.mark.parametrize("wire", WIRES)
async def test_each_wire_lists_the_models_the_server_offers_sorted(fake_provider, wire):
    fake_provider.models = ["model-gamma", "model-alpha", "model-beta"]

    assert await models(fake_provider.endpoint(wire)) == ["model-alpha", "model-beta", "model-gamma"]


@pytest.mark.parametrize(
    ("wire", "header", "value"),
    [
        ("openai", "authorization", "Bearer sk-fake-4Gq9Lx2V"),
        ("anthropic", "x-api-key", "sk-ant-fake-7Rw3Nc8T"),
        ("gemini", "x-goog-api-key", "AIza-fake-5Hm1Pz6K"),
    ],
)
async def test_the_key_travels_in_each_wires_header_never_in_the_url(fake_provider, wire, header, value):
    await models(fake_provider.endpoint(wire))

    (listing,) = fake_provider.listings
    assert listing.headers[header] == value
    assert value.split()[-1] not in listing.path + listing.query


async def test_anthropic_is_asked_its_version_and_followed_page_by_page(fake_provider):
    fake_provider.models = [f"claude-{n}" for n in range(5)]
    fake_provider.models_page = 2

    assert await models(fake_provider.endpoint("anthropic")) == [f"claude-{n}" for n in range(5)]
    assert [r.query for r in fake_provider.listings] == [
        "limit=1000",
        "limit=1000&after_id=claude-1",
        "limit=1000&after_id=claude-3",
    ]
    assert all(r.headers["anthropic-version"] == "2023-06-01" for r in fake_provider.listings)


async def test_gemini_is_followed_page_by_page_and_loses_the_models_prefix(fake_provider):
    fake_provider.models = [f"gemini-{n}" for n in range(5)]
    fake_provider.models_page = 2

    assert await models(fake_provider.endpoint("gemini")) == [f"gemini-{n}" for n in range(5)]
    assert len(fake_provider.listings) == 3


async def test_gemini_lists_only_models_that_can_generate_content(fake_provider):
    fake_provider.models = ["gemini-2.5-flash", "text-embedding-004"]

    assert await models(fake_provider.endpoint("gemini")) == ["gemini-2.5-flash"]


async def test_a_server_without_a_key_is_asked_without_one(fake_provider):
    await models(fake_provider.endpoint("openai", api_key=""))

    assert "authorization" not in fake_provider.listings[0].headers


async def test_the_embedded_wire_lists_its_one_model_without_calling_anything(fake_provider):
    assert await models(Endpoint(name="Embedded", wire="local")) == ["smollm2-135m-instruct"]
    assert fake_provider.listings == []


@pytest.mark.parametrize(
    ("failure", "fault", "said"),
    [
        (
            Script(status=401, error="invalid x-api-key"),
            Fault.AUTH,
            "Fake {wire} rejected the key (401): invalid x-api-key",
        ),
        (Script(status=404), Fault.BAD_REQUEST, "Fake {wire} does not list its models (404 for GET "),
        (Script(status=500), Fault.SERVER, "Fake {wire} had a server error (500): fake failure"),
        (Script(fault="invalid_json"), Fault.MALFORMED, "Fake {wire} answered with something that is not JSON"),
        (Script(fault="hang"), Fault.STALL, "Fake {wire} stalled: nothing for 0.2s before answering"),
    ],
)
@pytest.mark.parametrize("wire", WIRES)
async def test_a_failed_listing_says_what_went_wrong_in_words(fake_provider, wire, failure, fault, said):
    fake_provider.models_failure = failure

    with pytest.raises(ProviderError) as caught:
        await models(fake_provider.endpoint(wire, stall_timeout=0.2))

    assert caught.value.fault == fault
    assert caught.value.message.startswith(said.format(wire=wire))


async def test_a_wrong_base_url_is_named_when_the_server_does_not_list_models(fake_provider):
    with pytest.raises(ProviderError) as caught:
        await models(fake_provider.endpoint("openai", base_url=f"{fake_provider.url}/nowhere"))

    assert caught.value.message == (
        f"Fake openai does not list its models (404 for GET {fake_provider.url}/nowhere/models): check the base URL"
    )


@pytest.mark.parametrize("wire", WIRES)
async def test_the_key_never_leaks_through_a_listing_error(fake_provider, wire):
    fake_provider.models_failure = Script(status=401, error=f"Incorrect API key provided: {KEY[:14]}…")

    with pytest.raises(ProviderError) as caught:
        await models(fake_provider.endpoint(wire, api_key=KEY))

    assert caught.value.message.endswith("Incorrect API key provided: [key removed]…")


async def test_a_reply_without_a_list_is_malformed(fake_provider):
    with pytest.raises(ProviderError) as caught:  # Gemini's list where OpenAI's was expected
        await models(fake_provider.endpoint("openai", base_url=f"{fake_provider.url}/v1beta"))

    assert caught.value.fault == Fault.MALFORMED
    assert caught.value.message == "Fake openai answered without a list of models ('data' missing)"


async def test_check_lists_the_models_when_the_provider_has_no_panelist_yet(fake_provider):
    said = await check(fake_provider.voice("anthropic", model=""))

    assert said.startswith("Fake anthropic answered in ")
    assert said.endswith(" ms: it lists 3 models.")
    assert fake_provider.requests == []  # nothing was generated, nothing billed


@pytest.mark.parametrize(
    ("model", "expected"),
    [
        ("gpt-4o", "gpt"),
        ("chatgpt-4o-latest", "gpt"),
        ("o3-mini", "gpt"),
        ("openai/o1", "gpt"),
        ("claude-sonnet-4-5", "claude"),
        ("anthropic/claude-3.5-haiku", "claude"),
        ("gemini-2.5-pro", "gemini"),
        ("gemma3:4b", "gemma"),
        ("llama3.2:3b", "llama"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama"),
        ("mixtral-8x7b", "mistral"),
        ("open-mistral-nemo", "mistral"),
        ("codestral-latest", "mistral"),
        ("deepseek-reasoner", "deepseek"),
        ("qwen2.5-coder:7b", "qwen"),
        ("grok-4", "grok"),
        ("sonar-pro", "sonar"),
        ("smollm2-135m-instruct", "smollm2"),
        ("omni-moderation-latest", "omni"),
        ("model-alpha", "model"),
    ],
)
def test_the_family_is_guessed_from_the_model_id(model, expected):
    assert family(model) == expected
