"""The words' window follows the process's CPU share: none while quiet, the whole from busy up."""

import pytest

from debates.live.pace import BUSY, QUIET, Pace


class Process:
    """A clock and a CPU time that a test moves by hand."""

    def __init__(self) -> None:
        self.now = self.used = 0.0
        self.pace = Pace(lambda: self.now, lambda: self.used)

    def runs(self, seconds: float, share: float) -> None:
        self.now += seconds
        self.used += seconds * share


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
