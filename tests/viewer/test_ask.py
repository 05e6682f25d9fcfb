"""Asking in the web form: every refusal says why; a valid question starts its run."""

import html
import json
import re
from decimal import Decimal

import pytest
from django.conf import settings
from django.urls import reverse

from debates.engine.protocols import call_steps
from debates.models import Contribution, Question, Round
from debates.roster.readiness import PanelOption, judge_calls_of, judge_of, plan_of
from tests.fakes.roster import make_panel


@pytest.fixture
def asker(client, alice):
    client.force_login(alice)
    return client


def ask(client, **fields):
    data = {"text": "Should we shard or add read replicas?", "panel": "offline", "criticality": "medium"} | fields
    return client.post(reverse("debates:ask"), data)


def test_the_form_preselects_the_default_panel_and_shows_what_it_costs(asker, offline_panel):
    page = asker.get("/").content.decode()
    assert 'value="offline" data-protocol="teorema" checked' in page
    assert "3 voices (alpha, beta, gamma)" in page
    assert "9 calls per run" in page  # teorema: 3 + 3 + 1, and the judge after each round of answers
    assert "≈ $" in page
    assert re.search(r'<span class="panel-range">\(\$\d+\.\d{3} to \$\d+\.\d{3}\)</span>', page)  # low to high


def test_a_panel_no_call_of_which_is_billed_says_so_and_shows_no_range(asker, offline_panel):
    from debates.models import Panelist

    Panelist.objects.update(price_in=0, price_out=0, price_search=0)
    page = asker.get("/").content.decode()
    assert "no call is billed" in page
    assert "panel-range" not in page
    assert "$0.000" not in page


def test_a_valid_question_is_created_for_the_asker_and_started(asker, alice, offline_panel, no_runs):
    response = ask(asker, force_panel="on", context="We run Postgres 16.")
    question = Question.objects.get()
    assert response.status_code == 302
    assert response["Location"] == f"/q/{question.pk}/"
    assert (question.owner, question.panel, question.force_panel) == (alice, offline_panel, True)
    assert question.context == "We run Postgres 16."
    assert no_runs == [question]


def test_the_asker_may_ask_for_a_debate_only_where_the_panel_splits(asker, offline_panel, no_runs):
    ask(asker, debate="on_dissent")
    assert Question.objects.get().debate == "on_dissent"
    ask(asker)
    assert Question.objects.order_by("pk").last().debate == ""  # the panel's setting


def test_a_blank_criticality_takes_the_panels_default(asker, offline_panel, no_runs):
    offline_panel.default_criticality = "high"
    offline_panel.save()
    ask(asker, criticality="")
    assert Question.objects.get().criticality == "high"


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": ""}, "Write a question: it is empty."),
        ({"text": "   \n\t  "}, "Write a question: it is empty."),
        ({"panel": "nope"}, "There is no panel “nope”."),
        ({"criticality": "extreme"}, "“extreme” is not a criticality: use low, medium or high."),
        ({"debate": "sometimes"}, "“sometimes” is not a debate setting: use always or on_dissent."),
    ],
)
def test_invalid_input_is_refused_with_a_clear_message(asker, offline_panel, no_runs, fields, message):
    response = ask(asker, **fields)
    assert response.status_code == 400
    assert message in response.content.decode()
    assert not Question.objects.exists()
    assert no_runs == []


def test_a_question_over_the_documented_limit_is_refused(asker, offline_panel, no_runs):
    limit = settings.TEOREMA["MAX_QUESTION_CHARS"]
    response = ask(asker, text="x" * (limit + 1))
    assert f"The question is too long: {limit + 1} characters, the limit is {limit}." in response.content.decode()
    assert ask(asker, text="x" * limit).status_code == 302


def test_a_panel_with_a_disabled_panelist_cannot_be_asked(asker, offline_panel, no_runs):
    member = offline_panel.roster()[1]
    member.enabled = False
    member.save()
    response = ask(asker)
    assert f"{member.name} is disabled" in response.content.decode()
    assert not Question.objects.exists()


def test_a_panel_whose_provider_has_no_key_cannot_be_asked(asker, offline_panel, no_runs):
    provider = offline_panel.moderator.provider
    provider.set_api_key("")
    provider.save()
    response = ask(asker)
    page = response.content.decode()
    assert f"{provider.name} has no key for Alpha offline, Beta offline, Gamma offline, Moderator offline" in page
    # The refusal above the form, the panel's own line, and the box of providers still needing a key.
    assert page.count("no API key is stored for it") == 3
    assert not Question.objects.exists()


def test_a_key_named_by_an_unset_variable_is_refused_naming_the_variable_once(asker, alice, offline_panel, monkeypatch):
    provider = offline_panel.moderator.provider
    provider.api_key_env = "TEOREMA_TEST_UNSET_KEY"
    provider.save()
    monkeypatch.delenv("TEOREMA_TEST_UNSET_KEY", raising=False)
    page = asker.get("/").content.decode()
    # Once on the panel's line (not once per voice), once in the box of providers still needing a key.
    assert page.count("TEOREMA_TEST_UNSET_KEY is not set in the server&#x27;s environment") == 2
    assert "No panel can run yet" in page
    assert "An administrator can add the key." in page
    assert 'value="offline" data-protocol="teorema" checked disabled' in page
    alice.is_staff = True
    alice.save()
    assert f'href="/admin/debates/provider/{provider.pk}/change/"' in asker.get("/").content.decode()


def test_the_form_starts_on_a_panel_that_can_run_when_the_default_cannot(asker, offline_panel, no_runs):
    make_panel("http://127.0.0.1:9/v1", slug="spare")
    offline_panel.is_default = True
    offline_panel.save()
    member = offline_panel.roster()[0]
    member.enabled = False
    member.save()
    page = asker.get("/").content.decode()
    assert 'value="spare" data-protocol="teorema" checked' in page
    assert "No panel can run yet" not in page


def test_an_unknown_panel_is_refused_listing_the_panels(asker, offline_panel, no_runs):
    response = ask(asker, panel="five-voices")
    assert "There is no panel “five-voices”. The panels: offline." in response.content.decode()


def test_submissions_are_rate_limited_per_user(asker, client, bob, offline_panel, no_runs, settings):
    settings.TEOREMA = {**settings.TEOREMA, "QUESTIONS_PER_HOUR": 2}
    assert [ask(asker).status_code for _ in range(2)] == [302, 302]
    refused = ask(asker)
    assert refused.status_code == 429
    assert "You have asked 2 questions in the last hour, the limit." in refused.content.decode()
    assert Question.objects.count() == 2
    client.force_login(bob)
    assert ask(client).status_code == 302  # another user has their own allowance


def test_anonymous_visitors_are_sent_to_sign_in(client, offline_panel):
    for url in ("/", "/history/", "/q/1/"):
        response = client.get(url)
        assert response.status_code == 302
        assert response["Location"].startswith("/accounts/login/")
    assert client.get("/accounts/login/").status_code == 200


def test_each_panel_says_how_long_a_run_takes_a_guess_until_its_voices_have_run(asker, offline_panel, no_runs):
    page = asker.get("/").content.decode()
    assert "about 2 min (a guess)" in page  # 2 panel steps x 25 s + the judge's 2 and the moderator's 1 x 25 s
    make_question_with_latencies(offline_panel, seconds=6)
    page = asker.get("/").content.decode()
    assert "about 30 s</span>" in page  # 5 steps of 6 s each, measured
    assert "(a guess)" not in page


def make_question_with_latencies(panel, seconds: float) -> Question:
    """A finished run whose every call took ``seconds``."""
    question = Question.objects.create(panel=panel, text="Done before?", criticality="low", status="done")
    round_ = Round.objects.create(question=question, index=0, kind="answer", title="Round 0")
    for i, voice in enumerate([*panel.roster(), panel.moderator]):
        Contribution.objects.create(
            round=round_,
            seat=f"p{i}",
            label=f"Panelist {i}",
            panelist=voice,
            kind="answer",
            status="done",
            latency_ms=int(seconds * 1000),
        )
    return question


def test_the_estimate_counts_the_judges_calls_at_the_judges_price(asker, offline_panel):
    from debates.models import Panelist
    from debates.roster.estimate import call_cost
    from debates.roster.readiness import PanelOption

    before = PanelOption.of(offline_panel)
    prices = {"price_in": Decimal("30"), "price_out": Decimal("60")}
    provider = offline_panel.moderator.provider
    judge = Panelist.objects.create(name="Dear judge", provider=provider, model="model-judge", family="omega", **prices)
    offline_panel.judge = judge
    offline_panel.save()
    after = PanelOption.of(offline_panel)
    assert after.calls == before.calls == 9
    assert after.cost - before.cost == 2 * (call_cost(judge) - call_cost(offline_panel.moderator))


def test_a_judge_on_a_small_model_plans_no_judge_call_and_a_keyless_judge_stops_the_panel(asker, offline_panel):
    from debates.models import Panelist, Provider
    from debates.roster.readiness import PanelOption

    keyless = Provider.objects.create(name="No key", wire="openai", base_url="http://127.0.0.1:9/v1")
    offline_panel.judge = Panelist.objects.create(name="Tiny", provider=keyless, model="qwen2.5:1.5b", family="qwen")
    offline_panel.save()
    option = PanelOption.of(offline_panel)
    assert option.calls == 3 + 3 + 1  # its grouping would be noise: the answers are grouped by wording
    assert option.problems == ["No key has no key for Tiny: no API key is stored for it"]


@pytest.mark.parametrize("field", ["text", "context", "options", "panel"])
def test_a_nul_in_any_field_is_refused_in_words_and_spends_none_of_the_hours_questions(
    asker, offline_panel, no_runs, settings, field
):
    settings.TEOREMA = {**settings.TEOREMA, "QUESTIONS_PER_HOUR": 1}
    response = ask(asker, **{field: "Shard\x00"})
    assert response.status_code == 400
    page = response.content.decode()
    assert "It holds a NUL character (\\x00), which is not text: remove it." in page
    assert "\x00" not in page  # what is shown again is what can be shown
    assert not Question.objects.exists()
    assert ask(asker).status_code == 302


def test_each_panel_says_what_a_token_of_a_file_costs_its_run(client, alice, panel):
    """The ask page's estimate of what attached files add (attach.js reads these rates)."""
    client.force_login(alice)
    page = client.get("/").content.decode()
    found = re.search(r'data-file-rates="([^"]+)"', page)
    assert found is not None
    rates = json.loads(html.unescape(found[1]))
    option = PanelOption.of(panel)
    assert rates == option.file_rates
    steps = plan_of(panel)
    per_voice, moderator_calls = call_steps(steps, judging=False)
    judge = (judge_of(panel), judge_calls_of(panel, steps))
    readers = [*((p, per_voice) for p in panel.roster()), (panel.moderator, moderator_calls), judge]
    assert judge[1] > 0  # the judge's calls carry the files too
    assert rates["calls"] == sum(calls for _p, calls in readers)
    assert rates["text"] == pytest.approx(float(sum(calls * p.price_in for p, calls in readers)) / 1_000_000)
    seeing = [(p, calls) for p, calls in readers if p.sight().vision]
    assert rates["image"] == pytest.approx(float(sum(calls * p.price_in for p, calls in seeing)) / 1_000_000)
