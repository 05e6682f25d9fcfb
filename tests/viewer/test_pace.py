"""The words' window follows the CPU shares of the process and of the machine: none while both
are quiet, the whole once either is busy."""

import pytest

from debates.live.pace import BUSY, QUIET, Pace


class Process:
    """A clock, the process's CPU time and the machine's (2 CPUs), moved by hand."""

    def __init__(self) -> None:
        self.now = self.used = self.machine_busy = 0.0
        self.pace = Pace(lambda: self.now, lambda: self.used, lambda: (self.machine_busy, 2 * self.now))

    def runs(self, seconds: float, share: float, others: float = 0.0) -> None:
        """``share`` of a CPU for this process, ``others`` CPUs for the rest of the machine."""
        self.now += seconds
        self.used += seconds * share
        self.machine_busy += seconds * min(2.0, share + others)


SHARES = [(0.0, 0.0), (QUIET, 0.0), ((QUIET + BUSY) / 2, 0.5), (BUSY, 1.0), (3.0, 1.0)]


@pytest.mark.parametrize(("share", "window"), SHARES)
def test_the_window_grows_in_proportion_between_quiet_and_busy(share: float, window: float) -> None:
    process = Process()
    for _ in range(30):  # long enough at one share for the smoothing to reach it
        process.runs(0.1, share)
        process.pace.busy()
    assert process.pace.window(0.075) == pytest.approx(0.075 * window, abs=1e-6)


def test_a_burst_widens_the_window_within_a_fifth_of_a_second_and_a_quiet_spell_closes_it() -> None:
    process = Process()
    process.runs(0.2, 2.0)  # both cores for a fifth of a second
    assert process.pace.window(0.075) == 0.075
    process.runs(5.0, 0.0)  # then nothing for seconds
    assert process.pace.window(0.075) == 0.0


def test_readings_closer_than_a_tenth_of_a_second_keep_the_last_share() -> None:
    process = Process()
    process.runs(0.2, 1.0)
    share = process.pace.busy()
    process.runs(0.01, 0.0)
    assert process.pace.busy() == share


def test_a_machine_busy_with_other_processes_widens_the_window_of_a_quiet_one() -> None:
    process = Process()
    process.runs(1.0, 0.1, others=1.8)  # a worker sending little, the web process and the database busy
    assert process.pace.window(0.075) == 0.075
    process.runs(2.0, 0.1, others=0.3)  # for a while
    assert process.pace.window(0.075) == 0.0


def test_the_window_closes_at_once_when_a_burst_comes_and_opens_only_as_it_fades() -> None:
    process = Process()
    for _ in range(30):
        process.runs(0.1, 0.1)
        process.pace.busy()
    assert process.pace.window(0.075) == 0.0
    process.runs(0.1, 1.5)  # every debate crosses a step at once
    assert process.pace.window(0.075) == 0.075
    process.runs(0.1, 0.1)  # quiet again: the window opens over a few readings, not at the next
    assert process.pace.window(0.075) == 0.075
