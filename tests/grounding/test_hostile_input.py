"""Input that is code, or built to hang or exhaust SymPy, is refused or stopped without harm."""

import asyncio
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from debates.grounding import Grounding, ground, sandbox
from debates.grounding.extract import Task, extract
from tests.grounding.conftest import Workers

PWNED = Path("/tmp/pwned")
ATTACK = "__import__('os').system('touch /tmp/pwned')"


@pytest.fixture
def no_pwned_file():
    PWNED.unlink(missing_ok=True)
    yield
    assert not PWNED.exists()


@pytest.mark.usefixtures("no_pwned_file")
@pytest.mark.parametrize(
    "question",
    [f"simplify {ATTACK}", f"Simplify `{ATTACK}`", f"What is {ATTACK}?", f"solve `{ATTACK}` = 0", f"`{ATTACK}`"],
)
async def test_python_code_is_never_run(question: str, workers: Workers) -> None:
    grounding = await ground(question)
    assert grounding.facts == ()
    assert all("Refused" in note for note in grounding.notes)
    assert workers.spawned == []  # refused, or not taken for maths at all: nothing reached SymPy


async def test_code_after_a_maths_phrase_is_refused_in_words() -> None:
    grounding = await ground(f"simplify {ATTACK}")
    assert grounding.notes == (f"Refused simplify {ATTACK}: it reads as code, not maths.",)


@pytest.mark.parametrize(
    ("question", "reason"),
    [
        ("What is 10**10**10?", "stacks powers"),
        ("what is 10^(10^10)", "stacks powers"),
        ("compute 2^99999999", "power above 10000"),
        ("what is 100000000! ", "factorial of a number above 10000"),
        ("what is " + "9" * 100 + " + 1", "longer than 60 digits"),
        ("compute " + "(" * 40 + "1+1" + ")" * 40, "nested more than 30 levels"),
        ("compute " + "(" * 10_000 + "1+1" + ")" * 10_000, "longer than 300 characters"),
        ("simplify x.__class__", "reads as code"),
        ("simplify (lambda: 1)", "reads as code"),
    ],
)
async def test_costly_shapes_are_refused_before_any_computation(question: str, reason: str, workers: Workers) -> None:
    grounding = await ground(question)
    assert grounding.facts == ()
    assert reason in " ".join(grounding.notes)
    assert workers.spawned == []  # refused up front: no child process was even started


async def test_a_computation_that_takes_forever_is_killed_and_a_fresh_worker_takes_the_rest(
    short_time_limit: float, workers: Workers
) -> None:
    grounding = await ground("Factor 2^512 + 1, and what is 2+3?")
    assert grounding.notes == ("Gave up on factor 2^512 + 1: no result within 1 s.",)
    assert [f.expression for f in grounding.facts] == ["2+3"]
    assert len(workers.spawned) == 2  # the hung one, then a fresh one for the rest
    assert workers.all_stopped()


async def test_the_worker_runs_with_memory_file_and_process_limits() -> None:
    child = await sandbox.spawn()
    try:
        limits = await asyncio.to_thread(Path(f"/proc/{child.pid}/limits").read_text)
    finally:
        await sandbox.stop(child)
    assert re.search(rf"Max address space\s+{sandbox.MEMORY_LIMIT_BYTES}\s", limits)
    assert re.search(r"Max file size\s+0\s", limits)  # it cannot write a file
    assert re.search(r"Max processes\s+0\s", limits)  # nor start a process


async def test_a_computation_that_runs_out_of_memory_is_reported_and_the_rest_goes_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Straight to the sandbox: the screen would refuse this shape before it got here.
    monkeypatch.setattr(sandbox, "TIME_LIMIT_S", 30.0)
    monkeypatch.setattr(sandbox, "MEMORY_LIMIT_BYTES", 300_000_000)
    facts, notes = await sandbox.compute([Task("arithmetic", "2**(2**34)"), Task("arithmetic", "1+1")])
    assert notes == ["Could not compute 2**(2**34): it needs more memory than allowed."]
    assert [f.result for f in facts] == ["2"]


async def test_the_event_loop_keeps_running_during_a_slow_computation(
    short_time_limit: float, workers: Workers
) -> None:
    grounding = asyncio.create_task(ground("Factor 2^512 + 1"))
    await workers.asked.wait()  # a blocked loop would get here only once the computation was over
    assert workers.computing
    assert not grounding.done()
    assert (await grounding).notes == ("Gave up on factor 2^512 + 1: no result within 1 s.",)


@pytest.mark.parametrize("computing", [False, True], ids=["while-sympy-loads", "while-computing"])
async def test_a_cancelled_grounding_leaves_no_child_behind(workers: Workers, computing: bool) -> None:
    # The default 3 s limit: the factorisation is still running when the cancellation lands.
    grounding = asyncio.create_task(ground("Factor 2^512 + 1"))
    await (workers.asked if computing else workers.started).wait()
    grounding.cancel()
    with pytest.raises(asyncio.CancelledError):
        await grounding
    assert workers.asked.is_set() == computing  # the cancellation landed where this case says
    assert workers.spawned
    assert workers.all_stopped()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.text(alphabet=st.characters(codec="utf-8"), max_size=300) | st.text("0123456789xy+-*/^()=!. ,$`_'", max_size=80)
)
def test_extraction_never_raises_on_junk(junk: str) -> None:
    tasks, notes = extract(junk)
    assert all(isinstance(task, Task) for task in tasks)
    assert all(isinstance(note, str) for note in notes)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text("0123456789xy+-*/^()=!. ,", max_size=40).map(lambda s: f"compute {s} and is {s} prime?"))
async def test_grounding_junk_always_returns_a_grounding(junk: str) -> None:
    assert isinstance(await ground(junk), Grounding)
