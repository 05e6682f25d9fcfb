"""A running debate's page says how long it still needs, and says it again as each call ends."""

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from debates.live.sink import LiveSink
from debates.live.state import Totals
from debates.roster.readiness import time_left
from debates.runs.execute import Tee
from debates.runs.recorder import Recorder
from tests.viewer.test_live import WAIT, finished, headers, start_round, tab  # noqa: F401  (fixtures)

pytestmark = pytest.mark.django_db(transaction=True)
TOTALS = re.compile(r'<div id="totals".*?</div>', re.S)


def test_before_a_call_ends_the_time_left_is_the_estimate_less_the_time_gone():
    assert time_left(elapsed=20, expected=60, done=0, planned=7) == 40


def test_a_run_slower_than_its_estimate_is_counted_at_its_own_pace():
    # 3 of 7 calls in 90 s, where the whole run was expected to take 60 s: 4 more at 30 s each.
    assert time_left(elapsed=90, expected=60, done=3, planned=7) == 120


def test_a_run_with_every_call_done_or_past_its_estimate_with_none_done_has_nothing_to_say():
    assert time_left(elapsed=50, expected=60, done=7, planned=7) == 0
    assert time_left(elapsed=90, expected=60, done=0, planned=7) == 0


@pytest.fixture
def running(alice, offline_panel, make_question):
    """A question whose run started 4 minutes ago and was expected to take 10."""
    lease = timezone.now() + timedelta(hours=1)
    started = timezone.now() - timedelta(minutes=4)
    question = make_question(
        alice, offline_panel, status="running", lease_owner="test", lease_expires=lease, started_at=started
    )
    sink = Tee(Recorder(question.pk, {}), LiveSink(question.pk, Totals.stored(question, expected=600)))
    return question, sink


async def totals_saying(viewer, words: str) -> str:
    """The totals line the tab shows once it says ``words`` (the snapshot's, then each fragment's)."""
    while True:
        shown = [re.sub(r"<[^>]+>|\s+", " ", part) for part in TOTALS.findall(await viewer.socket.receive_from(WAIT))]
        if shown and words in shown[-1]:
            return shown[-1]


async def test_the_time_left_shows_on_the_page_and_changes_as_each_call_ends(running, headers, alice, tab):  # noqa: F811
    question, sink = running
    await start_round(sink)  # 3 calls planned
    viewer = tab(question.pk, headers(alice))
    connected, _ = await viewer.socket.connect(timeout=WAIT)
    assert connected

    await totals_saying(viewer, "about 6 min left")  # the estimate less the 4 minutes gone
    await sink.emit(finished("p1", "Shard."))
    await totals_saying(viewer, "about 8 min left")  # 1 call in 4 minutes: the 2 left at that pace
    await sink.emit(finished("p2", "Replicate."))
    await totals_saying(viewer, "about 6 min left")  # the pace says 4 minutes: the estimate says more


def test_a_finished_debate_says_no_time_left(alice, offline_panel, make_question, client):
    question = make_question(alice, offline_panel, status="done", started_at=timezone.now(), calls=3)
    client.force_login(alice)

    page = client.get(f"/q/{question.pk}/").content.decode()

    assert 'class="time-left"' not in page
