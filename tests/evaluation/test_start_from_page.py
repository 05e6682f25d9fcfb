"""Starting an evaluation from the Evaluations page: a signed-in user picks a data set, a panel and a
number of items; it runs as a background task, its items are that user's, and History keeps them
out unless asked. Bad input is refused in words before anything is stored or called."""

from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.test import override_settings
from django.urls import reverse
from django_tasks_db.models import DBTaskResult

from debates.evaluation import tasks
from debates.evaluation.models import Evaluation, EvaluationStatus
from debates.models import Question
from tests.evaluation import scenario

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/evaluations/"


@pytest.fixture
def folder(settings, tmp_path: Path) -> Path:
    """The data set folder the page offers, holding the six items of the scenario."""
    settings.TEOREMA = {**settings.TEOREMA, "DATASETS_DIR": str(tmp_path)}
    scenario.write_dataset(tmp_path / "six.jsonl")
    return tmp_path


@pytest.fixture
def run_now(monkeypatch) -> None:
    """The task runs to its end right here, instead of on a server's loop."""
    monkeypatch.setattr(
        tasks, "submit_evaluation", lambda evaluation: async_to_sync(tasks.run_evaluation.acall)(evaluation.pk)
    )


def start(client, follow: bool = False, **fields):
    return client.post(URL, {"dataset": "six.jsonl", "panel": "house", "limit": "2"} | fields, follow=follow)


def test_the_page_offers_the_data_sets_and_the_panels(client, alice, panel, folder) -> None:
    client.force_login(alice)
    html = client.get(URL).content.decode()
    assert '<option value="arithmetic"' in html
    assert '<option value="six.jsonl">six.jsonl</option>' in html
    assert '<option value="house" selected>Panel house</option>' in html


def test_an_evaluation_started_from_the_page_runs_and_its_items_are_the_users(
    client, alice, scripted, folder, run_now
) -> None:
    client.force_login(alice)

    response = start(client)

    evaluation = Evaluation.objects.get()
    assert response.status_code == 302
    assert response["Location"] == evaluation.get_absolute_url()
    assert (evaluation.owner, evaluation.status, evaluation.dataset) == (alice, EvaluationStatus.DONE, "six.jsonl")
    assert evaluation.items.count() == 2
    assert {q.owner for q in Question.objects.all()} == {alice}
    assert Question.objects.count() == 2


def test_the_arithmetic_task_is_generated_with_as_many_items_as_asked(client, alice, panel, folder, monkeypatch):
    monkeypatch.setattr(tasks, "submit_evaluation", lambda evaluation: None)
    client.force_login(alice)

    start(client, dataset="arithmetic", limit="3")

    evaluation = Evaluation.objects.get()
    assert (evaluation.dataset, evaluation.items.count()) == ("arithmetic:3:0", 3)


def test_starting_enqueues_the_evaluation_task(client, alice, panel, folder) -> None:
    client.force_login(alice)
    with override_settings(TASKS={"default": {"BACKEND": "django_tasks_db.DatabaseBackend", "QUEUES": ["default"]}}):
        start(client)
    queued = DBTaskResult.objects.get()
    assert queued.task_path == "debates.evaluation.tasks.run_evaluation"
    assert queued.args_kwargs["args"] == [Evaluation.objects.get().pk]


def test_the_same_evaluation_still_running_is_shown_not_started_twice(client, alice, panel, folder, monkeypatch):
    started = []
    monkeypatch.setattr(tasks, "submit_evaluation", started.append)
    client.force_login(alice)
    start(client)

    again = start(client, follow=True)

    assert len(started) == 1
    assert Evaluation.objects.count() == 1
    assert "That evaluation is already running" in again.content.decode()


def test_only_a_signed_in_user_may_start_one(client, panel, folder) -> None:
    response = start(client)
    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")
    assert not Evaluation.objects.exists()


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"dataset": "nope.jsonl"}, "There is no data set “nope.jsonl”: pick one from the list."),
        ({"dataset": "../six.jsonl"}, "There is no data set “../six.jsonl”: pick one from the list."),
        ({"panel": "nope"}, "There is no panel “nope”: pick one from the list."),
        ({"limit": "0"}, "Run at least 1 item."),
        ({"limit": "-1"}, "Run at least 1 item."),
        ({"limit": str(10**9)}, "At most 200 items from this page"),
        ({"limit": "abc"}, "The number of items is a whole number, such as 5."),
        ({"limit": ""}, "Say how many items to run."),
    ],
)
def test_bad_input_is_refused_in_words_before_anything_is_stored(
    client, alice, scripted, folder, fields, error
) -> None:
    client.force_login(alice)

    response = start(client, **fields)

    assert response.status_code == 400
    assert error in response.content.decode()
    assert not Evaluation.objects.exists()
    assert scripted.requests == []


def test_a_panel_that_cannot_run_is_refused_in_words(client, alice, scripted, panel, folder) -> None:
    panel.moderator.enabled = False
    panel.moderator.save()
    client.force_login(alice)

    response = start(client)

    assert response.status_code == 400
    assert "The panel “Panel house” cannot run: Moderator house is disabled." in response.content.decode()
    assert not Evaluation.objects.exists()


def test_a_malformed_data_set_is_refused_naming_its_line(client, alice, scripted, folder) -> None:
    (folder / "broken.jsonl").write_text('{"question": "Two plus two?", "answer": "4"}\n{"question": 3}\n')
    client.force_login(alice)

    response = start(client, dataset="broken.jsonl")

    assert response.status_code == 400
    assert "broken.jsonl, line 2: “question” must be a string, not a number" in response.content.decode()
    assert not Evaluation.objects.exists()


def test_the_list_refreshes_while_an_evaluation_runs_and_stops_when_none_does(
    client, alice, panel, folder, monkeypatch
) -> None:
    monkeypatch.setattr(tasks, "submit_evaluation", lambda evaluation: None)
    client.force_login(alice)
    start(client)
    poll = f'hx-get="{reverse("debates:evaluation_list")}" hx-trigger="every 3s"'

    assert poll in client.get(URL).content.decode()
    fragment = client.get(reverse("debates:evaluation_list")).content.decode()
    assert fragment.startswith('<div id="evaluation-list"')
    assert "0/2" in fragment

    Evaluation.objects.update(status=EvaluationStatus.DONE)
    assert poll not in client.get(URL).content.decode()


def test_history_keeps_evaluation_items_out_unless_asked(client, alice, scripted, folder, run_now) -> None:
    client.force_login(alice)
    start(client)
    Question.objects.create(owner=alice, panel=Evaluation.objects.get().panel, text="Asked by hand", criticality="low")

    default = client.get("/history/").content.decode()
    asked = client.get("/history/?evaluations=1").content.decode()

    assert "Asked by hand" in default
    assert "How many moons does Mars have?" not in default
    assert "How many moons does Mars have?" in asked
    assert "Asked by hand" in asked
    assert '<option value="1" selected>With evaluations</option>' in asked
