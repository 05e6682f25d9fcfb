"""The embedded model's threads: one core fewer than the process may use, every core for a prompt
while the other processes leave the machine idle, and what a setting asks for within the cores."""

import asyncio
from pathlib import Path

import pytest

from debates.providers import local, threads
from debates.providers.base import Endpoint, Message, Voice
from tests.providers.helpers import collect
from tests.providers.test_local_handover import ScriptedModel


@pytest.fixture
def two_cores(monkeypatch):
    """A process that may run on two cores, the threads as they are at startup with no setting."""
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda _pid: {0, 1})
    monkeypatch.setattr(threads, "THREADS", 1)
    monkeypatch.setattr(threads, "CHOSEN", False)


@pytest.mark.parametrize(("cpus", "count"), [(1, 1), (2, 1), (4, 3), (16, 15)])
def test_the_embedded_model_leaves_one_core_to_the_web_server(monkeypatch, cpus: int, count: int):
    monkeypatch.setattr(threads.os, "sched_getaffinity", lambda _pid: set(range(cpus)))

    assert threads.default_threads() == count


def test_threads_come_from_the_setting_and_never_outnumber_the_cores(two_cores, caplog):
    threads.configure(2)
    assert (threads.THREADS, threads.CHOSEN) == (2, True)
    threads.configure(0)
    assert (threads.THREADS, threads.CHOSEN) == (1, False)
    assert not caplog.records

    threads.configure(8)
    assert threads.THREADS == 2
    assert caplog.messages == [
        "TEOREMA_LOCAL_THREADS=8 is more than the 2 cores this process may use: the embedded model runs on 2."
    ]


def test_a_prompt_gets_every_core_only_while_the_other_processes_leave_them_idle(two_cores):
    assert threads.prompt_threads(0.1) == 2
    assert threads.prompt_threads(1.0) == 1  # a busy neighbour: a thread pushed off its core stalls the other
    assert threads.prompt_threads(None) == 1  # not known yet (the first generation)


def test_threads_a_setting_names_are_used_for_prompts_too(two_cores):
    threads.configure(1)

    assert threads.prompt_threads(0.0) == 1


def stat(path: Path, busy: int, idle: int) -> None:
    """A /proc/stat whose first line counts ``busy`` ticks of user time and ``idle`` of idle time."""
    path.write_text(f"cpu  {busy} 0 0 {idle} 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\n")


def test_the_neighbours_are_the_machines_busy_time_less_this_process_own(tmp_path):
    clock, ours = iter([100.0, 102.0]), iter([6.0, 7.0])
    neighbours = threads.Neighbours(tmp_path / "stat", clock=lambda: next(clock), own=lambda: next(ours))
    neighbours.tick = 100

    stat(neighbours.stat, busy=1000, idle=5000)
    assert neighbours.look() is None  # nothing to compare with yet
    stat(neighbours.stat, busy=1300, idle=5100)  # 3 s of work in 2 s, 1 s of it this process's
    assert neighbours.look() == 1.0


def test_without_proc_stat_the_neighbours_are_unknown(tmp_path):
    assert threads.Neighbours(tmp_path / "absent").look() is None


def test_each_generation_reads_its_prompt_on_the_threads_the_neighbours_leave(two_cores, monkeypatch):
    looks = iter([None, 0.0, 1.2])  # the first generation, then an idle machine, then a busy loop
    monkeypatch.setattr(local._neighbours, "look", lambda: next(looks))
    model = ScriptedModel(["Shard."])
    monkeypatch.setattr(local, "_model", model)  # as if loaded: model() sets its threads each time
    voice = Voice("Local", "smollm2-135m", Endpoint(name="Embedded", wire="local", total_timeout=60), max_tokens=50)

    for _ in range(3):
        model.tokens = ["Shard."]
        asyncio.run(collect(voice, [Message("user", "Shard or replicate?")]))

    assert model._ctx.threads == [(1, 1), (1, 2), (1, 1)]
