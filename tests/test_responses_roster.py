"""The Responses API chosen by preset or per provider (the admin, the roster file), and a model that
only it serves refused in words where its provider speaks OpenAI's Chat Completions."""

import pytest
from django.test import Client
from django.urls import reverse

from debates.models import Membership, Panel, Panelist, Provider
from debates.providers.base import SearchTool
from debates.roster.readiness import PanelOption, problems
from debates.roster.toml import export_roster, import_roster
from debates.roster.voices import voice_from_panelist
from tests.test_admin import provider_form

pytestmark = pytest.mark.django_db

ROSTER = """
[[providers]]
name = "OpenAI Responses"
preset = "openai_responses"
api_key_env = "OPENAI_API_KEY"

[[panelists]]
name = "o3 pro"
provider = "OpenAI Responses"
model = "o3-pro"
family = "gpt"
search = true
price_search = 10.0

[[panels]]
name = "Pro"
members = ["o3 pro"]
moderator = "o3 pro"
is_default = true
"""


def seated(preset: str, model: str, base_url: str = "", wire: str = "") -> Panel:
    """A one-voice panel on a provider of ``preset`` (its key set), ``model`` its voice and moderator."""
    provider = Provider(name=f"{preset} provider", preset=preset, wire=wire, base_url=base_url)
    provider.clean()  # the preset fills the wire and the base URL left blank
    provider.set_api_key("sk-test-0123456789")
    provider.save()
    voice = Panelist.objects.create(name=f"{model} voice", provider=provider, model=model, family="gpt")
    panel = Panel.objects.create(name=f"{model} panel", slug=model.replace(".", "-"), moderator=voice)
    Membership.objects.create(panel=panel, panelist=voice, position=0)
    return panel


@pytest.mark.parametrize(
    ("preset", "wire", "base_url", "saved"),
    [
        ("openai_responses", "", "", "https://api.openai.com/v1"),  # the preset fills both
        ("", "responses", "http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),  # any server, by its wire
    ],
)
def test_the_admin_saves_a_provider_on_the_responses_wire(
    admin_client: Client, preset: str, wire: str, base_url: str, saved: str
) -> None:
    form = provider_form(name="Responses", preset=preset, wire=wire, base_url=base_url)
    admin_client.post(reverse("admin:debates_provider_add"), form)
    provider = Provider.objects.get(name="Responses")
    assert (provider.wire, provider.base_url) == ("responses", saved)


@pytest.mark.parametrize("model", ["o3-pro", "gpt-5-codex", "gpt-5.2-pro", "o3-deep-research", "codex-mini-latest"])
def test_a_responses_only_model_on_openais_chat_completions_cannot_run_and_says_why(model: str) -> None:
    panel = seated("openai", model)
    (said,) = problems(panel)
    assert said == (
        f"{model} voice's model {model} is served by OpenAI only through its Responses API, not through "
        "Chat Completions, which openai provider speaks: seat it on a provider with the preset "
        "“OpenAI (Responses API)” (or set openai provider's wire protocol to “OpenAI Responses API”)"
    )
    assert not PanelOption.of(panel).runnable


@pytest.mark.parametrize(
    ("preset", "model", "base_url", "wire"),
    [
        ("openai_responses", "o3-pro", "", ""),  # its own wire
        ("", "o3-pro", "https://api.openai.com/v1", "responses"),  # the wire chosen per provider
        ("openai", "gpt-4.1", "", ""),  # Chat Completions serves it
        ("openrouter", "openai/o3-pro", "", ""),  # a router serves it its own way
        ("", "o3-pro", "http://127.0.0.1:4000/v1", "openai"),  # another server: nothing is known of it
    ],
)
def test_a_model_its_wire_serves_has_no_problem(preset: str, model: str, base_url: str, wire: str) -> None:
    assert problems(seated(preset, model, base_url, wire)) == []


def test_a_voice_on_the_preset_searches_with_the_responses_tool_whatever_openai_model() -> None:
    panel = seated("openai_responses", "gpt-4.1")
    panelist = panel.moderator
    panelist.search = True
    panelist.full_clean()  # unlike Chat Completions, no search model is needed
    voice = voice_from_panelist(panelist)
    assert (voice.endpoint.wire, voice.endpoint.search, voice.search) == ("responses", SearchTool.RESPONSES, True)
    assert (voice.vision, voice.pdf) == (True, True)  # images and PDFs go as input_image and input_file


def test_the_roster_file_takes_the_preset_and_exports_it_back() -> None:
    import_roster(ROSTER)
    provider = Provider.objects.get(name="OpenAI Responses")
    assert (provider.wire, provider.base_url) == ("responses", "https://api.openai.com/v1")
    assert Panelist.objects.get(name="o3 pro").may_search
    exported = export_roster()
    assert 'preset = "openai_responses"' in exported
    assert "wire =" not in exported  # the preset supplies it
    for model in (Panel, Panelist, Provider):
        model.objects.all().delete()
    import_roster(exported)
    assert export_roster() == exported
