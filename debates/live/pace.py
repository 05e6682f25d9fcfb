"""How long a voice's words wait for the next ones before they go out: nothing while it is quiet.

Coalescing trades a viewer's wait for CPU: a broadcast costs about the same whether it carries
one word or ten, and fifty debates sending every word at once would spend the process on
broadcasts. But a fixed window held every word of a quiet machine half the window on average
(a 75 ms window: p50 40 ms) for nothing. So the window follows how busy things have been in the
last moments: none while both this process's CPU share (its CPU seconds per second) and the
machine's (the share of all its CPUs not idle) are at most QUIET, the whole window once either
reaches BUSY, in proportion between. The machine counts because the process that sends is not
the only one that pays: a worker's broadcasts are the web process's sends, and both share the
cores with the database and Redis. Sending more when quiet raises the shares, which widens the
window again: the two settle where the machine is moderately busy.
"""

import math
import time
from collections.abc import Callable

import psutil

QUIET, BUSY = 0.3, 0.8
EVERY = 0.1  # seconds between two readings of the CPU times
FADE = 0.2  # seconds in which an older reading's weight falls to 1/e


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
        """The higher of the two shares, each smoothed over the last few tenths of a second (a
        reading that spans a long silence is that silence)."""
        now = self.clock()
        if (span := now - self.at) >= EVERY:
            used, seen, weight = self.cpu(), self.machine(), 1 - math.exp(-span / FADE)
            self.own += weight * ((used - self.used) / span - self.own)
            if total := seen[1] - self.seen[1]:
                self.shared += weight * ((seen[0] - self.seen[0]) / total - self.shared)
            self.at, self.used, self.seen = now, used, seen
        return max(self.own, self.shared)

    def window(self, longest: float) -> float:
        """Seconds words wait after the last broadcast, at most ``longest``."""
        return longest * min(1.0, max(0.0, (self.busy() - QUIET) / (BUSY - QUIET)))


PACE = Pace()  # one per process: every sink of it shares its CPU
