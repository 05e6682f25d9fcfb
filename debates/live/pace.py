"""How long a voice's words wait for the next ones before they go out: nothing while it is quiet.

Coalescing trades a viewer's wait for CPU: a broadcast costs about the same whether it carries
one word or ten, and fifty debates sending every word at once would spend the process on
broadcasts. But a fixed window held every word of a quiet machine half the window on average
(a 75 ms window, as it was: p50 40 ms) for nothing. So the window follows how busy things have
been in the last moments: none while both this process's CPU share (its CPU seconds per second)
and the machine's (the share of all its CPUs not idle) are at most QUIET, the whole window once
either reaches BUSY, in proportion between. The machine counts because the process that sends is
not the only one that pays: a worker's broadcasts are the web process's sends, and both share
the cores with the database and Redis. Sending more when quiet raises the shares, which widens
the window again: the two settle where the machine is moderately busy.

A share rises at once and falls over half a second, and the window is whole from half a CPU up:
debates started together cross their steps together (a round's end, the next round's first
words), and a window still open from a quiet moment before such a burst spent the burst's CPU on
broadcasts, which the first words of every voice then waited behind (docs/benchmarks-history.md,
eleventh pass).
"""

import math
import time
from collections.abc import Callable

import psutil

QUIET, BUSY = 0.25, 0.5
EVERY = 0.1  # seconds between two readings of the CPU times
FADE = 0.5  # seconds in which a share falls to 1/e of the way down to a lower reading


def machine_times() -> tuple[float, float]:
    """(busy, all) CPU seconds of the whole machine so far, every CPU together."""
    times = psutil.cpu_times()
    total = sum(times)
    return total - times.idle - getattr(times, "iowait", 0.0), total


class Pace:
    """The recent CPU shares of this process (all its threads) and of the machine, read at most
    every EVERY seconds."""

    def __init__(
        self,
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float] = time.process_time,
        machine: Callable[[], tuple[float, float]] = machine_times,
    ) -> None:
        self.clock, self.cpu, self.machine = clock, cpu, machine
        self.at, self.used, self.seen = clock(), cpu(), machine()
        self.own = self.shared = 0.0

    def busy(self) -> float:
        """The higher of the two shares: each the latest reading when higher, else falling
        towards it (a reading that spans a long silence is that silence)."""
        now = self.clock()
        if (span := now - self.at) >= EVERY:
            used, seen, weight = self.cpu(), self.machine(), 1 - math.exp(-span / FADE)
            self.own = _held((used - self.used) / span, self.own, weight)
            if total := seen[1] - self.seen[1]:
                self.shared = _held((seen[0] - self.seen[0]) / total, self.shared, weight)
            self.at, self.used, self.seen = now, used, seen
        return max(self.own, self.shared)

    def window(self, longest: float) -> float:
        """Seconds words wait after the last broadcast, at most ``longest``."""
        return longest * min(1.0, max(0.0, (self.busy() - QUIET) / (BUSY - QUIET)))


def _held(reading: float, share: float, weight: float) -> float:
    return reading if reading >= share else share + weight * (reading - share)


PACE = Pace()  # one per process: every sink of it shares its CPU
