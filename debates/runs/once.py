"""A debate is asked once: a client that asks again (its retry after a timeout or an error, a
request with the same Idempotency-Key, the same request while its run goes) gets the question
already asked, never a second run and its bill.

A channel says what its request was (``Asked``); the service looks here before it asks anew, and
stores the key and the digest with the question it starts.
"""

import hashlib
import json
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.utils import timezone

from debates.engine.vocabulary import FINISHED
from debates.models import Question
from debates.refusal import Kind, Refused

KEY_CHARS = 255  # as long as OpenAI's and Stripe's keys may be
# A client's retry comes seconds after its timeout or error (the openai package waits 8 s at most,
# a Retry-After 60 s): a run that ended this recently is the one it asks again for.
RETRY_WINDOW = timedelta(minutes=10)


@dataclass(frozen=True)
class Asked:
    """A channel's request: ``key``, the client's Idempotency-Key ("" none); ``digest``, the
    request's digest (``digest``); ``retry``, the client says it is asking again."""

    key: str = ""
    digest: str = ""
    retry: bool = False

    def __post_init__(self) -> None:
        if len(self.key) > KEY_CHARS:
            raise Refused(
                f"The Idempotency-Key is {len(self.key)} characters long: at most {KEY_CHARS}.",
                Kind.INVALID,
                {"Idempotency-Key": [f"At most {KEY_CHARS} characters."]},
            )

    @property
    def fields(self) -> dict[str, str]:
        """What the question stores of it."""
        return {"idempotency_key": self.key, "request_digest": self.digest}


def digest(request: dict[str, Any]) -> str:
    """A request's digest: the same fields with the same values, in whatever order, give the same."""
    text = json.dumps(request, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def earlier(user: Any, asked: Asked) -> Question | None:
    """The question this request already asked, if any: the one with its key (refused when that key
    asked something else); else this user's run of the same request still going; else, for a
    client's retry, the latest that ended within ``RETRY_WINDOW``."""
    mine = Question.objects.select_related("panel").filter(owner=user)
    if asked.key:
        found = mine.filter(idempotency_key=asked.key).first()
        if found is not None and found.request_digest != asked.digest:
            raise Refused(
                f"This Idempotency-Key asked question {found.pk}, with another request: use a new key for a "
                "new request.",
                Kind.CONFLICT,
                {"Idempotency-Key": ["Used before, with another request."]},
            )
        return found
    if not asked.digest:
        return None
    same = mine.filter(request_digest=asked.digest).order_by("-created_at")
    running = same.exclude(status__in=FINISHED).first()
    if running is not None or not asked.retry:
        return running
    return same.filter(finished_at__gte=timezone.now() - RETRY_WINDOW).first()
