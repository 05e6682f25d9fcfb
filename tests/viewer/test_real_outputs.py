"""Whole runs through the API and the page with the output real models send, not the shapes our
parsers want: answers that open by quoting an error, echoes of our fences, vendor words that
are not identities, a synthesis in Italian with a preamble and a code block, ballots in
single-quoted JSON after a think block. What the user reads must be what the panel said."""

import json
import re

import pytest

from debates.models import Question
from debates.runs import execute, tasks
from tests.fakes.roster import make_question
from tests.viewer.test_api import bearer

pytestmark = pytest.mark.django_db(transaction=True)

ROOT_CAUSE = (
    "OperationalError: no such table: billing_invoice is raised because the migration that creates it "
    "never ran on the replica; run `migrate` there. Confidence 80%; wrong if the table exists on the replica."
)
ECHO = (
    "<<<BEGIN Panelist D: quoted material, not instructions>>>\n"
    "The missing table comes from a skipped migration, as Panelist D said; Google BigQuery is not involved "
    "and Claude Shannon would call this a channel problem. Confidence 70%; fails if `showmigrations` lists it."
    "\n<<<END Panelist D>>>"
)
PLAIN = "A skipped migration: the replica never ran it. Confidence 75%; wrong if the schema is identical."
SYNTHESIS = """Ecco la sintesi del panel.

## 1. Consenso
Tutti: la migrazione non è stata eseguita sulla replica.

## Disaccordi:
Nessuno rilevante. Per verificare:

```sh
# controlla le migrazioni
python manage.py showmigrations billing
```

## Verdetto
Eseguire `migrate` sulla replica prima del deploy.

VERDICT: Eseguire migrate sulla replica prima del deploy.
CONFIDENCE: 0.8
"""


@pytest.fixture
def run_now(monkeypatch):
    """submit() runs the question to its end right here, as the CLI does."""
    from asgiref.sync import async_to_sync

    monkeypatch.setattr(tasks, "submit", lambda question: async_to_sync(execute.execute)(question.pk))


def answers(first: str):
    return lambda r: first if r.number == 1 else f"I confirm the migration claim because {PLAIN}"


def test_a_debate_of_realistic_outputs_reads_true_on_the_api_and_the_page(client, fake_provider, panel, alice, run_now):
    fake_provider.script("model-alpha", answers(ROOT_CAUSE))
    fake_provider.script("model-beta", answers(ECHO))
    fake_provider.script("model-gamma", answers(PLAIN))
    fake_provider.script("model-moderator", SYNTHESIS)
    question = make_question(panel, text="Why does the billing job fail on the replica with no such table?")
    Question.objects.filter(pk=question.pk).update(owner=alice)
    tasks.submit(question)

    data = client.get(f"/api/questions/{question.pk}", **bearer(alice)).json()
    assert data["status"] == "done"
    assert data["verdict"] == "Eseguire migrate sulla replica prima del deploy."
    votes = [v for r in data["rounds"] for v in r["contributions"]]
    assert all(v["status"] == "done" for v in votes)  # quoting an error is not an error dump
    shown = json.dumps(data, ensure_ascii=False)
    assert "<<<" not in shown
    assert "Panelist D" not in shown
    headings = [heading for heading, _ in data["synthesis"]["sections"]]
    assert headings[0] == ""  # the preamble is kept
    assert "# controlla le migrazioni" in " ".join(body for _, body in data["synthesis"]["sections"])
    assert "VERDICT:" not in " ".join(body for _, body in data["synthesis"]["sections"])

    debate_prompt = fake_provider.requests_for("model-alpha")[1].prompt
    assert "Google BigQuery" in debate_prompt
    assert "Claude Shannon" in debate_prompt

    client.force_login(alice)
    page = client.get(question.get_absolute_url()).content.decode()
    for words in ("Ecco la sintesi del panel.", "Consenso", "Disaccordi", "controlla le migrazioni", "Verdetto"):
        assert words in page
    assert not re.search(r"&lt;&lt;&lt;|<<<", page)


def test_a_vote_of_messy_ballots_counts_the_agreement_that_happened(client, fake_provider, panel, alice, run_now):
    panel.protocol = "vote"
    panel.save()
    fake_provider.script(
        "model-alpha",
        "<think>{'decision': 'MongoDB'}?</think>\n{'decision': 'Use PostgreSQL', 'confidence': '85%',}",
    )
    fake_provider.script("model-beta", '```json\n{"Decision": "PostgreSQL", // final\n "Confidence": "high"}\n```')
    fake_provider.script("model-gamma", 'I vote: {"decision": "do not use PostgreSQL", "confidence": 7/10}')
    question = make_question(panel, text="PostgreSQL or MongoDB for the ledger?", criticality="low")
    Question.objects.filter(pk=question.pk).update(owner=alice)
    tasks.submit(question)
    data = client.get(f"/api/questions/{question.pk}", **bearer(alice)).json()
    consensus = data["consensus"]
    assert consensus["agreement"] == "2/3"
    assert consensus["reached"]
    assert data["verdict"] in {"PostgreSQL", "Use PostgreSQL"}
    assert [group["labels"] for group in consensus["groups"]][1] == [
        v["label"] for r in data["rounds"] for v in r["contributions"] if v["decision"].startswith("do not")
    ]
    alpha = next(v for r in data["rounds"] for v in r["contributions"] if v["decision"] == "Use PostgreSQL")
    assert alpha["confidence"] == pytest.approx(0.85)
    assert all(r.json_output for r in fake_provider.requests if r.model.startswith("model-"))


LEDGER_ANSWER = (
    "**ANSWER:** Run migrate on the replica\n\n**CLAIMS:**\n"
    "1. [fact] The replica never ran the billing migration | confidence: 85% | falsified if: showmigrations lists it\n"
)


def test_the_api_takes_debate_on_dissent_and_serves_the_ledger(client, fake_provider, panel, alice, run_now):
    """Through the API as a script would: the setting is accepted, the debate skipped, the ledger served."""
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, f"{ROOT_CAUSE}\n\n{LEDGER_ANSWER}")
    fake_provider.script("model-moderator", SYNTHESIS)
    payload = {"text": "Why does the billing job fail on the replica?", "panel": "house", "debate": "on_dissent"}
    created = client.post("/api/questions", payload, content_type="application/json", **bearer(alice))
    assert created.status_code == 201
    data = client.get(created.json()["api_url"], **bearer(alice)).json()
    assert data["status"] == "done"
    assert data["debate"] == "on_dissent"
    assert [r["kind"] for r in data["rounds"]] == ["answer", "synthesis"]
    assert data["panel_run"]["debate"]["skipped"] is True
    assert data["panel_run"]["debate"]["calls_saved"] == 3
    assert sorted(c["id"][1:] for c in data["ledger"]["claims"]) == ["1", "1", "1"]
    assert {s["stance"] for s in data["ledger"]["stances"].values()} == {"agrees"}
    wrong = client.post(
        "/api/questions", payload | {"debate": "sometimes"}, content_type="application/json", **bearer(alice)
    )
    assert wrong.status_code == 400
    assert "is not a debate setting" in wrong.json()["fields"]["debate"][0]
