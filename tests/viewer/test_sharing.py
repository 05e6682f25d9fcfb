"""Who may read a question: private, shared with signed-in users, or a read-only link; and the
exports of a whole debate, under the same rules."""

import importlib
import json
from decimal import Decimal

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from debates.models import Contribution, Question, Round, Synthesis, VerdictOutcome
from tests.fakes.roster import API_KEY
from tests.viewer.test_api import bearer

MIGRATION = "0008_threads_and_sharing"


@pytest.fixture
def debated(alice, offline_panel, make_question) -> Question:
    """Alice's finished debate: a round, a ledger, a synthesis, who was who, and what it cost."""
    alpha = offline_panel.roster()[0]
    roster = [
        {
            "seat": "p1",
            "label": "Panelist A",
            "panelist_id": alpha.pk,
            "name": "Alpha offline",
            "model": "model-alpha",
            "family": "alpha",
            "provider": "Fake offline",
            "method": "none",
        }
    ]
    ledger = {
        "claims": [{"id": "A1", "author": "Panelist A", "text": "Reads are 90% | of the load.", "status": "standing"}]
    }
    question = make_question(
        alice,
        offline_panel,
        status="done",
        verdict="Add read replicas.",
        roster=roster,
        ledger=ledger,
        calls=2,
        tokens_in=300,
        tokens_out=120,
        cost=Decimal("0.123456"),
        context="Postgres 16.",
    )
    answer = Round.objects.create(question=question, index=0, kind="answer", title="Round 0 — answers", status="done")
    Contribution.objects.create(
        round=answer,
        seat="p1",
        label="Panelist A",
        kind="answer",
        status="done",
        text="Replicas, because reads.",
        tokens_in=150,
        tokens_out=60,
        cost=Decimal("0.061728"),
    )
    sections = [["Consensus", "Reads dominate."], ["Disagreements", "None lasting."], ["Verdict", "Replicas."]]
    Synthesis.objects.create(question=question, text="…", sections=sections, evidence_strength="weak")
    return question


def share(client, question: Question, visibility: str, **fields):
    return client.post(f"/q/{question.pk}/share/", {"visibility": visibility, **fields})


def link_of(question: Question) -> str:
    question.refresh_from_db()
    return f"/s/{question.share_token}/"


# --- visibility -------------------------------------------------------------------------------
def test_a_question_is_private_until_its_asker_shares_it_with_signed_in_users(client, alice, bob, debated):
    client.force_login(bob)
    assert client.get(debated.get_absolute_url()).status_code == 404
    assert "Shard or replicate?" not in client.get("/history/").content.decode()
    client.force_login(alice)
    response = share(client, debated, "users")
    assert response["Location"] == debated.get_absolute_url()
    assert "Shared with every signed-in user" in client.get(response["Location"]).content.decode()
    client.force_login(bob)
    assert client.get(debated.get_absolute_url()).status_code == 200
    assert "Shard or replicate?" in client.get("/history/").content.decode()
    assert f'action="/q/{debated.pk}/share/"' not in client.get(debated.get_absolute_url()).content.decode()


def test_only_the_asker_or_staff_change_who_may_read(client, alice, bob, debated):
    Question.objects.filter(pk=debated.pk).update(visibility="users")
    client.force_login(bob)
    assert share(client, debated, "link").status_code == 404
    assert (
        client.post(
            f"/api/questions/{debated.pk}/share", {"visibility": "link"}, content_type="application/json", **bearer(bob)
        ).status_code
        == 404
    )
    bob.is_staff = True
    bob.save()
    assert share(client, debated, "private").status_code == 302


def test_a_wrong_visibility_is_refused_in_words(client, alice, debated):
    client.force_login(alice)
    response = share(client, debated, "public")
    assert response.status_code == 400
    assert "“public” is not a visibility: use private, users or link." in response.content.decode()
    api = client.post(
        f"/api/questions/{debated.pk}/share",
        {"visibility": "public", "hide_cost": "yes"},
        content_type="application/json",
        **bearer(alice),
    )
    assert api.status_code == 400
    assert api.json()["fields"] == {"hide_cost": ["Must be true or false, not a string."]}
    api = client.post(
        f"/api/questions/{debated.pk}/share", {"visibility": "public"}, content_type="application/json", **bearer(alice)
    )
    assert api.json()["fields"] == {"visibility": ["“public” is not a visibility: use private, users or link."]}
    assert Question.objects.get(pk=debated.pk).visibility == "private"


# --- the read-only link -----------------------------------------------------------------------
def test_a_link_opens_the_debate_read_only_to_anyone_without_the_askers_name(client, alice, debated):
    client.force_login(alice)
    share(client, debated, "link")
    link = link_of(debated)
    assert len(debated.share_token) >= 32
    stranger = Client()
    page = stranger.get(link)
    assert page.status_code == 200
    assert page["X-Robots-Tag"] == "noindex, nofollow"
    body = page.content.decode()
    for part in ("Replicas, because reads.", "Add read replicas.", "Who was who"):
        assert part in body
    assert "alice" not in body
    assert "<form" not in body  # no follow-up, share, re-ask, or sign-out form
    assert API_KEY not in body
    assert "$0.1235" in body  # the cost, since the asker did not hide it
    assert stranger.get(debated.get_absolute_url()).status_code == 302  # the page itself still needs a login
    assert stranger.get(f"/api/questions/{debated.pk}").status_code == 401


def test_a_link_with_the_cost_hidden_shows_no_cost_anywhere(client, alice, debated):
    debated.max_cost = Decimal("0.50")  # the asker's cap is a cost figure too
    debated.save(update_fields=["max_cost"])
    client.force_login(alice)
    share(client, debated, "link", hide_cost="on")
    link = link_of(debated)
    stranger = Client()
    body = stranger.get(link).content.decode().partition("<main>")[2]
    assert "$" not in body
    assert "0.12" not in body
    assert "0.06" not in body
    exported = stranger.get(f"{link}export.json").json()
    assert "cost" not in json.dumps(exported)
    assert exported["rounds"][0]["contributions"][0]["text"] == "Replicas, because reads."
    assert "$" not in stranger.get(f"{link}export.md").content.decode()
    assert "$0.1235" in client.get(debated.get_absolute_url()).content.decode()  # the asker still sees it


def test_a_revoked_link_opens_nothing_and_a_new_link_replaces_the_old(client, alice, debated):
    client.force_login(alice)
    share(client, debated, "link")
    first = link_of(debated)
    stranger = Client()
    assert stranger.get(first).status_code == 200
    share(client, debated, "private")
    assert stranger.get(first).status_code == 404
    assert stranger.get(f"{first}export.md").status_code == 404
    share(client, debated, "link")
    second = link_of(debated)
    assert second != first
    share(client, debated, "link", new_link="on")
    third = link_of(debated)
    assert third != second
    assert stranger.get(second).status_code == 404
    assert stranger.get(third).status_code == 200
    assert stranger.get("/s/made-up-token-of-the-right-length-000/").status_code == 404


def test_the_api_shares_and_answers_with_the_link(client, alice, debated):
    token = bearer(alice)
    response = client.post(
        f"/api/questions/{debated.pk}/share",
        {"visibility": "link", "hide_cost": True},
        content_type="application/json",
        **token,
    )
    assert response.status_code == 200
    body = response.json()
    debated.refresh_from_db()
    assert body == {
        "id": debated.pk,
        "visibility": "link",
        "hide_cost": True,
        "share_url": f"http://testserver/s/{debated.share_token}/",
    }
    revoked = client.post(
        f"/api/questions/{debated.pk}/share", {"visibility": "users"}, content_type="application/json", **token
    ).json()
    assert (revoked["share_url"], revoked["hide_cost"]) == (None, True)  # a field left out stays as it was


def test_a_link_shows_only_the_thread_that_is_shared_by_link(client, alice, debated, make_question):
    later = make_question(alice, debated.panel, text="And the backups?", status="done", parent=debated, root=debated)
    client.force_login(alice)
    share(client, later, "link")
    body = Client().get(link_of(later)).content.decode()
    assert "An earlier question that is not open to you." in body
    assert "Shard or replicate?" not in body.partition("<main>")[2]
    share(client, debated, "link")
    body = Client().get(link_of(later)).content.decode()
    assert f'href="{link_of(debated)}"' in body


# --- exports ----------------------------------------------------------------------------------
def test_the_json_export_is_the_apis_debate_with_its_thread(client, alice, debated):
    client.force_login(alice)
    response = client.get(f"/q/{debated.pk}/export.json")
    assert response["Content-Disposition"] == f'attachment; filename="teorema-question-{debated.pk}.json"'
    exported = json.loads(response.content)
    api = client.get(f"/api/questions/{debated.pk}").json()
    assert exported == api | {"thread": [], "human_decision": "", "outcome": None}
    assert exported["cost"] == "0.123456"


def test_the_markdown_export_reads_as_the_whole_debate(client, alice, debated, make_question):
    later = make_question(alice, debated.panel, text="And the backups?", parent=debated, root=debated)
    client.force_login(alice)
    text = client.get(f"/q/{later.pk}/export.md").content.decode()
    assert "## Earlier in this thread" in text
    assert f"1. [Shard or replicate?](http://testserver/q/{debated.pk}/) — verdict: Add read replicas." in text
    text = client.get(f"/q/{debated.pk}/export.md").content.decode()
    parts = [
        "## Question\n\nShard or replicate?",
        "## Context\n\nPostgres 16.",
        "## Verdict\n\nAdd read replicas.",
        "### Panelist A (Alpha offline)",
        "Replicas, because reads.",
        "| A1 | Panelist A |  |  | standing | Reads are 90% \\| of the load. |  |",
        "## Synthesis\n\n### Consensus",
        "### Disagreements\n\nNone lasting.",
        "| Panelist A | Alpha offline | model-alpha |",
        "2 calls · 420 tokens in + out · $0.1235",  # in the wording every channel prints
    ]
    for part in parts:
        assert part in text


@pytest.fixture
def evidenced(alice, debated) -> Question:
    """The debated question with everything the page shows: the moderator's confidence and stances,
    a ledger of two voices, a vote's consensus, the panel's disclosures, a recorded outcome, and
    model text with headings of its own (one in a code fence, one setext)."""
    Question.objects.filter(pk=debated.pk).update(
        ledger={
            "labels": ["Panelist A", "Panelist B"],
            "claims": [
                {
                    "id": "A1",
                    "author": "Panelist A",
                    "text": "Reads are 90% of the load.",
                    "kind": "fact",
                    "confidence": 0.8,
                    "falsifier": "the query log shows writes over 20%",
                    "status": "contested",
                    "cells": {"Panelist A": {"start": "claimed", "end": "defended"}, "Panelist B": {"end": "attacked"}},
                }
            ],
            "events": [
                {
                    "target": "A1",
                    "by": "Panelist B",
                    "what": "attacked",
                    "kind": "refute",
                    "reason": "Nightly ETL writes.",
                }
            ],
            "stances": {
                "Panelist A": {"stance": "agrees", "why": "same answer"},
                "Panelist B": {"stance": "disagrees", "why": "shard"},
            },
            "emerging": "Add read replicas",
            "agreement": {"method": "judge", "notes": ["Shard and replicate kept apart."]},
        },
        consensus={
            "agreement": "1/2",
            "threshold": "2/3",
            "reached": False,
            "decision": "",
            "groups": [
                {"decision": "Replicas", "labels": ["Panelist A"]},
                {"decision": "Shard", "labels": ["Panelist B"]},
            ],
            "escalation": "tie_breaker",
            "tie_breaker": {"decision": "Replicas", "reasoning": "cheaper first"},
            "votes": 2,
            "seats": 3,
            "notes": ["Panelist C failed and did not vote."],
        },
        panel_run={
            "voices": [
                {"label": "Panelist A", "method": "outside_view", "status": "active"},
                {"label": "Panelist C", "method": "none", "status": "dropped: timed out"},
            ],
            "heterogeneity": "families",
            "evidence": "strong",
            "note": "2 model families.",
            "degradations": ["Panelist C dropped after two failures."],
            "debate": {"skipped": False, "reason": "the blind answers split", "contested": ["A1"]},
            "brief": "# Brief\nCheck the load first.",
        },
    )
    Synthesis.objects.filter(question=debated).update(
        confidence=0.72,
        stances={"Panelist B": "partly"},
        sections=[
            ["Consensus", "# Our view\n\nReads dominate.\n\n```sh\n# not a heading\n```"],
            ["Verdict", "Replicas."],
        ],
    )
    Contribution.objects.filter(round__question=debated).update(
        text="Title\n=====\n\n## Why\n\n```python\n# keep me\n```\n\nReplicas.", confidence=0.9, flags=["no attack"]
    )
    VerdictOutcome.objects.create(question=debated, value="right", note="Replicas held the load.", marked_by=alice)
    return debated


def test_the_markdown_export_holds_everything_the_page_shows(client, alice, evidenced):
    client.force_login(alice)
    text = client.get(f"/q/{evidenced.pk}/export.md").content.decode()
    parts = [
        "## Verdict\n\nAdd read replicas.\n\n*no majority 1/2 · confidence 0.72*",  # the vote's count, as on the page
        "## Consensus\n\nAgreement 1/2 against the threshold 2/3: not reached.\n"
        "Counted on the 2 votes cast of 3 voters.",
        "- **Replicas** — Panelist A",
        "Escalated to the tie-breaker, which decided Replicas: cheaper first",
        "Panelist C failed and did not vote.",
        "## The panel that ran",
        "### The facilitator's brief\n\n#### Brief\nCheck the load first.",
        "- Panelist A (outside view)",
        "- Panelist C — dropped: timed out",
        "Heterogeneity: families — 2 model families.",
        "**Debate:** the blind answers split. The one claim was not shared, and debated.",
        "- Panelist C dropped after two failures.",
        "## Where the panel stands\n\n**Emerging answer:** Add read replicas",
        "Grouped by meaning by the panel's judge",
        "- Shard and replicate kept apart.",
        "- Panelist A (Alpha offline): ✓ agrees — same answer",
        "- Panelist B: ✗ disagrees — shard (the moderator reads it otherwise: agrees in part)",
        "| Claim | By | Kind | Confidence | Status | Text | Falsified if | Panelist A | Panelist B |",
        "| A1 | Panelist A | fact | 80% | contested | Reads are 90% of the load. | the query log shows writes over 20% "
        "| claimed → defended | nothing said → attacked |",
        "- A1: Panelist B attacked (refute): Nightly ETL writes.",
        "*answer · done · 150 in + 60 out tokens · $0.061728 · confidence 0.90*",
        "**Flags:** no attack",
        "## Did the verdict hold?\n\n**right**, judged by alice on ",
        "Replicas held the load.",
    ]
    for part in parts:
        assert part in text


def test_model_headings_sit_below_the_exports_own_and_a_fenced_hash_stays_code(client, alice, evidenced):
    client.force_login(alice)
    text = client.get(f"/q/{evidenced.pk}/export.md").content.decode()
    answer = text.split("### Panelist A (Alpha offline)")[1].split("\n## ")[0]
    assert "#### Title\n\n##### Why" in answer  # setext and ATX, both under the voice's ###
    assert "=====" not in answer
    assert "```python\n# keep me\n```" in answer
    synthesis = text.split("## Synthesis")[1]
    assert "### Consensus\n\n#### Our view" in synthesis
    assert "```sh\n# not a heading\n```" in synthesis
    assert "\n# Title" not in text
    assert "\n# Our view" not in text


def test_the_json_export_carries_the_outcome_and_the_evidence(client, alice, evidenced):
    client.force_login(alice)
    data = client.get(f"/q/{evidenced.pk}/export.json").json()
    assert data["outcome"]["outcome"] == "right"
    assert data["outcome"]["marked_by"] == "alice"
    assert data["synthesis"]["confidence"] == 0.72
    assert data["synthesis"]["stances"] == {"Panelist B": "partly"}
    assert data["ledger"]["claims"][0]["falsifier"] == "the query log shows writes over 20%"
    assert data["consensus"]["tie_breaker"]["decision"] == "Replicas"
    assert data["panel_run"]["degradations"] == ["Panelist C dropped after two failures."]
    assert data["identities"][0]["model"] == "model-alpha"


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_an_export_by_link_carries_no_judgement_of_the_verdict_as_the_shared_page(client, alice, evidenced, fmt):
    client.force_login(alice)
    share(client, evidenced, "link")
    exported = Client().get(f"{link_of(evidenced)}export.{fmt}").content.decode()
    assert "Replicas held the load." not in exported
    assert "alice" not in exported
    assert "Did the verdict hold?" not in exported


def test_another_users_private_question_cannot_be_exported(client, bob, debated):
    client.force_login(bob)
    for fmt in ("md", "json"):
        assert client.get(f"/q/{debated.pk}/export.{fmt}").status_code == 404
    Question.objects.filter(pk=debated.pk).update(visibility="users")
    assert client.get(f"/q/{debated.pk}/export.md").status_code == 200
    assert client.get(f"/q/{debated.pk}/export.pdf").status_code == 404


def test_a_lone_surrogate_stored_before_it_was_refused_does_not_break_the_exports(client, alice, debated):
    Question.objects.filter(pk=debated.pk).update(options=["Shard\ud800", "Replicate"])
    client.force_login(alice)
    exported = client.get(f"/q/{debated.pk}/export.json")
    assert exported.status_code == 200
    assert json.loads(exported.content)["options"] == ["Shard\ud800", "Replicate"]  # its JSON escape
    assert client.get(f"/q/{debated.pk}/export.md").status_code == 200


@pytest.mark.parametrize("fmt", ["json", "md"])
def test_an_export_by_link_holds_only_the_link_and_nothing_of_a_private_parent(
    client, alice, debated, make_question, fmt
):
    later = make_question(
        alice, debated.panel, text="And the backups?", status="done", parent=debated, root=debated, reask_of=debated
    )
    client.force_login(alice)
    share(client, later, "link")  # its parent stays private
    link = link_of(later)
    exported = Client().get(f"{link}export.{fmt}").content.decode()
    assert f"http://testserver{link}" in exported
    for internal in (f"/q/{later.pk}/", f"/q/{debated.pk}/", "/api/", "/ws/"):
        assert internal not in exported
    if fmt == "json":
        data = json.loads(exported)
        assert (data["url"], data["follow_up_of"], data["reask_of"]) == (f"http://testserver{link}", None, None)
        assert "api_url" not in data
        assert "ws_url" not in data


# --- the migration ----------------------------------------------------------------------------
@pytest.mark.django_db(transaction=True)
def test_the_migration_keeps_existing_questions_private_and_shared_ones_shared(offline_panel):
    before = importlib.import_module(f"debates.migrations.{MIGRATION}").Migration.dependencies[0]
    executor = MigrationExecutor(connection)
    latest = executor.loader.graph.leaf_nodes()
    executor.migrate([before])
    old = executor.loader.project_state([before]).apps.get_model("debates", "Question")
    kept = old.objects.create(panel_id=offline_panel.pk, text="Kept private", criticality="medium")
    shared = old.objects.create(panel_id=offline_panel.pk, text="Was shared", criticality="medium", is_private=False)
    executor = MigrationExecutor(connection)
    executor.migrate(latest)
    assert Question.objects.get(pk=kept.pk).visibility == "private"
    assert Question.objects.get(pk=shared.pk).visibility == "users"
