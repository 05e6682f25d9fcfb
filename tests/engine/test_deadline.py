"""An asker's deadline, in the engine: the panel gets its share, the synthesis the rest, and a call
still running at its step's end is stopped, kept and disclosed; a stopped call is paid for."""

import asyncio

import pytest

from debates.engine.clock import synthesis_share
from debates.engine.events import ContributionFinished, PanelChanged, RoundStarted
from debates.engine.run import run
from debates.engine.vocabulary import Outcome, StepKind
from tests.fakes.provider_server import FOREVER, Script

SYNTHESIS = "## Consensus\nReplicas.\n\n## Disagreements\nNone.\n\n## Verdict\nUse read replicas."
ANSWER = "Add read replicas: reads dominate the load."
DEADLINE = 3.0


def finished(sink, kind: StepKind) -> dict[str, object]:
    return {e.result.seat: e.result for e in sink.of(ContributionFinished) if e.result.kind == kind}


@pytest.mark.parametrize(
    ("deadline", "usual", "share"),
    [(60, None, 18), (60, 4, 12), (60, 10, 15), (60, 40, 30), (20, None, 6)],
)
def test_the_synthesis_gets_one_and_a_half_times_its_usual_time_within_a_fifth_and_a_half(deadline, usual, share):
    assert synthesis_share(deadline, usual) == pytest.approx(share)


async def test_a_stalled_voice_is_stopped_at_the_panels_share_and_the_answer_still_comes(
    fake_provider, spec_factory, sink
):
    fake_provider.script("model-alpha", ANSWER, ANSWER)
    fake_provider.script("model-beta", ANSWER, ANSWER)
    fake_provider.script("model-gamma", Script(first_token_delay=FOREVER))  # accepts, never answers
    fake_provider.script("model-moderator", SYNTHESIS)
    spec = spec_factory(3, failure_policy="strict", deadline=DEADLINE)
    started = asyncio.get_running_loop().time()
    done = await run(spec, sink)
    took = asyncio.get_running_loop().time() - started
    assert done.status == "done"  # under strict too: a voice stopped at the deadline did not fail
    assert done.verdict == "Use read replicas."
    assert took < DEADLINE + 1  # behaviour, not speed: the stalled voice did not hold the run
    gamma = finished(sink, StepKind.ANSWER)["p3"]
    assert gamma.status == Outcome.CANCELLED
    assert gamma.error == f"stopped when the panel's share of the {DEADLINE:g} s deadline was up"
    report = sink.of(PanelChanged)[-1].panel_run
    assert any("Panelist C dropped in" in note and "deadline" in note for note in report["degradations"])
    # The debate round started after the panel's share was up, so it did not run, and says so.
    assert StepKind.DEBATE not in {e.kind for e in sink.of(RoundStarted)}
    assert any("did not run" in note and "deadline" in note for note in report["degradations"])


async def test_a_moderator_that_never_answers_is_stopped_at_the_deadline_with_the_panels_work_kept(
    fake_provider, spec_factory, sink
):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, ANSWER, ANSWER)
    fake_provider.script("model-moderator", Script(answer="The panel agrees " * 200, tokens_per_second=20))
    done = await run(spec_factory(3, deadline=DEADLINE, debate="always"), sink)
    assert done.status == "failed"
    assert done.error.startswith("The moderator was stopped at the deadline: the answer was asked for within 3 s.")
    assert "retry the synthesis" in done.error
    cut = finished(sink, StepKind.SYNTHESIS)["moderator"]
    assert cut.status == Outcome.CANCELLED
    assert cut.text.startswith("The panel agrees")  # what it had written is kept …
    assert cut.tokens_out > 0
    assert cut.tokens_estimated
    assert all(r.ok for r in finished(sink, StepKind.ANSWER).values())


async def test_without_a_deadline_nothing_is_cut(fake_provider, spec_factory, sink):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, Script(answer=ANSWER, first_token_delay=0.2))
    fake_provider.script("model-moderator", SYNTHESIS)
    done = await run(spec_factory(3), sink)
    assert done.status == "done"
    assert all(e.result.status == Outcome.DONE for e in sink.of(ContributionFinished))
