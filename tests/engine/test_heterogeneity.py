"""Evidence strength: a small model's agreement is no family's worth of evidence."""

from dataclasses import replace

import pytest

from debates.engine.policy import Lineup, small_model
from debates.engine.spec import RunSpec
from tests.engine.conftest import make_seat

URL = "http://127.0.0.1:9/v1"


def lineup(*voices: tuple[str, str, str]) -> Lineup:
    """A panel of (model, family, wire) voices."""
    seats = tuple(
        make_seat(f"p{i}", f"Panelist {chr(65 + i)}", model, family, URL, wire)
        for i, (model, family, wire) in enumerate(voices)
    )
    moderator = make_seat("moderator", "Moderator", "gpt-4o", "gpt", URL)
    return Lineup(RunSpec(question="Shard or replicate?", protocol="teorema", seats=seats, moderator=moderator))


def test_the_demo_model_beside_gpt_is_weak_evidence_and_says_why():
    found = lineup(("smollm2-135m", "smollm", "local"), ("gpt-4o", "gpt", "openai")).heterogeneity()
    assert (found.level, found.strength) == ("families", "weak")
    assert "1 voice of 2 runs a small model" in found.note
    assert found.note.endswith("convergence would be weak evidence.")


def test_two_small_models_of_two_families_are_still_weak_evidence():
    found = lineup(("qwen2.5:1.5b", "qwen", "openai"), ("llama3.2:3b", "llama", "openai")).heterogeneity()
    assert found.strength == "weak"
    assert "2 voices of 2 run a small model" in found.note


def test_a_small_voice_beside_two_real_families_leaves_the_evidence_strong_and_is_not_counted():
    found = lineup(
        ("gpt-4o", "gpt", "openai"), ("claude-sonnet-4-5", "claude", "anthropic"), ("gemma-3-270m", "gemma", "openai")
    ).heterogeneity()
    assert found.strength == "strong"
    assert found.note == (
        "the panel spans 2 model families besides 1 voice on a small model: convergence would be strong evidence."
    )


def test_real_families_without_small_models_read_as_before():
    found = lineup(("gpt-4o", "gpt", "openai"), ("claude-sonnet-4-5", "claude", "anthropic")).heterogeneity()
    assert found.note == "the panel spans 2 model families: convergence would be strong evidence."


@pytest.mark.parametrize(
    ("model", "small"),
    [
        ("smollm2-135m", True),
        ("SmolLM2-360M-Instruct", True),
        ("qwen2.5:1.5b", True),
        ("llama3.2:3b-instruct-q4_K_M", True),
        ("Qwen/Qwen2.5-0.5B-Instruct", True),
        ("phi3:3.8b", False),  # over 3B
        ("llama-3.1-8b", False),
        ("qwen3-30b-a3b", False),  # 30B in all; "a3b" is its active share, glued to a letter
        ("gemma-3n-e2b", False),  # an "effective" size, not a parameter count
        ("mixtral-8x7b", False),
        ("gpt-4o-mini", False),  # "mini" says nothing plain about the size
        ("o3-mini", False),
        ("claude-3-5-haiku", False),
    ],
)
def test_only_a_plainly_stated_count_of_3b_or_fewer_makes_a_model_small(model, small):
    seat = make_seat("p1", "Panelist A", model, "any", URL)
    assert small_model(seat) is small


def test_any_model_on_the_embedded_wire_is_small_whatever_its_name():
    seat = make_seat("p1", "Panelist A", "anything", "any", URL, wire="local")
    assert small_model(seat)
    remote = replace(seat.voice, endpoint=replace(seat.voice.endpoint, wire="openai"))
    assert not small_model(replace(seat, voice=remote))
