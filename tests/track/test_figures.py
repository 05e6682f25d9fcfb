"""The track record on a small history whose every figure is worked out by hand below.

Teorema panel "house": Alpha (Panelist A), Beta (B) and Gamma (C). Per question, each voice's
ledger stance (agrees/partly: sided with the verdict; disagrees: did not) and the mean of its
claims' confidences, then the verdict's outcome:

    question  Alpha         Beta          Gamma         outcome
    Q1        agrees  0.9   agrees  0.7   DISSENT 0.6   wrong
    Q2        agrees  0.8   agrees  0.9   agrees  0.5   right
    Q3        agrees  0.7*  DISSENT 0.8   agrees  0.9   right
    Q4        agrees  0.9   agrees  0.6   DISSENT 0.7   (none)
    Q5        partly  0.6   agrees  0.8   agrees  0.8   partly

    * claims of 0.6 and 0.8: their mean.
"""

from decimal import Decimal

import pytest

from debates.models import Question
from debates.providers import faults
from debates.track import figures
from tests.track.history import Debate, Voice, store

A, B, C = "Panelist A", "Panelist B", "Panelist C"


@pytest.fixture
def history(house, alice):
    rows = [
        (
            {
                A: Voice(
                    confidences=(0.9,),
                    change="partial",
                    reason="the growth numbers",
                    latency_ms=100,
                    flags=("sycophancy: agreed without a reason", "confidence theatre: no falsification condition"),
                ),
                B: Voice(confidences=(0.7,), latency_ms=100),
                C: Voice("disagrees", (0.6,), latency_ms=100),
            },
            "wrong",
        ),
        (
            {
                A: Voice(confidences=(0.8,), latency_ms=200),
                B: Voice(confidences=(0.9,), change="none", flags=("truncated: cut off by the token limit",)),
                C: Voice(confidences=(0.5,)),
            },
            "right",
        ),
        (
            {
                A: Voice(confidences=(0.6, 0.8), latency_ms=300),
                B: Voice("disagrees", (0.8,)),
                C: Voice(confidences=(0.9,), change="total"),
            },
            "right",
        ),
        (
            {
                A: Voice(confidences=(0.9,), latency_ms=400),
                B: Voice(
                    confidences=(0.6,), debate_status="failed", debate_error="Fake house had a server error (500)"
                ),
                C: Voice("disagrees", (0.7,)),
            },
            "",
        ),
        (
            {
                A: Voice("partly", (0.6,), latency_ms=500),
                B: Voice(confidences=(0.8,)),
                C: Voice(
                    confidences=(0.8,),
                    debate_status="gated",
                    debate_error="gated out after 2 tries: a refusal, not an answer (“No.”)",
                ),
            },
            "partly",
        ),
    ]
    for voices, outcome in rows:
        store(house, Debate(voices, outcome=outcome), owner=alice)
    return {r.name: r for r in figures.build(alice).records}


def test_how_often_each_voice_sided_with_the_verdict(history):
    alpha, beta, gamma = history["Alpha house"], history["Beta house"], history["Gamma house"]
    assert (alpha.sided, alpha.known, alpha.reservations) == (5, 5, 1)  # Q5's "partly" sides, with reservations
    assert (beta.sided, beta.known, beta.sided_rate) == (4, 5, 4 / 5)
    assert (gamma.sided, gamma.known, gamma.sided_rate) == (3, 5, 3 / 5)


def test_lone_dissents_and_whether_the_dissent_was_right(history):
    # Beta alone dissented from Q3's verdict, which was right: its dissent was wrong.
    beta = history["Beta house"]
    assert (beta.lone_dissents, beta.dissents_judged, beta.dissents_right) == (1, 1, 0.0)
    # Gamma alone dissented twice: from Q1's verdict, which was wrong (so it was right), and from Q4's (no outcome).
    gamma = history["Gamma house"]
    assert (gamma.lone_dissents, gamma.dissents_judged, gamma.dissents_right, gamma.dissent_right_rate) == (2, 1, 1, 1)
    assert history["Alpha house"].lone_dissents == 0


def test_brier_scores_per_voice_and_pooled(history):
    # Right = 1 when the voice's side matched the outcome, 0.5 on a verdict judged partly right; Q4 has no outcome.
    alpha = [(0.9, 0), (0.8, 1), (0.7, 1), (0.6, 0.5)]  # sided on Q1 (wrong), Q2 and Q3 (right), Q5 (partly)
    beta = [(0.7, 0), (0.9, 1), (0.8, 0), (0.8, 0.5)]  # dissented from Q3's right verdict: 0
    gamma = [(0.6, 1), (0.5, 1), (0.9, 1), (0.8, 0.5)]  # dissented from Q1's wrong verdict: 1
    brier = {
        name: sum((p - y) ** 2 for p, y in points) / 4
        for name, points in (("Alpha house", alpha), ("Beta house", beta), ("Gamma house", gamma))
    }
    assert brier == pytest.approx({"Alpha house": 0.95 / 4, "Beta house": 1.23 / 4, "Gamma house": 0.51 / 4})
    for name, expected in brier.items():
        assert (history[name].brier, history[name].calibration_n) == (pytest.approx(expected), 4)
    pooled = Question.objects.first()  # any user of the history sees the same pool
    calibration = figures.build(pooled.owner).calibration
    assert (calibration.n, calibration.brier) == (12, pytest.approx((0.95 + 1.23 + 0.51) / 12))


def test_a_reliability_bin(alice, history):
    # Stated 0.9: Alpha on Q1 (wrong), Beta on Q2 (right), Gamma on Q3 (right) -> 2 of 3 right.
    bins = {round(b.low, 1): b for b in figures.build(alice).calibration.bins}
    top = bins[0.9]
    assert (top.n, top.confidence, top.right) == (3, pytest.approx(0.9), pytest.approx(2 / 3))
    assert {low: b.n for low, b in bins.items()} == {0.5: 1, 0.6: 2, 0.7: 2, 0.8: 4, 0.9: 3}


def test_pairwise_agreement_kappa_and_independent_voices(alice, history):
    found = figures.build(alice)
    ids = {r.name: r.id for r in found.records}
    pairs = {(p.a, p.b): p for p in found.pairs}
    alpha_beta = pairs[ids["Alpha house"], ids["Beta house"]]
    alpha_gamma = pairs[ids["Alpha house"], ids["Gamma house"]]
    beta_gamma = pairs[ids["Beta house"], ids["Gamma house"]]
    # Same side: Alpha–Beta on Q1, Q2, Q4, Q5; Alpha–Gamma on Q2, Q3, Q5; Beta–Gamma on Q2, Q5.
    assert (alpha_beta.agreement, alpha_gamma.agreement, beta_gamma.agreement) == (4 / 5, 3 / 5, 2 / 5)
    # Alpha always sided: agreeing with it is what chance gives, kappa 0.
    assert (alpha_beta.kappa, alpha_gamma.kappa) == (pytest.approx(0), pytest.approx(0))
    # Beta sided 4/5, Gamma 3/5: chance agreement 0.8·0.6 + 0.2·0.4 = 0.56; observed 0.4.
    kappa = (0.4 - 0.56) / (1 - 0.56)
    assert beta_gamma.kappa == pytest.approx(kappa)
    # N_eff = N² / Σ m_ij² with 1 on the diagonal: 9 / (3 + 2·kappa²).
    (panel,) = found.panels
    assert panel.independent == pytest.approx(9 / (3 + 2 * kappa**2))
    assert (len(panel.voices), panel.families, panel.questions) == (3, ["alpha", "beta", "gamma"], 5)


def test_position_changes_with_and_without_a_reason_and_toward_the_outcome(history):
    # Alpha: partial on Q1, with a reason; it ended siding with a verdict that was wrong: away from the outcome.
    alpha = history["Alpha house"]
    assert (alpha.changes, alpha.total_changes, alpha.changes_with_reason) == (1, 0, 1)
    assert (alpha.changes_judged, alpha.changes_toward, alpha.changes_away) == (1, 0, 1)
    # Gamma: total on Q3, no reason; it ended siding with a verdict that was right: toward.
    gamma = history["Gamma house"]
    assert (gamma.changes, gamma.total_changes, gamma.changes_with_reason, gamma.changes_toward) == (1, 1, 0, 1)
    assert history["Beta house"].changes == 0  # "none" is no change


def test_flags_failures_gate_rejections_cost_and_latency(history):
    alpha, beta, gamma = history["Alpha house"], history["Beta house"], history["Gamma house"]
    assert (alpha.flagged, alpha.flags) == (1, {"sycophancy": 1, "confidence theatre": 1})
    assert (beta.flagged, beta.flags) == (1, {"truncated": 1})
    assert (beta.failed, beta.failures) == (1, {"server error": 1})
    assert (gamma.gated, gamma.gate_rejections) == (1, {"refusal": 1})
    # Alpha's six done calls: 100 (Q1's answer and debate), 200, 300, 400, 500 ms; nearest rank ⌈p·n⌉.
    assert (alpha.calls, alpha.latency_median_ms, alpha.latency_p95_ms) == (6, 200, 500)
    assert (alpha.cost, alpha.cost_per_question) == (Decimal("0.006"), Decimal("0.0012"))  # six calls at $0.001


FAULTS = [
    (401, "key rejected"),
    (429, "rate limited"),
    (503, "overloaded"),
    (500, "server error"),
    (400, "request refused"),
]


@pytest.mark.parametrize(("status", "kind"), FAULTS)
def test_failures_are_classified_from_the_providers_own_words(house, alice, status, kind):
    error = faults.status_error("Fake house", status, '{"error": {"message": "nope"}}').message
    store(house, Debate({A: Voice(debate_status="failed", debate_error=error)}), owner=alice)
    (alpha,) = [r for r in figures.build(alice).records if r.name == "Alpha house"]
    assert alpha.failures == {kind: 1}
