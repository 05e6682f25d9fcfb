"""A run another process holds, with the in-memory channel layer: the page says where it runs and polls.

Its broadcasts never reach this process, so a socket here would show "live · Running" forever;
with Redis they do, and the page streams as it always did.
"""

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from debates.management.commands.ask import in_the_browser
from debates.models import Contribution, Question, Round, Synthesis
from debates.runs import lease

HERE = lease.OWNER.partition(":")[0]
ELSEWHERE = f"{HERE}:4242:abcd1234"  # another process on this machine, as lease.OWNER spells one
REDIS = {"default": {"BACKEND": "channels_redis.core.RedisChannelLayer", "CONFIG": {"hosts": ["redis://127.0.0.1:1"]}}}
POLL = 'hx-trigger="every 3s"'


def held(owner: str = ELSEWHERE, left: timedelta = timedelta(minutes=1), **fields) -> dict:
    """A running question's fields, its lease held by ``owner`` for ``left`` more (negative: lapsed)."""
    expires = timezone.now() + left
    return {
        "status": "running",
        "phase": "Round 0 — independent answers",
        "lease_owner": owner,
        "lease_expires": expires,
        **fields,
    }


@pytest.fixture
def asked(alice, offline_panel, make_question):
    """Ask a question of alice's with the given lease fields."""

    def make(**fields) -> Question:
        return make_question(alice, offline_panel, **held(**fields))

    return make


@pytest.fixture
def as_alice(client, alice):
    client.force_login(alice)
    return client


def words(html: bytes) -> str:
    """The HTML with its whitespace runs made single spaces: the wording, not the template's line breaks."""
    return " ".join(html.decode().split())


def page(client, question: Question) -> str:
    return words(client.get(question.get_absolute_url()).content)


def live(question: Question) -> str:
    return reverse("debates:question_live", args=[question.pk])


def store_answer(question: Question, text: str = "Replicas first: reads dominate.") -> None:
    answers = Round.objects.create(question=question, index=0, kind="answer", title="Round 0", status="running")
    Contribution.objects.create(round=answers, seat="p1", label="Panelist A", kind="answer", status="done", text=text)
    Question.objects.filter(pk=question.pk).update(calls=1)


# The question page


def test_a_run_in_another_process_says_where_it_runs_and_polls_instead_of_a_dead_socket(as_alice, asked):
    question = asked()
    shown = page(as_alice, question)
    assert "<strong>Running in another process</strong> — pid 4242 on this machine" in shown
    assert "most likely the terminal that ran <code>manage.py ask</code>" in shown
    assert (
        "Live text streams there; this page shows each answer as it is stored and refreshes every few seconds." in shown
    )
    assert f'hx-get="{live(question)}?seen=' in shown
    assert POLL in shown
    assert "ws-connect" not in shown
    assert "data-connection" not in shown  # no "connecting…" / "live" that would never move
    assert "Round 0 — independent answers" in shown  # the phase, from the database
    assert "Cancel debate" in shown  # a cancel reaches the other process through the database


def test_a_run_on_another_machine_names_it(as_alice, asked):
    shown = page(as_alice, asked(owner="box-b:77:0badf00d"))
    assert "pid 77 on box-b" in shown


def test_a_run_of_this_process_streams_over_its_socket_as_before(as_alice, asked):
    question = asked(owner=lease.OWNER)
    shown = page(as_alice, question)
    assert f'ws-connect="/ws/questions/{question.pk}/"' in shown
    assert "data-connection" in shown
    assert POLL not in shown
    assert "another process" not in shown


def test_a_question_nobody_holds_yet_opens_its_socket(as_alice, asked):
    question = asked(owner="", status="queued")
    shown = page(as_alice, question)
    assert f'ws-connect="/ws/questions/{question.pk}/"' in shown
    assert POLL not in shown


def test_with_redis_the_live_text_crosses_processes_and_the_page_streams(as_alice, asked, settings):
    settings.CHANNEL_LAYERS = REDIS  # only read, never connected to
    question = asked()
    shown = page(as_alice, question)
    assert f'ws-connect="/ws/questions/{question.pk}/"' in shown
    assert POLL not in shown
    assert "another process" not in shown


def test_a_lapsed_lease_says_the_process_stopped_and_that_a_restart_resumes_it(as_alice, asked):
    shown = page(as_alice, asked(left=timedelta(seconds=-5)))
    assert "<strong>Interrupted</strong> — the process that ran this debate (pid 4242 on this machine)" in shown
    assert "stopped before it ended: it was killed, or it crashed." in shown
    assert "Nothing runs it now; it had stored no answer yet." in shown
    assert "This web server resumes unfinished runs when it starts: restart it (<code>make run</code>)" in shown
    assert 'class="badge status-interrupted">Interrupted<' in shown
    assert "Running in another process" not in shown
    assert POLL in shown  # whoever takes it up next, the page follows


def test_a_run_stopped_with_ctrl_c_says_a_restart_records_it_as_cancelled(as_alice, asked):
    # What `manage.py ask` leaves after Ctrl-C: its lease freed at once and a cancel requested.
    question = asked(left=timedelta(0), cancel_requested=True)
    store_answer(question)
    shown = page(as_alice, question)
    assert "Nothing runs it now; the answers it stored are below." in shown
    assert (
        "stopped before it ended, and a cancel was asked for (Ctrl-C in <code>manage.py ask</code> asks for one)."
        in shown
    )
    assert (
        "When this web server starts again (<code>make run</code>), it takes the run up and records it as cancelled"
        in shown
    )
    assert "Cancelling…" in shown


def test_with_workers_a_lapsed_run_is_left_to_them(as_alice, asked, settings):
    settings.RUN_IN_PROCESS = False
    shown = page(as_alice, asked(left=timedelta(seconds=-5)))
    assert "A running debate worker takes it up within seconds and continues from the stored answers" in shown
    assert "make run" not in shown


def test_a_finished_question_neither_polls_nor_streams(as_alice, asked):
    question = asked(status="done", verdict="Use read replicas.")
    shown = page(as_alice, question)
    assert POLL not in shown
    assert "ws-connect" not in shown
    assert "another process" not in shown


# The region the page polls


def test_the_polled_region_shows_the_notice_the_phase_and_the_next_poll(as_alice, asked):
    question = asked()
    response = as_alice.get(live(question))
    assert response.status_code == 200
    region = words(response.content)
    assert region.startswith('<div id="live"')
    assert 'hx-swap-oob="true"' in region  # swapped by id, as a socket's final fragment is
    assert 'hx-swap="none"' in region
    assert POLL in region
    assert "Running in another process" in region
    assert "Round 0 — independent answers" in region
    assert "<html" not in region


def test_a_poll_that_saw_everything_gets_no_content_and_a_stored_answer_comes_through(as_alice, asked):
    question = asked()
    first = as_alice.get(live(question)).content.decode()
    seen = first.split("?seen=", 1)[1].split('"', 1)[0]
    assert as_alice.get(live(question), {"seen": seen}).status_code == 204  # nothing new: nothing swapped
    store_answer(question)
    response = as_alice.get(live(question), {"seen": seen})
    assert response.status_code == 200
    assert "Replicas first: reads dominate." in words(response.content)


def test_a_run_over_returns_the_finished_region_without_a_poll(as_alice, asked):
    question = asked()
    store_answer(question)
    Synthesis.objects.create(
        question=question, text="## Verdict\nUse read replicas.", sections=[["Verdict", "Use read replicas."]]
    )
    Question.objects.filter(pk=question.pk).update(status="done", verdict="Use read replicas.", phase="Finished")
    region = words(as_alice.get(live(question), {"seen": "anything"}).content)
    assert 'id="verdict"' in region
    assert "Use read replicas." in region
    assert "hx-trigger" not in region  # the polling stops with this swap
    assert "hx-get" not in region
    assert "ws-connect" not in region
    assert "another process" not in region


def test_a_run_this_process_took_over_hands_the_region_back_to_the_socket(as_alice, asked):
    question = asked(left=timedelta(seconds=-5))
    Question.objects.filter(pk=question.pk).update(lease_owner=lease.OWNER, lease_expires=timezone.now())
    region = words(as_alice.get(live(question)).content)
    assert f'ws-connect="/ws/questions/{question.pk}/"' in region
    assert POLL not in region


def test_another_users_private_question_does_not_exist_for_the_poll(client, bob, asked):
    question = asked()
    client.force_login(bob)
    assert client.get(live(question)).status_code == 404
    assert client.get(question.get_absolute_url()).status_code == 404  # the same check as the page


def test_staff_may_poll_any_question(client, staff, asked):
    client.force_login(staff)
    assert client.get(live(asked())).status_code == 200


def test_a_signed_out_poll_is_sent_to_sign_in(client, asked):
    response = client.get(live(asked()))
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("path", ["/q/999999/live/", "/q/0/live/", "/q/abc/live/", "/q/-1/live/"])
def test_a_poll_of_no_question_is_not_found(as_alice, path):
    assert as_alice.get(path).status_code == 404


# What `manage.py ask` prints near the start


def public_url(settings, url: str) -> None:
    settings.TEOREMA = {**settings.TEOREMA, "PUBLIC_URL": url}


def test_the_terminal_gives_the_page_and_says_the_live_text_stays_there(asked, settings):
    public_url(settings, "http://127.0.0.1:8123")
    question = asked()
    assert in_the_browser(question, here=True) == (
        f"Follow it in the browser: http://127.0.0.1:8123/q/{question.pk}/"
        " — it refreshes there every few seconds; the live text is here."
    )


def test_the_terminal_gives_no_link_when_the_sites_address_is_unknown(asked, settings):
    public_url(settings, "")  # never a guessed port 8000 the server may not be on
    assert in_the_browser(asked(), here=True) == ""


def test_a_terminal_following_a_run_elsewhere_gives_the_page_as_live(asked, settings):
    public_url(settings, "https://teorema.example.com")
    question = asked()
    assert (
        in_the_browser(question, here=False)
        == f"Watch it live in the browser too: https://teorema.example.com/q/{question.pk}/"
    )


def test_with_redis_the_terminal_says_the_page_is_live_too(asked, settings):
    public_url(settings, "http://127.0.0.1:8000")
    settings.CHANNEL_LAYERS = REDIS
    question = asked()
    assert (
        in_the_browser(question, here=True)
        == f"Watch it live in the browser too: http://127.0.0.1:8000/q/{question.pk}/"
    )
