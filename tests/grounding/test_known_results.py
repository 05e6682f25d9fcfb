"""What SymPy computes for the questions people actually ask, and how the brief shows it."""

import pytest

from debates.grounding import Fact, Grounding, ground


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Solve x^2 - 5x + 6 = 0", Fact("solve", "solve(x^2 - 5x + 6 = 0, x)", "[2, 3]")),
        ("What is the derivative of sin(x)*x?", Fact("derivative", "d/dx (sin(x)*x)", "x*cos(x) + sin(x)")),
        ("Compute the integral of x dx.", Fact("integral", "∫ (x) dx", "x**2/2 + C")),
        ("Integrate x^2 from 0 to 1", Fact("integral", "∫ from 0 to 1 of (x^2) dx", "1/3")),
        ("What is the limit of sin(x)/x as x -> 0?", Fact("limit", "lim x->0 (sin(x)/x)", "1")),
        ("Factor 91, please.", Fact("factor", "factor(91)", "7*13")),
        ("Factorise x^2 - 1", Fact("factor", "factor(x^2 - 1)", "(x - 1)*(x + 1)")),
        ("Is 97 prime?", Fact("isprime", "isprime(97)", "True")),
        ("Is 91 a prime?", Fact("isprime", "isprime(91)", "False")),
        ("Is 1/3 + 1/6 = 1/2?", Fact("arithmetic", "1/3 + 1/6", "1/2")),
        ("Does 0.1 + 0.2 = 0.3 hold exactly?", Fact("identity_check", "0.1 + 0.2 = 0.3", "True")),
        ("Is (x+1)**2 = x**2+2x+1 an identity?", Fact("identity_check", "(x+1)**2 = x**2+2x+1", "True")),
        ("Check `(x+1)**2 == x**2 + 1`", Fact("identity_check", "(x+1)**2 = x**2 + 1", "False")),
        ("Simplify sin(x)^2 + cos(x)^2", Fact("simplify", "simplify(sin(x)^2 + cos(x)^2)", "1")),
        (r"Is $\lim_{x \to 0} \frac{\sin x}{x} = 1$?", Fact("limit", "lim x->0 ((sin x)/x)", "1")),
    ],
)
async def test_a_question_with_maths_gets_the_computed_fact(question: str, expected: Fact) -> None:
    grounding = await ground(question)
    assert expected in grounding.facts
    assert grounding.notes == ()


async def test_a_false_numeric_claim_in_the_question_gets_the_true_value() -> None:
    grounding = await ground("My colleague says 2^10 = 1000. Is that right?")
    assert Fact("arithmetic", "2^10", "1024") in grounding.facts
    assert Fact("identity_check", "2^10 = 1000", "False") in grounding.facts


async def test_the_context_is_grounded_too() -> None:
    grounding = await ground("Which of these is right?", context="Option A: factor 91 gives 7*13.")
    assert Fact("factor", "factor(91)", "7*13") in grounding.facts


@pytest.mark.parametrize(
    "question",
    [
        "I have 3 servers and 2 racks, which design?",
        "We ship GPT-4 on 2024-01-05 with 24/7 support, 3-5 days, x86-64 and A/B tests.",
        "Is O(n^2) acceptable for 10 000 rows, or is it a key factor in the slowdown?",
        "What is the best way to run 2 replicas in 3 zones?",
        "Let x = 3 and keep the rate limit of 5 requests.",
    ],
)
async def test_a_question_that_merely_mentions_numbers_is_skipped(question: str) -> None:
    grounding = await ground(question)
    assert grounding == Grounding()
    assert grounding.as_brief() == ""


def test_the_brief_lists_each_fact_with_the_expression_computed() -> None:
    grounding = Grounding(facts=(Fact("factor", "factor(91)", "7*13"), Fact("isprime", "isprime(97)", "True")))
    brief = grounding.as_brief()
    assert brief.startswith("### Verified facts (computed with SymPy)")
    assert "- factor: `factor(91)` → `7*13`" in brief
    assert "- isprime: `isprime(97)` → `True`" in brief


def test_the_brief_says_what_could_not_be_computed_after_the_facts() -> None:
    note = "Gave up on factor 2^512+1: no result within 3 s."
    brief = Grounding(facts=(Fact("factor", "factor(91)", "7*13"),), notes=(note,)).as_brief()
    assert brief.index("### Verified facts") < brief.index("### Not verified") < brief.index(f"- {note}")


def test_notes_alone_still_make_a_brief() -> None:
    brief = Grounding(notes=("Gave up on factor 2^512+1: no result within 3 s.",)).as_brief()
    assert brief.startswith("### Not verified")
    assert "### Verified facts" not in brief
