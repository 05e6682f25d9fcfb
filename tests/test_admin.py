"""The admin: keys masked and write-only, the roster inline, the history read-only."""

import hashlib
import logging
import re
from pathlib import Path

import pytest
from django.contrib.admin.models import LogEntry
from django.test import Client
from django.urls import reverse

from debates.models import ApiToken, Contribution, Panel, Panelist, Provider, Question, Round, Status
from debates.roster.toml import import_roster
from tests.fakes.provider_server import FakeProviderServer, Script

KEY = "sk-proj-PLAINTEXT0123456789wxyz"
DEFAULT_ROSTER = Path(__file__).resolve().parent.parent / "debates" / "default_roster.toml"

pytestmark = pytest.mark.django_db


@pytest.fixture
def roster() -> Panel:
    import_roster(DEFAULT_ROSTER.read_text())
    return Panel.objects.get(slug="local")


@pytest.fixture
def provider() -> Provider:
    provider = Provider(name="OpenAI", preset="openai", wire="openai", base_url="https://api.openai.com/v1")
    provider.set_api_key(KEY)
    provider.save()
    return provider


def provider_form(**changes: str) -> dict[str, str]:
    form = {
        "name": "OpenAI",
        "preset": "openai",
        "wire": "openai",
        "base_url": "https://api.openai.com/v1",
        "api_key": "",
        "api_key_env": "",
        "connect_timeout": "10",
        "stall_timeout": "60",
        "total_timeout": "600",
        "max_retries": "2",
        "enabled": "on",
    }
    return form | changes


def change_url(obj: object) -> str:
    return reverse(f"admin:debates_{obj._meta.model_name}_change", args=[obj.pk])


def test_changelist_shows_the_masked_key_never_the_key(admin_client: Client, provider: Provider) -> None:
    page = admin_client.get(reverse("admin:debates_provider_changelist")).content.decode()

    assert "sk-…wxyz" in page
    assert KEY not in page


def test_change_form_shows_the_masked_key_and_an_empty_key_field(admin_client: Client, provider: Provider) -> None:
    page = admin_client.get(change_url(provider)).content.decode()

    assert "sk-…wxyz" in page
    assert KEY not in page
    assert re.search(r'<input type="password" name="api_key"[^>]*>', page)
    assert 'name="api_key" value' not in page


def test_a_failed_validation_does_not_render_the_submitted_key(admin_client: Client) -> None:
    response = admin_client.post(
        reverse("admin:debates_provider_add"), provider_form(api_key=KEY, base_url="not a url")
    )

    assert response.status_code == 200
    assert "Enter a valid URL." in response.content.decode()
    assert KEY not in response.content.decode()
    assert not Provider.objects.exists()


def test_saving_a_new_key_stores_it_encrypted_and_never_shows_or_logs_it(
    admin_client: Client, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    response = admin_client.post(reverse("admin:debates_provider_add"), provider_form(api_key=KEY), follow=True)

    provider = Provider.objects.get()
    assert provider.api_key == KEY
    assert KEY not in provider.api_key_encrypted
    assert KEY not in response.content.decode()
    assert KEY not in admin_client.get(change_url(provider)).content.decode()
    assert KEY not in caplog.text
    assert KEY not in str(list(LogEntry.objects.values_list("change_message", "object_repr")))


def test_a_blank_key_on_save_keeps_the_stored_key(admin_client: Client, provider: Provider) -> None:
    admin_client.post(change_url(provider), provider_form(total_timeout="300"))

    provider.refresh_from_db()
    assert provider.total_timeout == 300
    assert provider.api_key == KEY


def test_clear_key_removes_the_stored_key(admin_client: Client, provider: Provider) -> None:
    admin_client.post(change_url(provider), provider_form(clear_key="on"))

    provider.refresh_from_db()
    assert provider.api_key_encrypted == ""


def test_a_new_key_and_clear_key_together_are_refused(admin_client: Client, provider: Provider) -> None:
    response = admin_client.post(change_url(provider), provider_form(api_key="sk-other-000000", clear_key="on"))

    assert "Enter a new key or clear the stored one, not both." in response.content.decode()
    provider.refresh_from_db()
    assert provider.api_key == KEY


@pytest.mark.parametrize("field", ["api_key", "api_key_env"])
@pytest.mark.parametrize("wire", [{"preset": "local", "wire": ""}, {"preset": "", "wire": "local"}])
def test_a_key_for_the_embedded_model_is_refused_in_words(admin_client: Client, roster: Panel, field, wire) -> None:
    embedded = roster.moderator.provider
    form = provider_form(name=embedded.name, base_url="", **wire, **{field: "sk-never-used-0000"})

    response = admin_client.post(change_url(embedded), form)

    assert "The embedded model runs inside Teorema and takes no key" in response.content.decode()
    embedded.refresh_from_db()
    assert (embedded.api_key_encrypted, embedded.api_key_env) == ("", "")


def test_the_embedded_model_saves_without_a_key(admin_client: Client, roster: Panel) -> None:
    embedded = roster.moderator.provider
    form = provider_form(name=embedded.name, preset="local", wire="", base_url="", total_timeout="300")

    response = admin_client.post(change_url(embedded), form)

    assert response.status_code == 302
    embedded.refresh_from_db()
    assert embedded.total_timeout == 300


@pytest.mark.parametrize(
    "base_url",
    [
        "https://collector.example.net/v1",  # another host
        "http://api.openai.com/v1",  # another scheme
        "https://api.openai.com:8443/v1",  # another port
        "",  # blank: the preset's URL
    ],
)
def test_a_base_url_on_another_host_needs_the_key_again(admin_client: Client, provider: Provider, base_url) -> None:
    provider.base_url = "https://proxy.example.org/v1"  # the preset's own URL is another host than this
    provider.save()
    response = admin_client.post(change_url(provider), provider_form(base_url=base_url, _test="1"))

    assert response.status_code == 200
    assert "enter the key again, or clear the stored one" in response.content.decode()
    provider.refresh_from_db()
    assert (provider.base_url, provider.api_key) == ("https://proxy.example.org/v1", KEY)

    admin_client.post(change_url(provider), provider_form(base_url=base_url or "https://x.example.com", clear_key="on"))
    provider.refresh_from_db()
    assert provider.api_key_encrypted == ""


def test_a_new_key_with_the_new_host_is_saved(admin_client: Client, provider: Provider) -> None:
    new = "https://gateway.example.com/v1"
    admin_client.post(change_url(provider), provider_form(base_url=new, api_key="sk-gateway-0000000000"))

    provider.refresh_from_db()
    assert (provider.base_url, provider.api_key) == (new, "sk-gateway-0000000000")


@pytest.mark.parametrize("base_url", ["https://api.openai.com/v2", "https://API.openai.com:443/v1"])
def test_another_path_on_the_same_host_keeps_the_stored_key(admin_client: Client, provider: Provider, base_url) -> None:
    admin_client.post(change_url(provider), provider_form(base_url=base_url))

    provider.refresh_from_db()
    assert (provider.base_url, provider.api_key) == (base_url, KEY)


def test_a_preset_fills_wire_and_base_url_left_blank(admin_client: Client) -> None:
    admin_client.post(
        reverse("admin:debates_provider_add"),
        provider_form(name="Claude API", preset="anthropic", wire="", base_url=""),
    )

    provider = Provider.objects.get(name="Claude API")
    assert (provider.wire, provider.base_url) == ("anthropic", "https://api.anthropic.com")


def fake_openai_provider(server: FakeProviderServer, model: str) -> Provider:
    provider = Provider.objects.create(name="Fake", wire="openai", base_url=server.base_url("openai"))
    provider.set_api_key(KEY)
    provider.save()
    Panelist.objects.create(name="Fake voice", provider=provider, model=model, family="fake")
    return provider


def run_test_connection(client: Client, provider: Provider) -> list[str]:
    response = client.post(
        reverse("admin:debates_provider_changelist"),
        {"action": "test_connection", "_selected_action": [provider.pk], "index": 0},
        follow=True,
    )
    assert KEY not in response.content.decode()
    return [str(message) for message in response.context["messages"]]


def test_test_connection_reports_success(admin_client: Client, fake_provider: FakeProviderServer) -> None:
    fake_provider.script("ping-model", "pong")
    provider = fake_openai_provider(fake_provider, "ping-model")

    messages = run_test_connection(admin_client, provider)

    assert len(messages) == 1
    assert messages[0].startswith("Fake answered as ping-model in ")
    assert fake_provider.requests_for("ping-model")[0].headers["authorization"] == f"Bearer {KEY}"


def test_test_connection_reports_the_providers_error_in_words(
    admin_client: Client, fake_provider: FakeProviderServer
) -> None:
    fake_provider.script("ping-model", Script(status=401, error="Incorrect API key provided"))
    provider = fake_openai_provider(fake_provider, "ping-model")

    messages = run_test_connection(admin_client, provider)

    assert messages == ["Fake: Fake rejected the key (401): Incorrect API key provided"]


def membership_formset(*panelist_ids: int) -> dict[str, object]:
    form: dict[str, object] = {
        "memberships-TOTAL_FORMS": len(panelist_ids),
        "memberships-INITIAL_FORMS": 0,
        "memberships-MIN_NUM_FORMS": 0,
        "memberships-MAX_NUM_FORMS": 1000,
    }
    for i, pk in enumerate(panelist_ids):
        form |= {f"memberships-{i}-position": len(panelist_ids) - i, f"memberships-{i}-panelist": pk}
    return form


def panel_form(moderator: Panelist, **changes: object) -> dict[str, object]:
    form = {
        "name": "Pair",
        "slug": "pair",
        "protocol": "teorema",
        "moderator": moderator.pk,
        "rounds": 0,
        "debate": "on_dissent",
        "failure_policy": "strict",
        "default_criticality": "medium",
    }
    return form | changes


def test_a_panel_is_added_with_an_ordered_roster_inline(admin_client: Client, roster: Panel) -> None:
    first, second, third = roster.roster()

    admin_client.post(
        reverse("admin:debates_panel_add"), panel_form(first) | membership_formset(first.pk, second.pk, third.pk)
    )

    # Positions count down in the form, so the roster runs in reverse of the rows.
    assert Panel.objects.get(slug="pair").roster() == [third, second, first]
    assert Panel.objects.get(slug="pair").debate == "on_dissent"  # the admin edits the debate setting


def test_marking_a_panel_default_unmarks_the_other(admin_client: Client, roster: Panel) -> None:
    first, second, _ = roster.roster()

    admin_client.post(
        reverse("admin:debates_panel_add"), panel_form(first, is_default="on") | membership_formset(first.pk, second.pk)
    )

    assert list(Panel.objects.filter(is_default=True).values_list("slug", flat=True)) == ["pair"]


def test_unmarking_the_only_default_panel_is_refused(admin_client: Client, roster: Panel) -> None:
    form = panel_form(roster.moderator, name=roster.name, slug=roster.slug) | membership_formset()

    response = admin_client.post(change_url(roster), form)

    assert "Exactly one panel is the default" in response.content.decode()
    roster.refresh_from_db()
    assert roster.is_default


@pytest.fixture
def debate(roster: Panel, admin_user) -> Question:
    question = Question.objects.create(
        panel=roster, owner=admin_user, text="Is P equal to NP?", criticality="high", status=Status.NEEDS_REVIEW
    )
    first = Round.objects.create(question=question, index=0, kind="blind", title="Blind answers")
    Contribution.objects.create(
        round=first,
        seat="0",
        label="Panelist A",
        panelist=roster.roster()[0],
        kind="answer",
        status="done",
        text="<script>alert('owned')</script> Probably not.",
        tokens_in=123,
        tokens_out=4567,
        cost="0.012345",
        latency_ms=8910,
    )
    return question


def test_question_history_lists_status_panel_owner_and_usage(admin_client: Client, debate: Question) -> None:
    page = admin_client.get(reverse("admin:debates_question_changelist")).content.decode()

    for column in ("Status", "Panel", "Owner", "Calls", "Tokens", "Cost", "Created at"):
        assert column in page
    assert "Is P equal to NP?" in page


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("status__exact=needs_review", True),
        ("status__exact=done", False),
        ("q=equal+to+NP", True),
        ("q=riemann", False),
        ("created_at__gte=2000-01-01T00:00:00%2B00:00", True),
        ("created_at__lt=2000-01-01T00:00:00%2B00:00", False),
    ],
)
def test_question_history_filters_and_searches(admin_client: Client, debate: Question, query: str, found: bool) -> None:
    page = admin_client.get(reverse("admin:debates_question_changelist") + "?" + query).content.decode()

    assert ("Is P equal to NP?" in page) is found


def test_question_history_filters_by_panel(admin_client: Client, debate: Question) -> None:
    url = reverse("admin:debates_question_changelist") + f"?panel__id__exact={debate.panel_id}"

    assert "Is P equal to NP?" in admin_client.get(url).content.decode()


def test_a_question_shows_rounds_and_votes_read_only_with_usage(admin_client: Client, debate: Question) -> None:
    page = admin_client.get(change_url(debate)).content.decode()

    assert "Blind answers" in page
    for figure in ("Panelist A", "123", "4567", "0.0123", "8910", "Latency"):
        assert figure in page
    assert "<textarea" not in page
    assert 'name="_save"' not in page


def test_model_output_in_the_history_is_escaped(admin_client: Client, debate: Question) -> None:
    page = admin_client.get(change_url(debate)).content.decode()

    assert "<script>alert" not in page
    assert "&lt;script&gt;alert" in page


def test_history_cannot_be_added_or_edited(admin_client: Client, debate: Question) -> None:
    assert admin_client.get(reverse("admin:debates_question_add")).status_code == 403
    admin_client.post(change_url(debate), {"text": "rewritten", "status": "done"})

    debate.refresh_from_db()
    assert debate.text == "Is P equal to NP?"


def decide(client: Client, question: Question, **extra: str) -> str:
    form = {"action": "record_human_decision", "_selected_action": [question.pk]} | extra
    return client.post(reverse("admin:debates_question_changelist"), form, follow=True).content.decode()


def test_record_human_decision_asks_for_the_decision_first(admin_client: Client, debate: Question) -> None:
    page = decide(admin_client, debate, index="0")

    assert "Record a human decision" in page
    assert 'name="decision"' in page
    debate.refresh_from_db()
    assert debate.status == Status.NEEDS_REVIEW


def test_record_human_decision_stores_who_what_when_and_closes(
    admin_client: Client, admin_user, debate: Question
) -> None:
    page = decide(admin_client, debate, apply="1", decision="No: the panel's doubt stands.")

    debate.refresh_from_db()
    assert "Recorded the decision on 1 question(s)." in page
    assert debate.status == Status.DONE
    assert debate.human_decision == "No: the panel's doubt stands."
    assert debate.human_decided_by == admin_user
    assert debate.human_decided_at is not None


def test_record_human_decision_leaves_questions_not_needing_review(admin_client: Client, debate: Question) -> None:
    Question.objects.filter(pk=debate.pk).update(status=Status.FAILED)

    page = decide(admin_client, debate, apply="1", decision="Yes")

    debate.refresh_from_db()
    assert "None of the selected questions needs human review." in page
    assert (debate.status, debate.human_decision) == (Status.FAILED, "")


def test_a_new_api_token_is_shown_once_and_stored_as_a_digest(admin_client: Client, admin_user) -> None:
    page = admin_client.post(
        reverse("admin:debates_apitoken_add"), {"user": admin_user.pk, "name": "ci"}
    ).content.decode()

    plaintext = re.search(r"<code>(tk_[\w-]+)</code>", page).group(1)
    token = ApiToken.objects.get()
    assert token.digest == hashlib.sha256(plaintext.encode()).hexdigest()
    assert plaintext.startswith(token.prefix)
    assert plaintext not in admin_client.get(change_url(token)).content.decode()
    assert plaintext not in admin_client.get(reverse("admin:debates_apitoken_changelist")).content.decode()


def test_a_panel_names_its_judge_and_the_facilitators_brief_in_the_admin(admin_client: Client, roster: Panel) -> None:
    first, second, third = roster.roster()
    form = panel_form(first, judge=third.pk, facilitator_brief="on") | membership_formset(first.pk, second.pk)
    admin_client.post(reverse("admin:debates_panel_add"), form)
    panel = Panel.objects.get(slug="pair")
    assert (panel.judge, panel.facilitator_brief) == (third, True)
    page = admin_client.get(change_url(panel)).content.decode()
    assert 'name="judge"' in page
    assert "Groups each round" in page  # what the judge does, beside the field
