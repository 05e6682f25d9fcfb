"""A document or a photo sent to the bot is asked with its caption as the question; a bad one is
refused in a reply, and nothing runs."""

import pytest
from asgiref.sync import sync_to_async

from debates.integrations.telegram.config import Config
from debates.models import Attachment, Question
from tests.fakes import files
from tests.fakes.telegram_server import FakeTelegramServer
from tests.telegram.conftest import ALLOWED
from tests.telegram.test_bot import poll_until

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("panel")]


def stored(question: Question) -> list[tuple[str, str, int | None]]:
    return [(a.name, a.kind, a.pages) for a in Attachment.objects.filter(question=question)]


async def test_a_document_is_asked_with_its_caption_as_the_question(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.document(ALLOWED, "q3.pdf", files.pdf(["Revenue fell 4%."]), caption="Why did revenue fall?")
    await poll_until(config, lambda: telegram.sent)
    [question] = submitted
    assert question.text == "Why did revenue fall?"
    assert await sync_to_async(stored)(question) == [("q3.pdf", "pdf", 1)]


async def test_a_photo_is_asked_as_a_jpeg_image(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.photo(ALLOWED, files.image(fmt="JPEG"), caption="What does this chart show?")
    await poll_until(config, lambda: telegram.sent)
    [question] = submitted
    assert await sync_to_async(stored)(question) == [("photo.jpg", "image", None)]


async def test_a_file_without_a_caption_asks_for_the_question(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.document(ALLOWED, "q3.pdf", files.pdf(["Revenue fell 4%."]))
    await poll_until(config, lambda: telegram.sent)
    assert submitted == []
    assert telegram.texts(ALLOWED) == ["Write your question as the file's caption: the panel reads the file with it."]


async def test_a_bad_file_is_refused_in_the_reply_and_nothing_runs(
    telegram: FakeTelegramServer, config: Config, submitted: list[Question]
) -> None:
    telegram.document(ALLOWED, "report.pdf", files.zip_archive(), caption="Summarise it")
    await poll_until(config, lambda: telegram.sent)
    assert submitted == []
    [reply] = telegram.texts(ALLOWED)
    assert reply.startswith("report.pdf is a ZIP archive: archives are not accepted")
    assert await sync_to_async(Question.objects.count)() == 0
