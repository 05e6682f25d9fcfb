"""Protocols are data: the plan of steps, and the calls a run costs counted from the plan."""

import pytest

from debates.engine.protocols import Shape, call_steps, plan, planned_calls
from debates.engine.vocabulary import StepKind


def calls(protocol: str, voices: int, **shape) -> int:
    return planned_calls(plan(Shape(protocol, **shape)), voices)


def test_a_five_voice_teorema_run_costs_eleven_calls_and_a_judge_call_per_round_of_answers():
    assert planned_calls(plan(Shape("teorema")), 5, judging=False) == 5 + 5 + 1
    assert calls("teorema", 5) == 5 + 1 + 5 + 1 + 1


def test_adversarial_default_is_triage_plus_three_panel_rounds_plus_synthesis_and_two_judge_calls():
    # The critique round carries no answers: only the blind round and the final positions are judged.
    assert calls("adversarial", 2) == 1 + 2 * 3 + 2 + 1
    assert calls("adversarial", 2, merge_critique=True) == 1 + 2 * 2 + 2 + 1
    # The facilitator writes the brief even when the asker decided that the panel runs.
    assert calls("adversarial", 2, force_panel=True) == 1 + 2 * 3 + 2 + 1


def test_a_vote_costs_one_call_per_voter_and_a_judge_and_its_escalations_are_not_planned():
    assert calls("vote", 5) == 5 + 1
    assert calls("vote", 5, revote_on_dissent=True) == 5 + 1


def test_a_facilitator_brief_is_one_call_before_the_panel_in_every_protocol():
    for protocol in ("teorema", "vote"):
        steps = plan(Shape(protocol, facilitator_brief=True))
        assert [s.kind for s in steps][:3] == ["grounding", "triage", "answer" if protocol == "teorema" else "vote"]
        assert calls(protocol, 3, facilitator_brief=True) == calls(protocol, 3) + 1


def test_round_indices_are_fixed_by_the_plan(spec_factory):
    kinds = [step.kind for step in plan(spec_factory(protocol="adversarial"))]
    assert kinds == ["grounding", "triage", "answer", "critique", "final", "synthesis"]
    kinds = [step.kind for step in plan(spec_factory(protocol="vote", revote_on_dissent=True))]
    assert kinds == ["grounding", "vote", "dissent", "revote", "tiebreak"]
    assert [s.index for s in plan(spec_factory())] == list(range(4))


@pytest.mark.parametrize("rounds", range(7))
@pytest.mark.parametrize("protocol", ["teorema", "adversarial", "vote"])
def test_every_round_asked_for_is_in_the_plan_once(protocol, rounds):
    steps = plan(Shape(protocol, rounds=rounds, revote_on_dissent=True))
    panel_rounds = [s for s in steps if s.panel]
    expected = {
        "teorema": 1 + (rounds or 1),
        "adversarial": 1 + (rounds or 2),
        "vote": 1 + 2 * max(rounds, 1),
    }[protocol]
    assert len(panel_rounds) == expected
    assert len({s.index for s in steps}) == len(steps)
    assert len({s.title for s in steps}) == len(steps)


def test_the_cost_split_counts_panel_steps_and_single_calls():
    assert call_steps(plan(Shape("teorema", rounds=2))) == (3, 1 + 3)
    assert call_steps(plan(Shape("teorema", rounds=2)), judging=False) == (3, 1)
    assert call_steps(plan(Shape("adversarial"))) == (3, 2 + 2)


def test_steps_are_plain_data_with_kinds_from_the_vocabulary():
    for step in plan(Shape("adversarial", rounds=3)):
        assert isinstance(step.kind, StepKind)
        assert not callable(getattr(step, "action", None))
