"""Protocols are data: the plan of steps, and the calls a run costs."""

from debates.engine.protocols import plan, planned_calls


def test_a_five_voice_teorema_run_costs_eleven_calls():
    assert planned_calls("teorema", 5) == 11


def test_adversarial_default_is_triage_plus_three_panel_rounds_plus_synthesis():
    assert planned_calls("adversarial", 2) == 1 + 2 * 3 + 1
    assert planned_calls("adversarial", 2, merge_critique=True) == 1 + 2 * 2 + 1
    assert planned_calls("adversarial", 2, force_panel=True) == 2 * 3 + 1


def test_round_indices_are_fixed_by_the_plan(spec_factory):
    kinds = [step.kind for step in plan(spec_factory(protocol="adversarial"))]
    assert kinds == ["grounding", "triage", "answer", "critique", "final", "synthesis"]
    kinds = [step.kind for step in plan(spec_factory(protocol="vote", revote_on_dissent=True))]
    assert kinds == ["grounding", "vote", "dissent", "revote", "tiebreak"]
    assert [s.index for s in plan(spec_factory())] == list(range(4))
