"""Input that is code, or built to hang or exhaust SymPy, is refused or stopped without harm."""

import asyncio
import re
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from debates.grounding import Grounding, ground, sandbox
from debates.grounding.extract import Task, extract

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
async def test_python_code_is_never_run(question: str) -> None:
    grounding = await ground(question)
    assert grounding.facts == ()
    assert all("Refused" in note for note in grounding.notes)


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
async def test_costly_shapes_are_refused_before_any_computation(question: str, reason: str) -> None:
    started = time.monotonic()
    grounding = await ground(question)
    assert grounding.facts == ()
    assert reason in " ".join(grounding.notes)
    assert time.monotonic() - started < 1  # refused up front: no child process was even started


async def test_a_computation_that_takes_forever_is_killed_on_time(short_time_limit: float) -> None:
    started = time.monotonic()
    grounding = await ground("Factor 2^512 + 1, and is 97 prime?")
    assert grounding.notes == ("Gave up on factor 2^512 + 1: no result within 1 s.",)
    assert [f.expression for f in grounding.facts] == ["isprime(97)"]  # a fresh worker took the rest
    assert time.monotonic() - started < 15


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


async def test_the_event_loop_keeps_running_during_a_slow_computation(short_time_limit: float) -> None:
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    task = asyncio.create_task(ticker())
    started = time.monotonic()
    await ground("Factor 2^512 + 1")
    elapsed = time.monotonic() - started
    task.cancel()
    assert elapsed >= short_time_limit
    assert ticks >= elapsed * 100 * 0.3  # the loop ran at least a third of the time, on a busy machine


@pytest.mark.parametrize("delay", [0.1, 1.5], ids=["while-sympy-loads", "while-computing"])
async def test_a_cancelled_grounding_leaves_no_child_behind(monkeypatch: pytest.MonkeyPatch, delay: float) -> None:
    # The default 3 s limit: the factorisation is still running when the cancellation lands.
    spawned: list[asyncio.subprocess.Process] = []
    start_worker = sandbox.start_worker

    async def recording() -> asyncio.subprocess.Process:
        spawned.append(await start_worker())
        return spawned[-1]

    monkeypatch.setattr(sandbox, "start_worker", recording)
    task = asyncio.create_task(ground("Factor 2^512 + 1"))
    await asyncio.sleep(delay)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert spawned
    assert all(child.returncode is not None for child in spawned)


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
