"""The words of a run are defined once, in the engine, and everything else reads them there."""

import subprocess
import sys

import pytest

from debates.engine import consensus, prompts
from debates.engine.policy import FORCED_METHODS
from debates.engine.protocols import DEFAULT_ROUNDS, Shape, plan
from debates.engine.vocabulary import FINISHED, Criticality, FailurePolicy, Method, Outcome, Protocol, Status


def test_every_criticality_has_a_threshold_and_nothing_else_does():
    assert set(consensus.THRESHOLDS) == set(Criticality)


def test_every_method_has_its_prompt_and_a_forced_method_is_a_real_one():
    assert set(prompts.METHODS) == set(Method)
    assert set(FORCED_METHODS) == set(Method) - {Method.NONE}


@pytest.mark.parametrize("protocol", list(Protocol))
def test_every_protocol_has_a_plan_and_a_default_number_of_rounds(protocol):
    assert plan(Shape(protocol))
    assert protocol in DEFAULT_ROUNDS


def test_a_value_read_from_storage_is_its_member():
    assert Criticality("high") is Criticality.HIGH
    assert Criticality.HIGH == "high"
    assert "gated" in Outcome
    assert "retrying" not in Outcome  # a live card's state, not how a contribution ended


def test_a_run_finishes_on_every_status_but_queued_and_running():
    assert set(Status) - FINISHED == {Status.QUEUED, Status.RUNNING}


@pytest.mark.parametrize("words", [Protocol, FailurePolicy, Criticality, Method, Status, Outcome])
def test_every_member_has_a_label_for_people(words):
    assert all(label and label != value for value, label in words.choices())


def test_the_engine_imports_no_django():
    code = "import sys, debates.engine.run; print(any(m.startswith('django') for m in sys.modules))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "False"
