"""Following a run from outside the page: the terminal (manage.py ask) and Telegram.

They may run in another process than the run (the Telegram poller does), where the in-memory
channel layer never reaches: so follow() reads the question from the DB and the live state with
read_state, which every process of a server finds in the cache and the run's own process gets
from the run's sink.
"""

import asyncio
from collections.abc import AsyncIterator

from debates.live.state import LiveState, read_state
from debates.models import Question


async def follow(question_id: int, every: float, patience: float) -> AsyncIterator[tuple[Question, LiveState | None]]:
    """The question and its live state every ``every`` seconds, the last time once it is finished.

    Ends without a finished question after ``patience`` seconds, or when the question is deleted.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + patience
    while loop.time() < deadline:
        question = await Question.objects.filter(pk=question_id).afirst()
        if question is None:
            return
        yield question, read_state(question_id)
        if question.is_finished:
            return
        await asyncio.sleep(every)
