"""Asking: how a valid question starts, whichever way it came in (the page, a follow-up or re-ask,
the API, Telegram). Each caller words a refusal its own way: a form error, a 429, a reply."""

from django.contrib.auth.models import AbstractBaseUser

from debates import ratelimit
from debates.forms import AskForm
from debates.models import Question, Source
from debates.runs import tasks


class OverLimit(Exception):
    """The owner has asked as many questions this hour as they may: ``wait`` seconds until the next
    one, and ``message``, the limit in words."""

    def __init__(self, wait: int) -> None:
        self.wait = wait
        self.message = ratelimit.refusal(wait)
        super().__init__(self.message)


def ask(
    form: AskForm, owner: AbstractBaseUser, source: str = Source.PAGE, reask_of: Question | None = None
) -> Question:
    """Take one of the owner's submissions for this hour, save the valid ``form``'s question (asked
    from ``source``, perhaps again: ``reask_of``) and start its run. OverLimit when the hour's are spent."""
    if wait := ratelimit.take(owner.pk):
        raise OverLimit(wait)
    question = form.save(owner=owner, source=source, reask_of=reask_of)
    tasks.submit(question)
    return question
