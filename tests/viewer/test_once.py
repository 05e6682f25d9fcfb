"""The service asks a request once (``runs.once``): the same Idempotency-Key gets its question, the
same request joins its run while it goes, a client's retry gets the run that just ended; anything
else is a new question. No run is started, no call made."""

from datetime import timedelta

import pytest
from django.utils import timezone
from hypothesis import given
from hypothesis import strategies as st

from debates import service
from debates.models import Question, Source, Status
from debates.refusal import Kind, Refused
from debates.runs import once
from debates.runs.once import Asked


def ask(user, asked: Asked, text: str = "Shard or replicate?") -> Question:
    return service.ask(user, source=Source.OPENAI, asked=asked, text=text, panel="offline")


@pytest.fixture
def asking(alice, offline_panel, no_runs):
    return lambda asked, **fields: ask(alice, asked, **fields)


def test_a_key_gets_its_question_running_or_ended(asking, no_runs):
    first = asking(Asked(key="k-1", digest="d"))
    assert asking(Asked(key="k-1", digest="d")) == first
    Question.objects.filter(pk=first.pk).update(status=Status.DONE, finished_at=timezone.now() - timedelta(days=3))
    assert asking(Asked(key="k-1", digest="d")) == first  # a key names its question for good
    assert len(no_runs) == 1


def test_a_key_with_another_request_is_refused_and_asks_nothing(asking, no_runs):
    first = asking(Asked(key="k-1", digest="d"))
    with pytest.raises(Refused) as refused:
        asking(Asked(key="k-1", digest="other"), text="Something else?")
    assert refused.value.kind == Kind.CONFLICT
    assert refused.value.field == "Idempotency-Key"
    assert f"asked question {first.pk}" in refused.value.message
    assert Question.objects.count() == 1


def test_the_same_request_joins_its_run_while_it_goes_then_is_asked_anew(asking):
    first = asking(Asked(digest="d"))
    assert asking(Asked(digest="d")) == first
    Question.objects.filter(pk=first.pk).update(status=Status.CANCELLED, finished_at=timezone.now())
    second = asking(Asked(digest="d"))
    assert second != first  # asked again by a person, not retried by a client: a new question


def test_a_clients_retry_gets_the_run_that_just_ended_whatever_its_end(asking):
    first = asking(Asked(digest="d"))
    Question.objects.filter(pk=first.pk).update(status=Status.CANCELLED, finished_at=timezone.now())
    assert asking(Asked(digest="d", retry=True)) == first  # a cancel stays a cancel
    Question.objects.filter(pk=first.pk).update(finished_at=timezone.now() - once.RETRY_WINDOW - timedelta(seconds=1))
    assert asking(Asked(digest="d", retry=True)) != first


def test_another_users_same_request_is_their_own(asking, bob):
    first = asking(Asked(key="k-1", digest="d"))
    assert ask(bob, Asked(key="k-1", digest="d")) != first
    assert ask(bob, Asked(digest="d")) != first


def test_a_joined_request_takes_none_of_the_hours_questions(asking, settings):
    settings.TEOREMA = settings.TEOREMA | {"QUESTIONS_PER_HOUR": 1}
    first = asking(Asked(digest="d"))
    assert asking(Asked(digest="d")) == first
    with pytest.raises(Refused) as refused:
        asking(Asked(digest="other"), text="Something else?")
    assert refused.value.kind == Kind.RATE_LIMITED


def test_twins_with_one_key_are_one_question(asking, monkeypatch):
    """Two requests with one key at once: both looked and found nothing; the second's save meets the
    first's row, and it gets that question."""
    first = asking(Asked(key="k-1", digest="d"))
    looked = []
    real = once.earlier

    def too_early(user, asked):
        looked.append(asked)
        return None if len(looked) == 1 else real(user, asked)

    monkeypatch.setattr(once, "earlier", too_early)
    assert asking(Asked(key="k-1", digest="d")) == first
    assert Question.objects.count() == 1


def test_a_key_longer_than_any_clients_is_refused_in_words():
    with pytest.raises(Refused, match="at most 255"):
        Asked(key="k" * 256)


@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=6))
def test_a_requests_digest_is_its_values_not_their_order(request):
    assert once.digest(request) == once.digest(dict(reversed(list(request.items()))))
