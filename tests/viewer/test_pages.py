"""The question page, cancelling and the history, as their users see them."""

import pytest
from django.urls import reverse

from debates.models import Contribution, Round, Synthesis


@pytest.fixture
def finished(alice, offline_panel, make_question):
    question = make_question(
        alice,
        offline_panel,
        status="done",
        verdict="Add read replicas first.",
        roster=[
            {
                "seat": "p1",
                "label": "Panelist A",
                "name": "Alpha house",
                "model": "model-alpha",
                "family": "alpha",
                "provider": "Fake house",
                "method": "none",
            }
        ],
        consensus={
            "reached": True,
            "decision": "replicas",
            "agreement": "3/4",
            "agreement_ratio": 0.75,
            "threshold": "2/3",
            "threshold_ratio": 0.6667,
            "groups": [],
            "escalation": "",
        },
    )
    answer = Round.objects.create(question=question, index=0, kind="answer", title="Round 0", status="done")
    Contribution.objects.create(
        round=answer, seat="p1", label="Panelist A", kind="answer", status="done", text="**Replicas.**"
    )
    Synthesis.objects.create(question=question, text="…", sections=[["Agreement", "Replicas."], ["Conflicts", "None."]])
    return question


def test_a_running_question_opens_its_live_socket(client, alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="running")
    client.force_login(alice)
    page = client.get(question.get_absolute_url()).content.decode()
    assert f'ws-connect="/ws/questions/{question.pk}/"' in page
    assert "Cancel debate" in page


def test_a_finished_question_is_the_same_page_without_the_live_part(client, alice, finished):
    client.force_login(alice)
    page = client.get(finished.get_absolute_url()).content.decode()
    assert "ws-connect" not in page
    assert "Cancel debate" not in page
    assert "<strong>Replicas.</strong>" in page  # the finished vote, rendered
    assert "<h3>Agreement</h3>" in page
    assert "<h3>Conflicts</h3>" in page
    assert "Add read replicas first." in page
    assert "Who was who" in page
    assert "model-alpha" in page
    assert 'class="meter t-23"' in page
    assert "reached" in page


def test_a_failed_run_says_why(client, alice, offline_panel, make_question):
    question = make_question(
        alice, offline_panel, status="failed", error="Panelist B failed: Anthropic rejected the key (401)."
    )
    client.force_login(alice)
    page = client.get(question.get_absolute_url()).content.decode()
    assert "The debate failed." in page
    assert "Anthropic rejected the key (401)." in page


def test_another_users_private_question_does_not_exist_for_them(client, bob, finished):
    client.force_login(bob)
    assert client.get(finished.get_absolute_url()).status_code == 404
    finished.visibility = "users"
    finished.save()
    assert client.get(finished.get_absolute_url()).status_code == 200


def test_the_asker_can_cancel_a_running_debate(client, alice, bob, offline_panel, make_question, monkeypatch):
    cancelled = []
    monkeypatch.setattr("debates.runs.execute.cancel", cancelled.append)
    question = make_question(alice, offline_panel, status="running", visibility="users")
    url = reverse("debates:cancel", args=[question.pk])
    client.force_login(bob)
    assert client.post(url).status_code == 404  # a viewer is not the asker
    client.force_login(alice)
    assert client.get(url).status_code == 405
    assert client.post(url)["Location"] == question.get_absolute_url()
    assert cancelled == [question.pk]


def test_history_lists_own_and_shared_questions_with_search_and_pages(client, alice, bob, offline_panel, make_question):
    for i in range(23):
        make_question(alice, offline_panel, text=f"Question number {i}", status="done", verdict=f"Verdict {i}")
    make_question(bob, offline_panel, text="Bobs private worry")
    make_question(bob, offline_panel, text="Bobs shared worry", visibility="users")
    client.force_login(alice)
    first = client.get("/history/").content.decode()
    assert "Bobs shared worry" in first
    assert "Bobs private worry" not in first
    assert "Page 1 of 2" in first
    assert "Question number 22" in client.get("/history/?q=number 22").content.decode()
    assert "Question number 3" not in client.get("/history/?q=number 22").content.decode()
    assert "Question number 0" in client.get("/history/?page=2").content.decode()
    assert "No question matches." in client.get("/history/?status=failed").content.decode()
