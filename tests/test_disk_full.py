"""A full disk under the single process (SQLite): refused in words, nothing half-written, resumable.

The disk is filled the way SQLite itself reports it: the database may not grow by a page
(``PRAGMA max_page_count``), its free pages taken by a filler, so any write that needs a new
page fails with SQLITE_FULL, "database or disk is full". Small updates still fit in the pages
there are; a question with its context, or a contribution, does not.
"""

import asyncio
import json

import pytest
from asgiref.sync import sync_to_async
from django.db import OperationalError, connection
from django.db.backends.signals import connection_created
from django.urls import reverse

from debates import service
from debates.models import ApiToken, Contribution, Question, Status, Synthesis
from debates.runs import execute
from debates.tokens import assign_secret
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.fakes.roster import make_panel, make_question
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)
MODELS = ("model-alpha", "model-beta", "model-gamma")
# A page of text that is no loop (one sentence said over and over would be kept once).
LONG = "Reporting reads dominate the load, so replicas take them. The primary keeps the writes and their locks. " * 60
SQLITE_MAX_PAGES = 1073741823  # SQLite's own ceiling, the default


def write_until_full(cursor) -> None:
    """Take the free pages, and the room left in the filler's own."""
    while True:
        cursor.execute("INSERT INTO disk_filler VALUES (zeroblob(512))")


class Disk:
    """The test database, made unable to grow (and able again): a full disk is full for every
    connection, so each one opened meanwhile (a request's own, closed when it ends) is capped too."""

    def fill(self) -> None:
        with connection.cursor() as cursor:
            cursor.execute("CREATE TABLE IF NOT EXISTS disk_filler (data BLOB)")
            cursor.execute("PRAGMA page_count")
            cursor.execute(f"PRAGMA max_page_count = {cursor.fetchone()[0]}")
            with pytest.raises(OperationalError, match="database or disk is full"):
                write_until_full(cursor)
        connection_created.connect(capped, dispatch_uid="disk-full")

    def free(self) -> None:
        connection_created.disconnect(dispatch_uid="disk-full")
        with connection.cursor() as cursor:
            cursor.execute(f"PRAGMA max_page_count = {SQLITE_MAX_PAGES}")
            cursor.execute("DROP TABLE IF EXISTS disk_filler")


def capped(sender: object, connection: object, **kwargs: object) -> None:
    """A connection opened while the disk is full: it cannot grow the file either."""
    with connection.cursor() as cursor:  # type: ignore[attr-defined]
        cursor.execute("PRAGMA page_count")
        cursor.execute(f"PRAGMA max_page_count = {cursor.fetchone()[0]}")


@pytest.fixture
def disk():
    """The main thread's connection, freed afterwards."""
    disk = Disk()
    yield disk
    disk.free()


@pytest.fixture
def bearer(alice) -> dict[str, str]:
    token = ApiToken(user=alice, name="script")
    raw = assign_secret(token)
    token.save()
    return {"HTTP_AUTHORIZATION": f"Bearer {raw}"}


def test_a_question_that_cannot_be_stored_is_refused_in_words_on_the_page_and_the_api(client, alice, bearer, disk):
    make_panel("http://127.0.0.1:9/v1")
    client.force_login(alice)
    disk.fill()
    page = client.post(reverse("debates:ask"), {"text": "Shard or replicate?", "context": LONG})
    api = client.post(
        "/api/questions",
        json.dumps({"text": "Shard or replicate?", "context": LONG}),
        content_type="application/json",
        **bearer,
    )
    assert page.status_code == 503
    assert "disk is full" in page.content.decode()
    assert api.status_code == 503
    assert "disk is full" in api.json()["error"]
    disk.free()
    assert not Question.objects.exists()  # nothing half-stored
    assert client.post(reverse("debates:ask"), {"text": "Shard or replicate?", "context": LONG}).status_code == 302


@pytest.fixture
async def runs_disk():
    """The connection of the thread every run's writes go through (asgiref's one), freed afterwards."""
    disk = Disk()
    yield disk
    await sync_to_async(disk.free)()


def stored_calls(question: Question) -> int:
    return Contribution.objects.filter(round__question=question).exclude(kind="grounding").count()


async def test_a_run_that_cannot_store_an_answer_stops_in_words_with_nothing_half_stored(fake_provider, runs_disk):
    for model in MODELS:
        fake_provider.script(model, f"{model}: {LONG}")  # each answer needs a page of its own
    question = await sync_to_async(make_question)(await sync_to_async(make_panel)(fake_provider.base_url("openai")))
    await sync_to_async(runs_disk.fill)()
    assert await execute.execute(question.pk) == Status.FAILED
    stopped = await Question.objects.aget(pk=question.pk)
    assert stopped.error.startswith("The server's disk is full, so the run stopped"), stopped.error
    assert stopped.calls == await sync_to_async(stored_calls)(stopped)  # each row with its totals, or neither
    assert not await Synthesis.objects.filter(question=stopped).aexists()


async def test_a_synthesis_that_finds_the_disk_full_is_written_once_space_is_back_from_the_stored_panel(
    fake_provider, runs_disk
):
    for model in MODELS:
        fake_provider.script(model, f"{model}: read replicas, because reporting reads dominate the load.")
    fake_provider.script("model-moderator", Script(answer=f"{SYNTHESIS}\n\n{LONG}", tokens_per_second=400))
    question = await sync_to_async(make_question)(await sync_to_async(make_panel)(fake_provider.base_url("openai")))
    running = asyncio.create_task(execute.execute(question.pk))
    await wait_for(lambda: fake_provider.requests_for("model-moderator"), "the moderator's call")
    await sync_to_async(runs_disk.fill)()
    assert await running == Status.FAILED
    stopped = await Question.objects.aget(pk=question.pk)
    assert stopped.error.startswith("The server's disk is full"), stopped.error
    assert not await Synthesis.objects.filter(question=stopped).aexists()  # not marked done without it
    assert stopped.calls == await sync_to_async(stored_calls)(stopped)

    await sync_to_async(runs_disk.free)()
    await sync_to_async(service.retry)(None, stopped.pk)  # nothing failed to call again: the run resumes
    done = await wait_for(lambda: Question.objects.filter(pk=question.pk, status=Status.DONE).afirst(), "the retry")
    assert done.verdict == "Use read replicas."
    panel_calls = [r for r in fake_provider.requests if r.model in MODELS]
    assert len(panel_calls) == len(MODELS) * 2  # the stored panel work is replayed, not asked again
    assert len(fake_provider.requests_for("model-moderator")) == 2
