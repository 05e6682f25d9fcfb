"""Follow-ups and re-asking, through the page, the API and the CLI; History groups a thread."""

import json

import pytest
from django.core.management import CommandError, call_command

from debates.models import Question, Synthesis
from tests.fakes.provider_server import Script
from tests.viewer.test_api import bearer, post

VERDICT = "Add read replicas first; shard only if writes triple."
DISAGREEMENTS = "Panelist B holds that replicas cost more than the lag is worth (DISPUTE-ON-COST)."
CONTESTED = "Replica lag stays under one second at our write rate (CONTESTED-CLAIM)."
LEDGER = {
    "claims": [
        {"id": "A1", "author": "Panelist A", "text": CONTESTED, "status": "contested"},
        {
            "id": "B1",
            "author": "Panelist B",
            "text": "Reads are 90% of the load (STANDING-CLAIM).",
            "status": "standing",
        },
    ]
}


@pytest.fixture
def answered(alice, offline_panel, make_question) -> Question:
    """Alice's finished question, with a synthesis whose sections the follow-up's brief reads."""
    question = make_question(alice, offline_panel, status="done", verdict=VERDICT, ledger=LEDGER)
    sections = [["Consensus", "Reads dominate."], ["Disagreements", DISAGREEMENTS], ["Verdict", VERDICT]]
    Synthesis.objects.create(question=question, text="…", sections=sections)
    return question


def follow_up(client, question: Question, text: str = "And if writes triple next year?", **fields):
    return client.post(f"/q/{question.pk}/follow-up/", {"text": text, "panel": "offline", **fields})


# --- the page -------------------------------------------------------------------------------
def test_a_follow_up_asked_under_the_verdict_joins_the_thread(client, alice, answered, no_runs):
    client.force_login(alice)
    page = client.get(answered.get_absolute_url()).content.decode()
    assert f'action="/q/{answered.pk}/follow-up/"' in page
    response = follow_up(client, answered)
    later = Question.objects.get(parent=answered)
    assert response["Location"] == later.get_absolute_url()
    assert (later.root, later.owner, later.text, no_runs) == (
        answered,
        alice,
        "And if writes triple next year?",
        [later],
    )

    page = client.get(later.get_absolute_url()).content.decode()
    assert "Earlier in this thread" in page
    assert f'href="{answered.get_absolute_url()}"' in page
    assert "Add read replicas first" in page  # the earlier verdict, above the question
    assert "And if writes triple next year?" in client.get(answered.get_absolute_url()).content.decode()


def test_a_follow_up_of_a_follow_up_stays_in_the_first_questions_thread(client, alice, answered, no_runs):
    client.force_login(alice)
    follow_up(client, answered)
    second = Question.objects.get(parent=answered)
    Question.objects.filter(pk=second.pk).update(status="done", verdict="Then shard by tenant.")
    follow_up(client, second, "Which tenant key?")
    third = Question.objects.get(parent=second)
    assert third.root == answered
    page = client.get(third.get_absolute_url()).content.decode().partition("<main>")[2]
    assert page.index("Add read replicas first") < page.index("Then shard by tenant.") < page.index("Which tenant key?")


def test_a_follow_up_of_another_users_private_question_does_not_exist_for_them(client, bob, answered, no_runs):
    client.force_login(bob)
    assert follow_up(client, answered).status_code == 404
    response = post(client, {"text": "And then?", "follow_up_of": answered.pk}, **bearer(bob))
    assert response.status_code == 400
    assert response.json()["fields"] == {"follow_up_of": [f"There is no question {answered.pk} that you can see."]}
    assert not no_runs


def test_a_shared_question_may_be_followed_up_by_another_user(client, bob, answered, no_runs):
    Question.objects.filter(pk=answered.pk).update(visibility="users")
    client.force_login(bob)
    follow_up(client, answered)
    later = Question.objects.get(parent=answered)
    assert (later.owner, later.visibility) == (bob, "private")  # bob's own question, private to him


@pytest.mark.parametrize(
    ("status", "words"),
    [
        ("running", "has not finished yet: ask the follow-up once its verdict is in."),
        ("failed", "ended without a verdict (failed): ask it again instead of following it up."),
        ("cancelled", "ended without a verdict (cancelled): ask it again instead of following it up."),
    ],
)
def test_a_follow_up_needs_a_verdict_to_follow(client, alice, answered, no_runs, status, words):
    Question.objects.filter(pk=answered.pk).update(status=status)
    client.force_login(alice)
    response = follow_up(client, answered, "Keep the text I typed")
    assert response.status_code == 400
    page = response.content.decode()
    assert f"Question {answered.pk} {words}" in page
    assert "Keep the text I typed" in page  # what the asker typed is not lost
    api = post(client, {"text": "And then?", "follow_up_of": answered.pk}, **bearer(answered.owner))
    assert api.json()["fields"]["follow_up_of"] == [f"Question {answered.pk} {words}"]
    assert not no_runs


def test_a_run_that_ended_with_no_verdict_is_not_followed_up_nor_offered_a_follow_up(client, alice, answered, no_runs):
    """Issue 50: a done run whose moderator stated no verdict was accepted; docs/viewer.md says a verdict."""
    Question.objects.filter(pk=answered.pk).update(status="done", verdict="")
    client.force_login(alice)
    assert 'id="follow-up"' not in client.get(answered.get_absolute_url()).content.decode()
    response = follow_up(client, answered, "And then?")
    assert response.status_code == 400
    words = f"Question {answered.pk} ended without a verdict: ask it again instead of following it up."
    assert words in response.content.decode()
    assert not no_runs


def test_an_empty_follow_up_is_refused_in_words(client, alice, answered, no_runs):
    client.force_login(alice)
    response = follow_up(client, answered, "  ")
    assert response.status_code == 400
    assert "Write a question: it is empty." in response.content.decode()


def test_a_follow_up_holding_a_nul_is_refused_in_words_before_the_hours_limit_is_spent(
    client, alice, answered, no_runs, settings
):
    settings.TEOREMA = {**settings.TEOREMA, "QUESTIONS_PER_HOUR": 1}
    client.force_login(alice)
    response = follow_up(client, answered, "And if writes\x00 triple?")
    assert response.status_code == 400
    assert "It holds a NUL character (\\x00), which is not text: remove it." in response.content.decode()
    assert no_runs == []
    assert follow_up(client, answered).status_code == 302


def test_the_follow_up_form_is_offered_only_where_a_verdict_can_be_followed(client, alice, answered):
    client.force_login(alice)
    Question.objects.filter(pk=answered.pk).update(status="running")
    running = client.get(answered.get_absolute_url()).content.decode()
    assert 'class="followup after-run"' in running  # hidden by the stylesheet until the final swap
    Question.objects.filter(pk=answered.pk).update(status="failed")
    assert "Ask a follow-up" not in client.get(answered.get_absolute_url()).content.decode()


# --- the API and the CLI -----------------------------------------------------------------------
def test_the_api_follows_up_by_number_and_says_so(client, alice, answered, no_runs):
    token = bearer(alice)
    response = post(client, {"text": "And if writes triple?", "follow_up_of": answered.pk}, **token)
    assert response.status_code == 201
    later = Question.objects.get(pk=response.json()["id"])
    assert (later.parent, later.root, later.panel) == (answered, answered, answered.panel)  # its panel by default
    body = client.get(f"/api/questions/{later.pk}", **token).json()
    assert (body["follow_up_of"], body["reask_of"], body["visibility"]) == (answered.pk, None, "private")


@pytest.mark.parametrize(("value", "words"), [("7", "not a string"), (True, "not true or false"), (1.5, "a number")])
def test_the_api_takes_follow_up_of_only_as_a_number(client, alice, answered, no_runs, value, words):
    response = post(client, {"text": "And then?", "follow_up_of": value}, **bearer(alice))
    assert response.status_code == 400
    [message] = response.json()["fields"]["follow_up_of"]
    assert message.startswith("Must be a question's number")
    assert words in message


def test_the_cli_refuses_a_follow_up_its_user_cannot_see(answered, bob):
    with pytest.raises(CommandError, match=f"There is no question {answered.pk} that you can see."):
        call_command("ask", "And then?", "--follow-up", str(answered.pk), "--user", "bob")


@pytest.mark.django_db(transaction=True)
def test_a_follow_ups_blind_round_gets_the_verdict_and_disputes_and_none_of_its_own_answers(fake_provider, panel):
    """End to end on the fake provider server: the request log is what the panel was told."""
    for number, family in enumerate(("alpha", "beta", "gamma")):
        fake_provider.script(
            f"model-{family}",
            lambda request, number=number: (
                f"SECOND-{number} shard by tenant."
                if "FOLLOW-UP-TEXT" in request.prompt
                else f"FIRST-{number} add read replicas."
            ),
        )
    synthesis = f"## Consensus\nReplicas.\n\n## Disagreements\n{DISAGREEMENTS}\n\n## Verdict\n{VERDICT}"
    fake_provider.script("model-moderator", Script(answer=synthesis))
    call_command("ask", "Replicas or sharding?", "--panel", "house")
    first = Question.objects.get()
    assert first.status == "done"
    Question.objects.filter(pk=first.pk).update(ledger=LEDGER)
    asked_before = len(fake_provider.requests)

    call_command("ask", "FOLLOW-UP-TEXT: and if writes triple?", "--follow-up", str(first.pk))
    later = Question.objects.exclude(pk=first.pk).get()
    assert (later.parent, later.status) == (first, "done")
    own = fake_provider.requests[asked_before:]
    blind = [r for r in own if "Answer the question on your own" in r.prompt]
    assert len(blind) == 3
    for request in blind:
        assert "FOLLOW-UP-TEXT: and if writes triple?" in request.prompt
        assert "Replicas or sharding?" in request.prompt  # the earlier question
        assert VERDICT in request.prompt
        assert "DISPUTE-ON-COST" in request.prompt
        assert "CONTESTED-CLAIM" in request.prompt
        assert "STANDING-CLAIM" not in request.prompt  # only what stayed disputed
        assert "SECOND-" not in request.prompt  # blind: no answer of this round
        assert "FIRST-" not in request.prompt  # nor the earlier round's answers: only its verdict and disputes
    assert any("SECOND-0" in r.prompt for r in own if r.model == "model-moderator")  # the answers exist


# --- re-asking --------------------------------------------------------------------------------
@pytest.fixture
def second_panel(db, offline_panel):
    from tests.fakes.roster import make_panel

    return make_panel("http://127.0.0.1:9/v1", slug="other")


def test_ask_again_puts_the_same_question_to_another_panel(client, alice, answered, second_panel, no_runs):
    Question.objects.filter(pk=answered.pk).update(
        context="Postgres 16, 2 TB.", options=["Replicas", "Sharding"], criticality="high", force_panel=True
    )
    client.force_login(alice)
    page = client.get(answered.get_absolute_url()).content.decode()
    assert '<option value="other" selected>' in page  # another panel, one click away
    response = client.post(f"/q/{answered.pk}/ask-again/", {"panel": "other"})
    again = Question.objects.get(reask_of=answered)
    assert response["Location"] == again.get_absolute_url()
    same = ("Shard or replicate?", "Postgres 16, 2 TB.", ["Replicas", "Sharding"], "high", True)
    assert (again.text, again.context, again.options, again.criticality, again.force_panel) == same
    assert (again.panel, again.parent, no_runs) == (second_panel, None, [again])  # not a follow-up
    assert "asked again on another panel" in client.get(again.get_absolute_url()).content.decode()
    assert (
        f'href="{again.get_absolute_url()}">Panel other</a>' in client.get(answered.get_absolute_url()).content.decode()
    )


def test_ask_again_on_a_panel_that_cannot_run_is_refused_in_words(client, alice, answered, second_panel, no_runs):
    second_panel.moderator.enabled = False
    second_panel.moderator.save()
    client.force_login(alice)
    response = client.post(f"/q/{answered.pk}/ask-again/", {"panel": "other"})
    assert response.status_code == 400
    assert "The panel “Panel other” cannot run: Moderator other is disabled." in response.content.decode()
    assert not no_runs


# --- History ----------------------------------------------------------------------------------
def test_history_shows_a_thread_as_one_row_with_its_follow_ups(client, alice, answered, make_question):
    make_question(alice, answered.panel, text="Which tenant key?", parent=answered, root=answered)
    make_question(alice, answered.panel, text="And the backups?", parent=answered, root=answered)
    make_question(alice, answered.panel, text="A question of its own")
    client.force_login(alice)
    page = client.get("/history/").content.decode()
    assert page.count('<td class="question">') == 2
    assert "2 follow-ups" in page
    assert page.index("Shard or replicate?") < page.index("Which tenant key?") < page.index("And the backups?")


def test_history_says_on_the_row_why_a_question_failed(client, alice, offline_panel, make_question):
    error = "Panelist B failed: Anthropic rejected the key (401)."
    make_question(alice, offline_panel, status="failed", error=error)
    client.force_login(alice)
    page = client.get("/history/").content.decode()
    assert f'<span class="failure" title="{error}">{error}</span>' in page


def test_history_says_each_questions_agreement_as_the_run_page_does(client, alice, offline_panel, make_question):
    """Issue 50: History had no agreement column."""
    members = [{"label": label, "reservation": ""} for label in ("Panelist A", "Panelist B")]
    grouping = {
        "method": "judge",
        "groups": [
            {"answer": "Shard", "members": members},
            {"answer": "Replicate", "members": [{"label": "Panelist C", "reservation": ""}]},
        ],
    }
    split = make_question(alice, offline_panel, status="done", verdict="Shard.", ledger={"agreement": grouping})
    make_question(alice, offline_panel, status="failed", text="Nothing grouped")
    client.force_login(alice)
    page = client.get("/history/").content.decode()
    assert "<th>Agreement</th>" in page
    assert '<td class="agreement-cell">majority 2/3</td>' in page
    assert '<td class="agreement-cell absent">—</td>' in page
    shown = client.get(split.get_absolute_url()).content.decode()
    assert "majority 2/3" in shown  # the run page's own words


def test_the_api_and_history_agree_on_who_sees_a_follow_up(client, alice, bob, answered, make_question):
    hidden = make_question(alice, answered.panel, text="Alice's private follow-up", parent=answered, root=answered)
    Question.objects.filter(pk=answered.pk).update(visibility="users")
    client.force_login(bob)
    page = client.get("/history/").content.decode()
    assert "Shard or replicate?" in page
    assert "Alice's private follow-up" not in page
    assert "follow-up" not in page
    refused = json.loads(client.get(f"/api/questions/{hidden.pk}").content)["error"]
    assert refused == f"There is no question {hidden.pk} that you can see."
