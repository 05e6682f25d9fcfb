"""How many threads the embedded model computes on: one core fewer than the process may use, and
every core to read a prompt while no other process keeps one busy.

llama.cpp's threads meet at a barrier after every operation and wait for each other there, so a
thread that another process has pushed off its core stalls the rest, who spin meanwhile. On two
cores beside a busy loop, 100 tokens took 4.4 s to write on two threads (5.4 s of CPU) and 1.5 s
on one; a prompt of 650 tokens 6.3–7.1 s to read on two (7.5–8.4 s of CPU) and 4.5 s on one.
With the other core free, reading that prompt took 2.3–2.7 s on two threads and 4.2 s on one,
and reading prompts is about two thirds of a first question's work: so a prompt gets every core
while ``Neighbours`` saw the others idle since the last generation, and writing never does
(a token is one small step: two threads wrote 100 tokens in 1.2 s, one in 1.5 s, for twice
the CPU).
"""

import logging
import os
import time
from collections.abc import Callable
from pathlib import Path

log = logging.getLogger(__name__)
IDLE = 0.5  # cores the other processes may keep busy, on average, for a prompt to get every core


def cores() -> int:
    """The cores this process may run on (a container's CPU set, not the machine's count)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def default_threads() -> int:
    """One core fewer than the process may use, and at least one: the web server keeps a core."""
    return max(1, cores() - 1)


THREADS = default_threads()
CHOSEN = False  # a setting named the threads: they are used for prompts too, whatever the neighbours do


def configure(threads: int) -> None:
    """Set the threads the model computes on (0: the default), at most one per core, saying so when
    a setting asks for more (threads beyond the cores only wait for each other)."""
    global THREADS, CHOSEN
    available = cores()
    if threads > available:
        log.warning(
            "TEOREMA_LOCAL_THREADS=%d is more than the %d cores this process may use: the embedded model runs on %d.",
            threads,
            available,
            available,
        )
    THREADS, CHOSEN = (min(threads, available), True) if threads else (default_threads(), False)


def own_cpu() -> float:
    """Seconds of CPU this process has used, all its threads together."""
    times = os.times()
    return times.user + times.system


class Neighbours:
    """How many cores the other processes kept busy since the last look: the machine's busy time
    (``/proc/stat``) less this process's own; None at the first look, or with no ``/proc/stat``."""

    def __init__(
        self,
        stat: Path = Path("/proc/stat"),
        clock: Callable[[], float] = time.monotonic,
        own: Callable[[], float] = own_cpu,
    ) -> None:
        self.stat, self.clock, self.own = stat, clock, own
        self.tick = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100  # /proc/stat's unit, per second
        self.last: tuple[float, float, float] | None = None  # (wall, the machine's busy, ours) seconds

    def look(self) -> float | None:
        try:
            ticks = [int(field) for field in self.stat.read_text().split("\n", 1)[0].split()[1:8]]
        except (OSError, ValueError):
            return None
        # user, nice, system, idle, iowait, irq, softirq: all but idle and iowait is work.
        busy = (sum(ticks) - ticks[3] - ticks[4]) / self.tick
        now, ours = self.clock(), self.own()
        last, self.last = self.last, (now, busy, ours)
        if last is None or now <= last[0]:
            return None
        return max(0.0, (busy - last[1]) - (ours - last[2])) / (now - last[0])


def prompt_threads(others: float | None) -> int:
    """Threads to read a prompt: every core while the other processes left them idle, else ``THREADS``."""
    return cores() if not CHOSEN and others is not None and others < IDLE else THREADS
