"""The verification gate and the anti-pattern flags."""

import pytest

from debates.engine.gates import flags, gate, phantom

QUESTION = "Should we shard the Postgres database or add read replicas for the reporting workload?"


@pytest.mark.parametrize(
    "text",
    ["", "   ", "Processing...", "Task started", "OK", "Traceback (most recent call last):\n  File \"x.py\", line 1",
     '{"error": {"message": "rate limited", "type": "server_error"}}', "Too short."],
)  # fmt: skip
def test_phantom_answers_are_gated(text):
    assert gate(text, QUESTION)


def test_a_real_answer_passes():
    answer = "Add read replicas first: the reporting workload is read-heavy, and sharding Postgres costs more."
    assert gate(answer, QUESTION) == ""


def test_an_off_topic_answer_is_gated_but_only_in_the_blind_round():
    recipe = "Mix flour, butter, sugar and eggs; bake the cake at medium heat until golden, then let it cool down."
    assert "off-topic" in gate(recipe, QUESTION)
    assert phantom(recipe) == ""


def test_total_reversal_without_reasons_is_flagged_as_sycophancy():
    assert any("sycophancy" in f for f in flags("final", "I concede. I now agree with Panelist B entirely."))
    assert not any("sycophancy" in f for f in flags("final", "I concede because the benchmark shows 3x."))


def test_confidence_without_falsification_is_flagged():
    assert any("confidence theatre" in f for f in flags("final", "Replicas. Confidence: 80%."))
    assert not flags("final", "Replicas. Confidence 80%; this fails if writes exceed 5k/s.")


def test_critique_that_attacks_nothing_is_flagged():
    assert any("no attack" in f for f in flags("critique", "Great answers all round, well put."))
    assert not flags("critique", 'Panelist B says "sharding is cheap", which is wrong: resharding costs weeks.')
