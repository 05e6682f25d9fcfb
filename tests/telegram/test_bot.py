"""A question from an allowed chat runs on the default panel and its verdict comes back."""

import asyncio
from collections.abc import Callable

import pytest
from asgiref.sync import sync_to_async

from debates.integrations.telegram.config import Config
from debates.integrations.telegram.poll import poll
from debates.models import Panel, Question
from tests.fakes.telegram_server import FakeTelegramServer
from tests.telegram.conftest import ALLOWED, STRANGER

pytestmark = pytest.mark.django_db(transaction=True)


async def poll_until(config: Config, done: Callable[[], bool], seconds: float = 20) -> None:
    """Run the real poller against the fake server until ``done()``, then stop it."""
    stop = asyncio.Event()
    task = asyncio.create_task(poll(config, stop, long_poll_s=1))
    try:
        for _ in range(int(seconds / 0.05)):  # the fake server's state lives in another thread: look often
            if done():
                break
            await asyncio.sleep(0.05)
        else:
            raise TimeoutError(f"not done after {seconds} s")
    finally:
        stop.set()
        await task


@pytest.mark.usefixtures("panel")
async def test_a_question_starts_a_run_of_the_default_panel_and_links_to_it(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll_until(config, lambda: telegram.sent)
    [question] = submitted
    assert (question.text, question.panel.slug, question.owner.username) == ("Is 91 prime?", "default", "telegram")
    assert telegram.texts(ALLOWED) == [f"Running… http://127.0.0.1:8000/q/{question.pk}/"]


async def test_a_chat_not_allowed_is_refused_politely_and_nothing_runs(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question], caplog: pytest.LogCaptureFixture
) -> None:
    telegram.message(STRANGER, "Is 91 prime?")
    await poll_until(config, lambda: telegram.sent)
    assert submitted == []
    assert telegram.texts(STRANGER) == ["Sorry, this bot only answers the chats it was set up for."]
    assert f"Refused an update from chat {STRANGER}" in caplog.text


async def test_a_pressed_button_from_a_chat_not_allowed_gets_no_voices(
    telegram: FakeTelegramServer, config: Config
) -> None:
    telegram.callback(STRANGER, "voices:1")
    await poll_until(config, lambda: any(m == "answerCallbackQuery" for m, _ in telegram.calls))
    assert telegram.sent == []


async def test_without_a_default_panel_the_asker_is_told_what_is_missing(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll_until(config, lambda: telegram.sent)
    assert submitted == []
    assert telegram.texts(ALLOWED) == ["No default panel is set up yet: an admin has to mark one as the default."]


async def test_a_panel_that_cannot_run_is_refused_before_a_run_starts(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question], panel: Panel
) -> None:
    provider = panel.moderator.provider
    provider.set_api_key("")
    await sync_to_async(provider.save)()
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll_until(config, lambda: telegram.sent)
    assert submitted == []
    [refusal] = telegram.texts(ALLOWED)
    assert "cannot run" in refusal
    assert "has no key for alpha, beta: no API key is stored for it" in refusal


@pytest.mark.usefixtures("panel")
async def test_when_the_run_finishes_the_whole_synthesis_arrives_split_and_accepted(
    telegram: FakeTelegramServer, config: Config, instant_runs: str
) -> None:
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll_until(config, lambda: len(telegram.sent) > 3)
    running, *verdict = telegram.texts(ALLOWED)
    assert running.startswith("Running… http://127.0.0.1:8000/q/")
    assert len(verdict) > 2, "a 10k-character verdict takes several messages"
    assert telegram.rejected == []
    received = "\n\n".join(verdict)
    assert received.count("91 is not prime: 91 = 7 × 13, so the key is weak. x < y") == 150
    assert received.endswith("Open the debate")
    last = telegram.sent[-1]
    assert last["reply_markup"]["inline_keyboard"][0][0]["callback_data"].startswith("voices:")


@pytest.mark.usefixtures("panel", "instant_runs")
async def test_each_voice_is_sent_on_request_by_button_or_command(telegram: FakeTelegramServer, config: Config) -> None:
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll_until(config, lambda: len(telegram.sent) > 3)
    question = await Question.objects.aget()
    before = len(telegram.sent)
    telegram.callback(ALLOWED, f"voices:{question.pk}")
    telegram.message(ALLOWED, f"/voices {question.pk}")
    await poll_until(config, lambda: len(telegram.sent) >= before + 4)
    voices = telegram.texts(ALLOWED)[before:]
    assert (
        voices
        == [
            "Panelist A · alpha\n\nPanelist A says, in round 1: 7 * 13 = 91.",
            "Panelist B · beta\n\nPanelist B says, in round 1: 7 * 13 = 91.",
        ]
        * 2
    )


@pytest.mark.usefixtures("panel", "submitted")
async def test_result_of_a_running_question_says_it_is_still_running(
    telegram: FakeTelegramServer, config: Config
) -> None:
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll_until(config, lambda: telegram.sent)
    question = await Question.objects.aget()
    telegram.message(ALLOWED, f"/result {question.pk}")
    telegram.message(ALLOWED, "/help")
    await poll_until(config, lambda: len(telegram.sent) >= 3)
    _, result, help_text = telegram.texts(ALLOWED)
    assert result.startswith(f"Question #{question.pk} · Queued\n\nStill running")
    assert help_text.startswith("Send me a question")


@pytest.mark.usefixtures("panel")
async def test_a_poller_stopped_right_after_answering_does_not_answer_again_on_restart(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    telegram.on_send = lambda: loop.call_soon_threadsafe(stop.set)  # stops before the next getUpdates
    telegram.message(ALLOWED, "Is 91 prime?")
    await poll(config, stop, long_poll_s=1)
    telegram.on_send = None
    telegram.message(ALLOWED, "/help")
    await poll_until(config, lambda: len(telegram.sent) >= 2)
    assert [q.text for q in submitted] == ["Is 91 prime?"]
    assert len(telegram.texts(ALLOWED)) == 2


@pytest.mark.usefixtures("panel")
async def test_a_message_with_a_lone_surrogate_is_refused_in_words_and_nothing_runs(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.message(ALLOWED, "Is 91\ud800 prime?")
    await poll_until(config, lambda: telegram.sent)
    assert submitted == []
    [refusal] = telegram.texts(ALLOWED)
    assert refusal.startswith("It holds a lone UTF-16 surrogate (\\ud800), half of a character")
