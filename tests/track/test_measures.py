"""The arithmetic of agreement and independence, on matrices and counts whose answers are known."""

import pytest

from debates.track.measures import independent_voices, kappa


def test_voices_that_always_agree_count_as_one():
    assert independent_voices([[1.0] * 3] * 3) == 1.0


def test_independent_voices_count_fully():
    identity = [[1.0 if i == j else 0.0 for j in range(3)] for i in range(3)]
    assert independent_voices(identity) == 3.0


def test_five_voices_correlated_by_a_half_are_two_and_a_half():
    # N_eff = 25 / (5 + 20 · 0.5²) = 25 / 10.
    half = [[1.0 if i == j else 0.5 for j in range(5)] for i in range(5)]
    assert independent_voices(half) == pytest.approx(2.5)


def test_anti_agreement_is_dependence_too():
    # A voice that always says the opposite of another says nothing new: kappa −1 counts like +1.
    assert independent_voices([[1.0, -1.0], [-1.0, 1.0]]) == 1.0


def test_kappa_is_agreement_beyond_chance():
    assert kappa(both=5, only_a=0, only_b=0, neither=5) == 1.0  # always the same side, both sides taken
    assert kappa(both=0, only_a=5, only_b=5, neither=0) == -1.0  # always opposite
    assert kappa(both=25, only_a=25, only_b=25, neither=25) == 0.0  # as two coin flips would
    assert kappa(both=7, only_a=0, only_b=0, neither=0) == 1.0  # never varied: nothing sets them apart
    assert kappa(0, 0, 0, 0) is None
