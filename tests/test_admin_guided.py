"""The admin's guided path from a key to a panel: test the connection (a button, never a call
without a key), pick a model from the provider's list, add it as a panelist, seat it on a panel."""

import re

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.urls import reverse

from debates.models import Membership, Panel, Panelist, Provider
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.fakes.roster import make_panel
from tests.test_admin import provider_form

KEY = "sk-proj-PLAINTEXT0123456789wxyz"

pytestmark = pytest.mark.django_db


@pytest.fixture
def provider(fake_provider: FakeProviderServer) -> Provider:
    """A keyed OpenAI-wire provider on the fake server, with no panelist yet."""
    provider = Provider(name="Fake", wire="openai", base_url=fake_provider.base_url("openai"), max_retries=0)
    provider.set_api_key(KEY)
    provider.save()
    return provider


@pytest.fixture
def keyless(fake_provider: FakeProviderServer) -> Provider:
    return Provider.objects.create(
        name="Keyless", preset="openai", wire="openai", base_url=fake_provider.base_url("openai")
    )


def url(name: str, obj: object, query: str = "") -> str:
    return reverse(f"admin:debates_{obj._meta.model_name}_{name}", args=[obj.pk]) + query


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def nothing_called(server: FakeProviderServer) -> bool:
    return server.requests == [] and server.listings == []


# --- test connection ----------------------------------------------------------------------


def test_the_change_page_has_test_connection_as_a_post_button_and_a_models_button(
    admin_client: Client, provider: Provider
) -> None:
    page = admin_client.get(url("change", provider)).content.decode()

    assert f'<form method="post" action="{url("test", provider)}">' in page
    assert ">Test connection</button>" in page
    assert f'href="{url("models", provider)}"' in page
    # Right after Save: Enter in a field submits the first button, and must not make a paid call.
    assert re.search(r'name="_save">\s*<input type="submit" value="Save and test connection" name="_test">', page)


def test_test_connection_pings_the_first_panelist_and_says_how_it_went(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    Panelist.objects.create(name="Voice", provider=provider, model="ping-model", family="fake")
    fake_provider.script("ping-model", "pong")

    response = admin_client.post(url("test", provider), follow=True)

    assert response.redirect_chain[-1][0] == url("change", provider)
    (said,) = messages_of(response)
    assert said.startswith("Fake answered as ping-model in ")
    assert fake_provider.requests_for("ping-model")[0].headers["authorization"] == f"Bearer {KEY}"


def test_test_connection_of_a_provider_with_no_panelist_lists_its_models_instead_of_generating(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    response = admin_client.post(url("test", provider), follow=True)

    (said,) = messages_of(response)
    assert said.startswith("Fake answered in ")
    assert said.endswith(" ms: it lists 3 models.")
    assert fake_provider.requests == []  # no generation, nothing billed
    assert fake_provider.listings[0].headers["authorization"] == f"Bearer {KEY}"


def test_test_connection_reports_a_refused_key_in_words_without_the_key(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    fake_provider.models_failure = Script(status=401, error=f"Incorrect API key provided: {KEY}")

    response = admin_client.post(url("test", provider), follow=True)

    assert messages_of(response) == ["Fake: Fake rejected the key (401): Incorrect API key provided: [key removed]"]
    assert KEY not in response.content.decode()


def test_without_a_key_test_connection_says_so_and_calls_nothing(
    admin_client: Client, fake_provider: FakeProviderServer, keyless: Provider
) -> None:
    response = admin_client.post(url("test", keyless), follow=True)

    assert messages_of(response) == [
        "Keyless: no key: paste one in “New API key” and save (or set OPENAI_API_KEY in the server's environment "
        "and enter that name under “Key from environment variable”); nothing was called."
    ]
    assert nothing_called(fake_provider)


def test_a_key_variable_that_is_not_set_is_named_and_nothing_is_called(
    admin_client: Client, fake_provider: FakeProviderServer, keyless: Provider, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("TEOREMA_TEST_UNSET_KEY", raising=False)
    keyless.api_key_env = "TEOREMA_TEST_UNSET_KEY"
    keyless.save()

    response = admin_client.post(url("test", keyless), follow=True)

    assert messages_of(response) == [
        "Keyless: TEOREMA_TEST_UNSET_KEY is not set in the server's environment; nothing was called."
    ]
    assert nothing_called(fake_provider)


def test_the_list_action_still_tests_and_refuses_a_keyless_provider_without_calling(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider, keyless: Provider
) -> None:
    response = admin_client.post(
        reverse("admin:debates_provider_changelist"),
        {"action": "test_connection", "_selected_action": [provider.pk, keyless.pk], "index": 0},
        follow=True,
    )

    said = messages_of(response)
    assert said[0].startswith("Fake answered in ")
    assert said[1].startswith("Keyless: no key: paste one")
    assert len(fake_provider.listings) == 1  # the keyed provider only


def test_test_connection_is_never_a_get(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    assert admin_client.get(url("test", provider)).status_code == 405
    assert nothing_called(fake_provider)


# --- adding a provider --------------------------------------------------------------------


def test_saving_a_new_provider_lands_on_its_change_page_with_the_next_steps(
    admin_client: Client, fake_provider: FakeProviderServer
) -> None:
    form = provider_form(name="Fake", preset="", base_url=fake_provider.base_url("openai"), api_key=KEY, _save="Save")

    response = admin_client.post(reverse("admin:debates_provider_add"), form, follow=True)

    provider = Provider.objects.get(name="Fake")
    assert response.redirect_chain[-1][0] == url("change", provider)
    assert messages_of(response) == ["The provider “Fake” was added. Next: test the connection, then pick its models."]
    assert ">Test connection</button>" in response.content.decode()
    assert nothing_called(fake_provider)


def test_save_and_test_connection_tests_the_key_just_pasted(
    admin_client: Client, fake_provider: FakeProviderServer, keyless: Provider
) -> None:
    form = provider_form(name="Keyless", base_url=keyless.base_url, api_key="sk-new-key-4Jt8Wq", _test="Save and test")

    response = admin_client.post(url("change", keyless), form, follow=True)

    said = messages_of(response)
    assert said[0] == "The provider “Keyless” was saved."
    assert said[1].endswith("it lists 3 models.")
    assert fake_provider.listings[0].headers["authorization"] == "Bearer sk-new-key-4Jt8Wq"


# --- the models page ----------------------------------------------------------------------


def test_the_models_page_lists_what_the_provider_lists_and_who_uses_each(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    Panelist.objects.create(name="Beta voice", provider=provider, model="model-beta", family="model")

    page = admin_client.get(url("models", provider)).content.decode()

    assert "3 models." in page
    for model in ("model-alpha", "model-beta", "model-gamma"):
        assert f'href="{url("add_panelist", provider, f"?model={model}")}"' in page
    assert "Beta voice" in page
    assert KEY not in page


def test_the_models_page_filters_without_javascript(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    fake_provider.models = ["gpt-4o", "gpt-4o-mini", "o3-mini", "text-embedding-3-small"]

    page = admin_client.get(url("models", provider, "?q=4O")).content.decode()

    assert "2 of 4 models match “4O”." in page
    assert "?model=gpt-4o-mini" in page
    assert "?model=o3-mini" not in page
    assert 'name="q" value="4O"' in page


def test_the_models_page_of_a_keyless_provider_says_so_and_calls_nothing(
    admin_client: Client, fake_provider: FakeProviderServer, keyless: Provider
) -> None:
    page = admin_client.get(url("models", keyless)).content.decode()

    assert "Keyless: no key: paste one in “New API key”" in page
    assert nothing_called(fake_provider)


def test_the_models_page_says_why_a_listing_failed(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    fake_provider.models_failure = Script(status=404)

    page = admin_client.get(url("models", provider)).content.decode()

    assert "Fake: Fake does not list its models (404 for GET " in page


def test_the_setup_pages_need_the_right_to_change_the_provider(
    client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_provider"))
    client.force_login(viewer)

    assert client.get(url("models", provider)).status_code == 403
    assert client.post(url("test", provider)).status_code == 403
    assert nothing_called(fake_provider)


# --- add as a panelist --------------------------------------------------------------------


def test_add_as_a_panelist_prefills_name_and_family_from_the_model(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    fake_provider.models = ["claude-sonnet-4-5"]

    page = admin_client.get(url("add_panelist", provider, "?model=claude-sonnet-4-5")).content.decode()

    assert 'name="name" value="claude-sonnet-4-5 (Fake)"' in page
    assert 'name="family" value="claude"' in page
    assert 'name="model" value="claude-sonnet-4-5"' in page


def panelist_form(model: str = "model-beta", **changes: str) -> dict[str, str]:
    form = {
        "model": model,
        "name": f"{model} (Fake)",
        "family": "model",
        "method": "none",
        "price_in": "",
        "price_out": "",
    }
    return form | changes


def test_add_as_a_panelist_creates_it_on_the_provider_and_leads_to_seating_it(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    response = admin_client.post(
        url("add_panelist", provider, "?model=model-beta"),
        panelist_form(method="outside_view", price_in="2.5"),
        follow=True,
    )

    panelist = Panelist.objects.get(name="model-beta (Fake)")
    assert (panelist.provider, panelist.model, panelist.method) == (provider, "model-beta", "outside_view")
    assert (panelist.price_in, panelist.price_out) == (2.5, 0)
    assert response.redirect_chain[-1][0] == url("seat", panelist)
    assert messages_of(response) == ["Added the panelist “model-beta (Fake)”. Now seat it on a panel."]


def test_add_as_a_panelist_refuses_a_name_already_taken(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    Panelist.objects.create(name="model-beta (Fake)", provider=provider, model="model-alpha", family="model")

    page = admin_client.post(url("add_panelist", provider, "?model=model-beta"), panelist_form()).content.decode()

    assert "There is already a panelist named “model-beta (Fake)”: give this one another name." in page
    assert Panelist.objects.count() == 1


def test_add_as_a_panelist_refuses_a_model_the_provider_does_not_list(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    page = admin_client.post(
        url("add_panelist", provider, "?model=model-beta"), panelist_form("gpt-9")
    ).content.decode()
    assert "Fake does not list a model “gpt-9”: pick one from its list." in page

    response = admin_client.get(url("add_panelist", provider, "?model=gpt-9"), follow=True)
    assert response.redirect_chain[-1][0] == url("models", provider)
    assert messages_of(response) == ["Fake does not list a model “gpt-9”: pick one from its list."]
    assert not Panelist.objects.exists()


# --- seat it on a panel -------------------------------------------------------------------


@pytest.fixture
def newcomer(provider: Provider) -> Panelist:
    return Panelist.objects.create(name="Newcomer", provider=provider, model="model-beta", family="model")


def test_seating_on_an_existing_panel_takes_the_last_seat(
    admin_client: Client, fake_provider: FakeProviderServer, newcomer: Panelist
) -> None:
    house = make_panel(fake_provider.base_url("openai"))

    response = admin_client.post(url("seat", newcomer), {"seat-panel": "house", "seat": "Add"}, follow=True)

    assert house.roster()[-1] == newcomer
    assert len(house.roster()) == 4
    assert response.redirect_chain[-1][0] == url("models", newcomer.provider)
    assert messages_of(response)[0].startswith("“Newcomer” sits on the panel “Panel house” (4 voices). ")


@pytest.mark.parametrize(
    ("form", "refusal"),
    [
        ({"seat-panel": "nowhere", "seat": "Add"}, "There is no panel “nowhere”: pick one from the list."),
        ({"new-name": "Panel house", "create": "Create"}, "There is already a panel named “Panel house”"),
        ({"new-name": "  ", "create": "Create"}, "This field is required."),
        ({"new-name": "???", "create": "Create"}, "Give the panel a name with letters or digits in it."),
    ],
)
def test_seating_refuses_in_words(
    admin_client: Client, fake_provider: FakeProviderServer, newcomer: Panelist, form: dict, refusal: str
) -> None:
    make_panel(fake_provider.base_url("openai"))

    page = admin_client.post(url("seat", newcomer), form).content.decode()

    assert refusal in page
    assert not Membership.objects.filter(panelist=newcomer).exists()


def test_seating_twice_on_one_panel_is_refused(
    admin_client: Client, fake_provider: FakeProviderServer, newcomer: Panelist
) -> None:
    make_panel(fake_provider.base_url("openai"))
    admin_client.post(url("seat", newcomer), {"seat-panel": "house", "seat": "Add"})

    page = admin_client.post(url("seat", newcomer), {"seat-panel": "house", "seat": "Add"}).content.decode()

    assert "Newcomer already sits on the panel “Panel house”." in page
    assert Membership.objects.filter(panelist=newcomer).count() == 1


def test_a_new_panel_is_a_teorema_panel_with_the_panelist_as_voice_and_moderator(
    admin_client: Client, fake_provider: FakeProviderServer, newcomer: Panelist
) -> None:
    make_panel(fake_provider.base_url("openai"))

    response = admin_client.post(url("seat", newcomer), {"new-name": "My first panel", "create": "Create"}, follow=True)

    panel = Panel.objects.get(slug="my-first-panel")
    assert (panel.protocol, panel.moderator, panel.roster(), panel.is_default) == (
        "teorema",
        newcomer,
        [newcomer],
        False,
    )
    said = messages_of(response)
    assert said[0].startswith("“Newcomer” sits on the panel “My first panel” (1 voice). ")
    # Its moderator runs the one voice's model: with no other model's answer to disfavour, no warning.
    assert len(said) == 1


def test_the_first_panel_ever_is_the_default(admin_client: Client, newcomer: Panelist) -> None:
    admin_client.post(url("seat", newcomer), {"new-name": "Solo", "create": "Create"})

    assert Panel.objects.default() == Panel.objects.get(slug="solo")


def test_the_ask_page_offers_the_new_panel(
    admin_client: Client, fake_provider: FakeProviderServer, newcomer: Panelist
) -> None:
    make_panel(fake_provider.base_url("openai"))
    admin_client.post(url("seat", newcomer), {"new-name": "My first panel", "create": "Create"})

    page = admin_client.get(reverse("debates:ask")).content.decode()

    assert "My first panel" in page
    assert 'value="my-first-panel"' in page


def test_add_as_a_panelist_offers_web_search_at_the_providers_price_where_it_has_one(
    admin_client: Client, fake_provider: FakeProviderServer
) -> None:
    anthropic = Provider(name="Claude's", wire="anthropic", base_url=fake_provider.base_url("anthropic"))
    anthropic.set_api_key(KEY)
    anthropic.save()
    fake_provider.models = ["claude-sonnet-4-5"]

    page = admin_client.get(url("add_panelist", anthropic, "?model=claude-sonnet-4-5")).content.decode()
    assert 'name="search"' in page
    assert 'name="price_search" value="10"' in page
    admin_client.post(
        url("add_panelist", anthropic, "?model=claude-sonnet-4-5"),
        panelist_form("claude-sonnet-4-5", search="on", price_search="10"),
    )
    claude = Panelist.objects.get(model="claude-sonnet-4-5")
    assert (claude.search, claude.price_search) == (True, 10)


def test_a_provider_without_web_search_offers_none(
    admin_client: Client, fake_provider: FakeProviderServer, provider: Provider
) -> None:
    page = admin_client.get(url("add_panelist", provider, "?model=model-beta")).content.decode()
    assert 'name="search"' not in page
