"""A panelist's flat claim against a verified fact is flagged; anything less certain is not."""

import pytest

from debates.grounding import Fact, contradictions

NOT_PRIME = Fact("isprime", "isprime(91)", "False")
PRIME = Fact("isprime", "isprime(97)", "True")
POWER = Fact("arithmetic", "2^10", "1024")
THIRD = Fact("arithmetic", "1/3 + 1/6", "1/2")
FACTORS = Fact("factor", "factor(91)", "7*13")
FALSE_IDENTITY = Fact("identity_check", "(x+1)^2 = x^2 + 1", "False")


@pytest.mark.parametrize(
    ("fact", "text"),
    [
        (NOT_PRIME, "Clearly 91 is prime, so the key is safe."),
        (NOT_PRIME, "Since 91 is a prime number we can use it."),
        (PRIME, "97 is not prime because it is odd."),
        (PRIME, "Note that 97 is composite."),
        (POWER, "We know 2^10 = 1000, so a kilobyte has 1000 bytes."),
        (POWER, "Recall that 2**10 equals 1000."),
        (POWER, "`2 ^ 10 = 1,000`"),
        (THIRD, "Adding them, 1/3 + 1/6 = 2/9."),
        (FACTORS, "The factorisation is 91 = 7 * 11."),
        (FACTORS, "So 91 is prime."),
        (FALSE_IDENTITY, "Expanding, (x+1)^2 = x^2 + 1 for every x."),
    ],
)
def test_a_flat_claim_against_a_fact_is_flagged(fact: Fact, text: str) -> None:
    [flag] = contradictions([fact], text)
    assert fact.expression in flag or "91" in flag


@pytest.mark.parametrize(
    ("fact", "text"),
    [
        (NOT_PRIME, "91 is not prime: 91 = 7*13."),
        (NOT_PRIME, "Panelist B claims 91 is prime, which is wrong."),
        (NOT_PRIME, "Is 91 prime? No."),
        (NOT_PRIME, "If 91 is prime then the scheme works."),
        (NOT_PRIME, "1091 is prime and 91.5 is not an integer."),
        (PRIME, "97 is prime."),
        (POWER, "2^10 = 1024, about 1000."),
        (POWER, "2^10 = 1 thousand and 24, roughly."),
        (POWER, "3*2^10 = 3072 and 12^10 = 61917364224."),
        (POWER, "2^10 = 1000 + 24."),
        (POWER, "2^10 is 1024, not 1000."),
        (POWER, "2^10 = 1024."),
        (THIRD, "1/3 + 1/6 = 0.5, and 1/3 + 1/6 = 0.50 too."),
        (Fact("arithmetic", "1/3", "1/3"), "1/3 = 0.333 to three places."),
        (FACTORS, "91 = 7*13."),
        (Fact("arithmetic", "sqrt(2)*3", "3*sqrt(2) ≈ 4.24264068711928"), "sqrt(2)*3 = 4.2"),
        (Fact("derivative", "d/dx (sin(x)*x)", "x*cos(x) + sin(x)"), "The derivative is cos(x)."),
    ],
)
def test_agreement_hedges_and_lookalikes_are_not_flagged(fact: Fact, text: str) -> None:
    assert contradictions([fact], text) == []


def test_each_contradiction_is_reported_once_in_words() -> None:
    flags = contradictions([NOT_PRIME, FACTORS, POWER], "91 is prime. And 2^10 = 1000.")
    assert flags == [
        "“91 is prime”, but 91 is not prime (isprime(91) = False).",
        "“91 is prime”, but 91 is not prime (factor(91) = 7*13).",
        "“2^10 = 1000” contradicts the computed 2^10 = 1024.",
    ]
