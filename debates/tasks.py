"""The one task: run (or resume) a question. Local mode and workers enqueue it the same way."""

from django.tasks import task

from debates import runs


@task()
async def run_question(question_id: int) -> str | None:
    """Returns the run's final status, or None when another runner holds it."""
    return await runs.execute(question_id)
