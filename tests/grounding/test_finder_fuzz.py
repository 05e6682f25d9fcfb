"""No input the voices write fails a run: the finder reads any text (huge numbers, deep nesting,
long runs of operators, digits of other scripts) inside its limits, and every side it writes either
passes the screen or is refused by it in words, before anything reaches SymPy."""

import asyncio

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from debates.engine.reading import closing
from debates.grounding.checks import check
from debates.grounding.claims import calc, find
from debates.grounding.sandbox import Sandbox
from debates.grounding.screen import NotMaths, Unsafe, screen

PIECES = [
    *(" + ", "+", " - ", "-", "*", " * ", "/", "^", "**", "×", "÷", "·", "=", " = ", "==", "≈", "%", "‰"),
    *("(", ")", "!", ".", ",", " ", "\n", "e", "e-", "k", "M", "KB", "GB", "GiB", "ms", "°C", "°F", "km", "h"),
    *("of", " of ", "from ", " to ", " is ", "a year for ", " years gives ", "x", "sqrt(", "log(", "one ", "a "),
    *("thousand ", "trillion ", "million ", "hundred and ", "1,000", "1.000", "1 000", "2,5", "0.", "-0"),
    *("CALC: ", "1 | ", "about ", "not ", "if ", "12 % of ", "doubles in ", "`", "$", "\\frac{1}{3}", "²", "⁻¹"),
]
UNICODE_DIGITS = "٠١٢٣٤٥٦٧٨٩۴۵०१२३४५６７８９０１⁰¹²³⁴⁵⁶⁷⁸⁹₀₁½¼"
HUGE = st.integers(min_value=1, max_value=6000).map(lambda n: ("9876543210" * 600)[:n]) | st.text(
    "0123456789", max_size=80
)
DECIMALS = st.integers(min_value=1, max_value=6000).map(lambda n: "0." + "3" * n)
NESTED = st.integers(0, 3000).map(lambda n: "(" * n + "1" + ")" * n + " = 1")
RUNS = st.tuples(st.sampled_from(["+", " + ", "-", " - ", "*", "/", "^", "**", "!", "="]), st.integers(0, 3000)).map(
    lambda run: "2" + (run[0] + "2") * run[1] + " = 4"
)
TEXTS = (
    st.lists(st.one_of(HUGE, DECIMALS, st.sampled_from(PIECES), st.text(UNICODE_DIGITS, max_size=12)), max_size=40)
    .map("".join)
    .filter(bool)
)
ANY = st.one_of(TEXTS, NESTED, RUNS, HUGE, st.text(max_size=300))


def screened(expression: str) -> None:
    """What the screen does with a side: pass it, or refuse it in words; nothing else."""
    try:
        said = screen(expression)
    except (Unsafe, NotMaths) as refused:
        said = str(refused)
    assert said


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ANY)
def test_the_finder_reads_any_text_and_every_side_it_writes_meets_the_screen(text: str) -> None:
    for found in (find(text), calc(text) or []):
        for claim in found:
            assert claim.quote
            for side in (*claim.computed, *claim.claimed):
                screened(side.expression)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(ANY)
def test_a_closing_block_with_any_calc_line_is_read(text: str) -> None:
    record = closing.read(
        "answer", f"Prose.\n\nANSWER: x\nCLAIMS:\n1. [fact] {text}\nCALC:\n- 1 | {text}\n", "Panelist A"
    )
    assert all(isinstance(line["text"], str) for line in record.get("calcs", []))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.lists(ANY, min_size=1, max_size=25))
def test_checking_any_round_ends_with_a_result_for_each_text(texts: list[str]) -> None:
    async def checked() -> list:
        sandbox = Sandbox()
        try:
            return await check([*texts, *texts], sandbox, [False] * len(texts) + [True] * len(texts))
        finally:
            await sandbox.close()

    found = asyncio.run(checked())
    assert len(found) == 2 * len(texts)
    assert all(c.holds in (True, False, None) and c.computation for checks in found for c in checks)
