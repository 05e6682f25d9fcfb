"""An evaluation's task and what enqueues it, beside the evaluation it runs: local mode runs it on
the server's own loop, a server setup puts it in the database for the workers (as a question's,
``runs.tasks``, which this package reads, never the other way)."""

from django.tasks import task

from debates.evaluation.models import Evaluation, EvaluationStatus
from debates.evaluation.runner import Runner


@task()
async def run_evaluation(evaluation_id: int) -> str:
    """An evaluation started from the page: every item a question, run here one at a time."""
    evaluation = await Evaluation.objects.select_related("panel", "owner").aget(pk=evaluation_id)
    await Runner(evaluation, evaluation.settings.get("concurrency", 1)).run()
    return EvaluationStatus.DONE


def submit_evaluation(evaluation: Evaluation) -> None:
    """Enqueue an evaluation's run, as ``runs.tasks.submit`` does a question's."""
    run_evaluation.enqueue(evaluation.pk)
