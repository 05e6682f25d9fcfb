"""The question page of a finished run: the verdict first, what ran, the rounds folded to a line per
voice and readable one voice at a time, jargon explained, and the demo model said plainly."""

import re

import pytest

from debates.models import Contribution, Panel, Panelist, Provider, Round, Synthesis
from tests.viewer.test_ledger_page import BLIND, NAMES, SEATS, page_of, store, words

VOICES = [{"seat": seat, "label": label, "method": "none", "status": "active"} for label, seat in SEATS.items()]
PANEL_RUN = {
    "voices": VOICES,
    "heterogeneity": "methods",
    "evidence": "weak",
    "note": "a homogeneous panel (one model with different methods): convergence is weak (diversity illusion).",
    "calls_planned": 4,
}


@pytest.fixture
def finished(alice, offline_panel, make_question):
    roster = [
        {"seat": seat, "label": label, "name": NAMES[label], "model": f"model-{seat}", "family": seat}
        for label, seat in SEATS.items()
    ]
    question = make_question(
        alice, offline_panel, status="done", verdict="Add read replicas.", roster=roster, panel_run=PANEL_RUN
    )
    store(question, [("answer", BLIND)])
    Synthesis.objects.create(
        question=question, text="…", sections=[["Verdict", "Add read replicas."]], evidence_strength="weak"
    )
    return question


def test_the_verdict_is_on_top_and_the_tab_says_it_is_in(client, alice, finished):
    page = page_of(client, alice, finished)
    order = [page.index(f'id="{part}"') for part in ("verdict", "panel-run", "ledger", "views", "rounds")]
    assert order == sorted(order)
    assert "<title>✓ Verdict — Shard or replicate? · Teorema</title>" in page
    verdict = page.split('id="verdict"', 1)[1].split('id="panel-run"', 1)[0]
    assert "Add read replicas." in words(verdict)
    # Its support is the panel's agreement at the end (two of three give its answer), not the panel's make-up.
    assert "majority 2/3" in words(verdict)
    assert "evidence" not in words(verdict)
    assert 'aria-live="polite"' in page  # where the end is announced to a screen reader watching live


def test_the_panel_that_ran_says_its_protocol_and_voices(client, alice, finished):
    page = page_of(client, alice, finished)
    assert "The panel that ran" in page
    assert "The panel running" not in page
    assert "Teorema protocol (blind round, anonymised dossier, debate, moderator) · 3 voices" in words(page)


def test_the_rounds_fold_to_a_line_per_voice_with_its_stance_and_status(client, alice, finished):
    page = page_of(client, alice, finished)
    folds = re.findall(r'<details class="fold status-(\w+)" data-voice="([\w-]+)">(.*?)</summary>', page, re.S)
    assert [(status, voice) for status, voice, _ in folds] == [
        ("done", "panelist-a"),
        ("done", "panelist-b"),
        ("done", "panelist-c"),
    ]
    lines = [words(line) for _, _, line in folds]
    assert lines[0].startswith("Panelist A Alpha house ✓ agrees done Reads dominate this workload")
    assert lines[2].startswith("Panelist C Gamma house ✗ disagrees done")
    assert " open>" not in page.split('id="rounds"', 1)[1]  # folded: a click opens a card


def test_each_voice_has_a_tab_named_once_the_run_is_over(client, alice, finished):
    page = page_of(client, alice, finished)
    tabs = re.findall(r'<button type="button" role="tab"[^>]*data-view="([\w-]*)">(.*?)</button>', page, re.S)
    assert [(key, words(label)) for key, label in tabs] == [
        ("", "By round"),
        ("panelist-a", "Panelist A Alpha house"),
        ("panelist-b", "Panelist B Beta house"),
        ("panelist-c", "Panelist C Gamma house"),
    ]
    assert page.count('data-voice="panelist-b"') == 2  # the fold and its card: a tab shows both or neither


def test_a_running_question_shows_the_panel_running_and_its_cards_whole(client, alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="running", panel_run=PANEL_RUN)
    store(question, [("answer", BLIND)])
    page = page_of(client, alice, question)
    assert "The panel running" in page
    assert 'id="verdict"' not in page
    assert '<details class="fold' not in page
    assert re.findall(r'<article id="v0-(p\d)"', page) == ["p1", "p2", "p3"]
    assert "<title>Shard or replicate? · Teorema</title>" in page


def test_a_cancelled_run_keeps_its_cut_off_cards(client, alice, offline_panel, make_question):
    question = make_question(alice, offline_panel, status="cancelled", error="Cancelled by the asker.")
    answers = Round.objects.create(question=question, index=0, kind="answer", title="Round 0", status="cancelled")
    Contribution.objects.create(round=answers, seat="p1", label="Panelist A", kind="answer", status="done", text="Yes.")
    Contribution.objects.create(
        round=answers,
        seat="p2",
        label="Panelist B",
        kind="answer",
        status="cancelled",
        text="Replicas, becau",
        error="the debate was cancelled before this voice finished",
    )
    page = page_of(client, alice, question)
    assert "<title>Cancelled — Shard or replicate? · Teorema</title>" in page
    fold = page.split('data-voice="panelist-b">', 1)[1]
    assert words(fold.split("</summary>", 1)[0]).startswith("Panelist B cancelled Replicas, becau")
    assert "the debate was cancelled before this voice finished" in fold


def test_jargon_opens_its_meaning_where_it_appears_and_model_text_stays_escaped(client, alice, finished):
    Contribution.objects.filter(seat="p1").update(flags=["confidence theatre: a confidence without a falsifier"])
    page = page_of(client, alice, finished)
    for term in ("criticality", "Heterogeneity", "diversity illusion", "confidence theatre"):
        assert re.search(
            rf'<button type="button" class="term" [^>]*title="[^"]+" data-term="[^"]+">{term}</button>', page
        )
    finished.panel_run = PANEL_RUN | {"note": "<b>criticality</b> & more"}
    finished.save()
    page = page_of(client, alice, finished)
    assert "&lt;b&gt;<button" in page
    assert "</button>&lt;/b&gt; &amp; more" in page


@pytest.fixture
def demo_panel(db) -> Panel:
    """The keyless default: three voices and the moderator on the embedded model."""
    local = Provider.objects.create(name="Embedded", wire="local")
    voices = [
        Panelist.objects.create(name=f"Local {n}", provider=local, model="smollm2-135m", family="smollm")
        for n in "ABCD"
    ]
    panel = Panel.objects.create(name="Local trio", slug="local", moderator=voices[-1])
    for position, voice in enumerate(voices[:3]):
        panel.memberships.create(panelist=voice, position=position)
    return panel


def test_a_run_on_the_demo_model_says_so_and_where_to_add_a_provider(
    client, alice, admin_user, demo_panel, make_question
):
    question = make_question(alice, demo_panel, status="running")
    page = page_of(client, alice, question)
    banner = words(page.split('class="demo-banner"', 1)[1].split("</div>", 1)[0])
    assert "Demo model: every voice here is the embedded 135M-parameter model" in banner
    assert "its answers are not meaningful" in banner
    assert "an administrator adds one in the admin" in banner
    assert "/admin/debates/provider/" not in page  # the link is for those who can use it
    question.owner = admin_user
    question.save()
    assert 'href="/admin/debates/provider/"' in page_of(client, admin_user, question)


def test_a_real_panel_has_no_demo_banner(client, alice, finished):
    assert "demo-banner" not in page_of(client, alice, finished)
