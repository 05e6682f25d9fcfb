"""Failure policies × faults: strict stops, degrade substitutes, quorum counts. No phantom ever."""

import pytest

from debates.engine.events import ContributionFinished, PanelChanged
from debates.engine.run import run
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script

GOOD = "Replicas, because reads dominate the database workload; fails if writes triple."
FAULTS = {
    "auth": Script(status=401),
    "bad_request": Script(status=400, error="model not found"),
    "server": Script(status=500),
    "drop": Script(fault="drop", after_chunks=2),
    "malformed": Script(fault="malformed"),
    "empty": Script(fault="empty"),
    "phantom": "Processing...",
    "error_dump": 'Traceback (most recent call last):\n  File "agent.py", line 3, in run',
}


@pytest.fixture
def panel(fake_provider):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, GOOD + f" ({model})")
    fake_provider.script("model-moderator", SYNTHESIS)
    return fake_provider


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_strict_stops_the_run_and_names_the_failed_panelist(panel, spec_factory, sink, fault):
    panel.script("model-beta", FAULTS[fault])
    finished = await run(spec_factory(3, failure_policy="strict"), sink)
    assert finished.status == "failed"
    assert "Panelist B" in finished.error
    assert "Beta Voice" in finished.error
    assert not panel.requests_for("model-moderator")


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_degrade_replaces_the_failed_voice_and_reports_the_panel_that_ran(panel, spec_factory, sink, fault):
    panel.script("model-beta", FAULTS[fault])
    finished = await run(spec_factory(3, failure_policy="degrade"), sink)
    assert finished.status == "done"
    report = sink.of(PanelChanged)[-1].panel_run
    assert any("Panelist B failed" in d for d in report["degradations"])
    assert "p2~" in finished.reveal
    moderator_prompt = panel.requests_for("model-moderator")[0].prompt
    assert "(model-beta)" not in moderator_prompt


@pytest.mark.parametrize("fault", ["auth", "phantom"])
async def test_quorum_continues_with_enough_voices_and_stops_below(panel, spec_factory, sink, fault):
    panel.script("model-beta", FAULTS[fault])
    assert (await run(spec_factory(3, failure_policy="quorum", quorum=2), sink)).status == "done"
    failed = await run(spec_factory(3, failure_policy="quorum", quorum=3), sink)
    assert failed.status == "failed"
    assert "quorum is 3" in failed.error


async def test_a_gated_answer_never_reaches_a_dossier_or_the_synthesis(panel, spec_factory, sink):
    panel.script("model-beta", "Task started")
    await run(spec_factory(3, failure_policy="quorum", quorum=2), sink)
    later = [r for r in panel.requests if "dossier" in r.prompt or "moderator" in r.prompt]
    assert later, "no dossier or moderator prompt was sent"
    for request in later:
        assert "Task started" not in request.prompt


async def test_a_gated_answer_is_retried_once_before_it_counts_as_failed(panel, spec_factory, sink):
    panel.script("model-beta", "Processing...", GOOD)
    finished = await run(spec_factory(3, failure_policy="strict"), sink)
    assert finished.status == "done"
    answers = [r for r in panel.requests_for("model-beta") if "on your own" in r.prompt]
    assert len(answers) == 2


async def test_transient_faults_are_retried_by_the_provider_layer_and_recorded(panel, spec_factory, sink):
    panel.script("model-beta", Script(status=503), GOOD)
    finished = await run(spec_factory(3, failure_policy="strict"), sink)
    assert finished.status == "done"
    beta = next(e.result for e in sink.of(ContributionFinished) if e.result.seat == "p2")
    assert len(beta.attempts) == 2
    assert beta.attempts[0]["error"]


@pytest.mark.parametrize(
    ("fault", "words"),
    [
        ("server", "a server error at its provider"),
        ("auth", "its provider refused the key"),
        ("phantom", "its text was not an answer (gated out)"),
    ],
)
async def test_the_moderator_learns_a_voice_failed_and_how_never_which_provider_or_the_error(
    panel, spec_factory, sink, fault, words
):
    failing = Script(status=500, error="Gemini had a server error: upstream boom") if fault == "server" else None
    panel.script("model-beta", failing or FAULTS[fault])
    spec = spec_factory(3, failure_policy="quorum", quorum=2)
    finished = await run(spec, sink)
    assert finished.status == "done"
    moderator = next(r for r in panel.requests_for("model-moderator") if "moderator" in r.system)
    assert f"Panelist B dropped in Round 0 — independent answers: {words}." in moderator.prompt
    for leak in ("Gemini", "boom", "500", "401", "Processing", "beta", "Beta", "Fake"):
        assert leak not in moderator.prompt + moderator.system, leak
