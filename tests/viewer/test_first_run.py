"""The first run as a new user meets it: the demo model said plainly, and a local model server
on this machine (the fake provider server stands in for Ollama) offered and made a panel."""

import io
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.utils.html import escape

from debates.examples import EXAMPLES
from debates.models import Panel, Panelist, Provider, Question
from debates.roster.toml import import_roster
from debates.runs import execute, tasks
from tests.fakes.answers import SYNTHESIS

DEFAULT_ROSTER = Path(__file__).resolve().parents[2] / "debates" / "default_roster.toml"
EXAMPLE_ROSTER = Path(__file__).resolve().parents[2] / "docs" / "roster.example.toml"


@pytest.fixture
def demo(db) -> Panel:
    """What make run sets up with no key: the Local trio on the embedded model, the default."""
    import_roster(DEFAULT_ROSTER.read_text(encoding="utf-8"))
    return Panel.objects.get(is_default=True)


@pytest.fixture
def ollama(settings, fake_provider):
    """The fake provider server on the port Ollama would use, as far as discovery can tell."""
    settings.TEOREMA = {**settings.TEOREMA, "LOCAL_SERVERS": {"ollama": fake_provider.base_url("openai")}}
    return fake_provider


@pytest.fixture
def staff(client, alice):
    alice.is_staff = True
    alice.save()
    client.force_login(alice)
    return client


def test_the_demo_model_is_called_what_it_is_on_the_ask_page(client, alice, demo, settings):
    settings.TEOREMA = {**settings.TEOREMA, "LOCAL_SERVERS": {}}
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "Demo model." in page
    assert "its answers are not meaningful" in page


def test_a_local_server_is_offered_and_becomes_the_default_panel(staff, demo, ollama):
    page = staff.get("/").content.decode()
    assert "Ollama is running on this machine with 3 models: model-alpha, model-beta, model-gamma." in page
    assert 'formaction="/local-servers/ollama/use/"' in page

    response = staff.post("/local-servers/ollama/use/")
    assert response.status_code == 302
    panel = Panel.objects.get(is_default=True)
    assert panel.slug == "ollama"
    assert [p.model for p in panel.roster()] == ["model-alpha", "model-beta"]
    assert panel.moderator.model == "model-gamma"  # a judge on a model no panelist runs
    assert panel.moderator.provider.base_url == ollama.base_url("openai")
    assert not panel.moderator.provider.needs_key
    page = staff.get("/").content.decode()
    assert 'value="ollama" data-protocol="teorema" checked' in page
    assert "Demo model." not in page
    assert "The panel “Ollama (this machine)” is ready" in page

    staff.post("/local-servers/ollama/use/")  # asking twice makes nothing twice
    assert Panel.objects.filter(slug="ollama").count() == 1


def test_the_adopted_panel_debates_against_the_server(staff, demo, ollama, monkeypatch):
    staff.post("/local-servers/ollama/use/")
    for model in ("model-alpha", "model-beta"):
        ollama.script(model, f"{model} says: add read replicas, because reads dominate. Confidence 70%.")
    ollama.script("model-gamma", SYNTHESIS)
    monkeypatch.setattr(tasks, "submit", lambda question: async_to_sync(execute.execute)(question.pk))
    staff.post("/", {"text": "Shard or add read replicas?", "panel": "ollama", "criticality": "low"})
    assert Question.objects.get().status == "done"
    assert {r.model for r in ollama.requests} == {"model-alpha", "model-beta", "model-gamma"}


def test_one_model_makes_a_panel_of_three_methods(staff, demo, ollama):
    ollama.models = ["llama3.2:3b"]
    staff.post("/local-servers/ollama/use/")
    panel = Panel.objects.get(slug="ollama")
    assert [(p.model, p.family, p.method) for p in panel.roster()] == [
        ("llama3.2:3b", "llama", "first_principles"),
        ("llama3.2:3b", "llama", "outside_view"),
        ("llama3.2:3b", "llama", "counter_evidence"),
    ]


def test_model_ids_too_long_to_store_whole_are_left_out_in_words_and_long_alike_ones_stay_apart(staff, demo, ollama):
    alike = "hf.co/" + "q" * 120
    ollama.models = [f"{alike}-instruct", f"{alike}-base", "m" * 201, "model-judge"]
    page = staff.get("/").content.decode()
    assert "1 model left out: an id longer than 200 characters cannot be stored whole" in page
    staff.post("/local-servers/ollama/use/")
    panel = Panel.objects.get(slug="ollama")
    assert [p.model for p in panel.roster()] == [f"{alike}-instruct", f"{alike}-base"]  # whole, two voices
    assert panel.moderator.model == "model-judge"
    assert not Panelist.objects.filter(model__startswith="mmm").exists()


def test_nothing_is_offered_when_no_server_answers(staff, demo, settings):
    settings.TEOREMA = {**settings.TEOREMA, "LOCAL_SERVERS": {"ollama": "http://127.0.0.1:9/v1"}}
    page = staff.get("/").content.decode()
    assert "is running on this machine" not in page
    response = staff.post("/local-servers/ollama/use/", follow=True)
    assert "That local server is not answering any more" in response.content.decode()
    assert not Panel.objects.filter(slug="ollama").exists()


def test_only_staff_may_make_a_panel_of_a_local_server(client, alice, demo, ollama):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert "An administrator can make it a panel." in page
    assert "formaction=" not in page
    response = client.post("/local-servers/ollama/use/")
    assert response.status_code == 302
    assert "/admin/login/" in response["Location"]
    assert not Panel.objects.filter(slug="ollama").exists()


def test_a_runnable_real_panel_looks_for_nothing(staff, panel, ollama):
    page = staff.get("/").content.decode()
    assert "Demo model." not in page
    assert "is running on this machine" not in page


def test_a_fresh_install_shows_no_warning_the_user_did_not_cause(db, client, settings, monkeypatch):
    settings.TEOREMA = {**settings.TEOREMA, "LOCAL_SERVERS": {}}
    monkeypatch.setenv("TEOREMA_ADMIN_PASSWORD", "x" * 16)
    call_command("bootstrap", stdout=io.StringIO())
    client.force_login(get_user_model().objects.get(username="admin"))

    page = client.get("/").content.decode()

    assert 'class="warning"' not in page
    assert 'role="alert"' not in page
    assert "would judge its own answers" not in page
    assert "Still needing a key" not in page
    assert "Demo model." in page  # said as what it is, a note


def test_the_ask_page_offers_examples_that_show_what_a_panel_is_good_at(client, alice, demo):
    client.force_login(alice)

    page = client.get("/").content.decode()

    for example in EXAMPLES:
        assert f'data-example-text="{escape(example.text)}"' in page
    decision = next(example for example in EXAMPLES if example.options)
    assert f'data-example-options="{chr(10).join(decision.options)}"' in page
    assert 'data-example-protocol="vote"' in page


def test_the_ask_page_lists_each_provider_still_needing_a_key_with_its_admin_page(staff, demo, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    monkeypatch.setenv("GEMINI_API_KEY", "set")
    import_roster(EXAMPLE_ROSTER.read_text(encoding="utf-8"), confirmed=True)

    page = staff.get("/").content.decode()

    box = page.split('class="readiness"')[1].split("</div>")[0]
    for name in ("OpenAI", "Anthropic"):
        provider = Provider.objects.get(name=name)
        assert f'<a href="/admin/debates/provider/{provider.pk}/change/">{name}</a>' in box
    assert "OPENAI_API_KEY is not set in the server&#x27;s environment" in box
    assert "Gemini" not in box
    assert "Local (SmolLM2)" not in box  # the embedded model needs none


def test_a_reader_who_is_not_staff_is_told_who_adds_the_keys(client, alice, demo, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    import_roster(EXAMPLE_ROSTER.read_text(encoding="utf-8"), confirmed=True)
    client.force_login(alice)

    box = client.get("/").content.decode().split('class="readiness"')[1].split("</div>")[0]

    assert "OpenAI" in box
    assert "/admin/" not in box
    assert "An administrator adds keys in the admin." in box


def test_the_demo_banner_follows_the_roster_from_a_key_to_a_panel(staff, demo, settings):
    """Issue 50: with a key and a panelist added, the ask page still said "add a provider key"."""
    settings.TEOREMA = {**settings.TEOREMA, "LOCAL_SERVERS": {}}

    def banner() -> str:
        page = staff.get("/").content.decode()
        return " ".join(page.split('class="demo-banner"', 1)[1].split("</div>", 1)[0].split())

    assert "For real answers, add a provider key" in banner()
    provider = Provider.objects.create(name="OpenAI", preset="openai", wire="openai")
    provider.set_api_key("sk-test")
    provider.save()
    said = banner()
    assert "add a panelist on one of OpenAI's models, now that it has a key" in said
    assert f'href="/admin/debates/provider/{provider.pk}/models/"' in said
    gpt = Panelist.objects.create(name="GPT", provider=provider, model="gpt-4.1", family="gpt")
    said = banner()
    assert "make a panel: seat GPT on one" in said
    assert f'href="/admin/debates/panelist/{gpt.pk}/seat/"' in said
    assert "add a provider key" not in said
    real = Panel.objects.create(name="Real", slug="real", moderator=gpt)
    real.memberships.create(panelist=gpt, position=0)
    assert "For real answers, pick the panel “Real” below." in banner()
