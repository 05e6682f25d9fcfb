"""The evaluation pages and downloads: for the owner and staff only, a plot and Du et al.'s table,
progress that refreshes while it runs, and exports a spreadsheet cannot be tricked by."""

import csv
import io
import json
import re

import pytest
from django.core.management import call_command
from django.urls import reverse

from debates.evaluation import datasets
from debates.evaluation.models import Evaluation, EvaluationItem
from debates.evaluation.runner import start
from tests.evaluation import scenario

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def finished(scripted, six_items, alice) -> Evaluation:
    call_command("evaluate", str(six_items), "--user", "alice")
    return Evaluation.objects.get()


@pytest.fixture
def running(panel, six_items, alice) -> Evaluation:
    """Started, nothing finished yet (no call is made: the runner never runs)."""
    evaluation, _ = start(datasets.load(str(six_items)), panel, alice, {"concurrency": 2})
    return evaluation


def page(client, user, evaluation: Evaluation, name: str = "debates:evaluation", *more: str):
    client.force_login(user)
    return client.get(reverse(name, args=[evaluation.pk, *more]))


def test_the_page_shows_the_plot_and_du_et_als_table(client, alice, finished) -> None:
    response = page(client, alice, finished)
    assert response.status_code == 200
    html = response.content.decode()
    svg = html[html.index("<svg") : html.index("</svg>")]
    assert svg.count('class="fill"') == 5  # three models, the majority vote, the verdict
    assert 'width="83.3%"' in svg  # Alpha alone, and the verdict
    assert "5/6 · 83.3% (44%–97%)" in svg
    assert "4/6 · 66.7% (30%–90%)" in svg
    assert re.search(r'<rect class="fill" x="0" y="\d+" width="33.3%"', svg)  # Gamma
    assert "Single agent: </span>Alpha house" in html
    assert "1 tie counted wrong" in html
    assert "hx-trigger" not in html  # finished: nothing left to refresh
    wrong = (1 + 3 + 4) + 2 + 1  # blind answers (alpha, beta, gamma), majorities, verdicts
    assert html.count('class="answer wrong"') == wrong
    assert reverse("debates:evaluation_export", args=[finished.pk, "csv"]) in html


def test_the_page_of_a_running_evaluation_refreshes_its_progress(client, alice, running) -> None:
    html = page(client, alice, running).content.decode()
    assert f'hx-get="{reverse("debates:evaluation_results", args=[running.pk])}"' in html
    assert 'hx-trigger="every 3s"' in html
    assert "<strong>0</strong> of 6 items" in html
    assert html.count(">waiting</td>") == 6
    fragment = page(client, alice, running, "debates:evaluation_results").content.decode()
    assert fragment.startswith('<div id="evaluation-results"')
    assert "<html" not in fragment


def test_an_evaluation_is_its_owners_and_staffs_only(client, alice, bob, staff, finished) -> None:
    assert page(client, bob, finished).status_code == 404
    assert page(client, bob, finished, "debates:evaluation_export", "csv").status_code == 404
    assert page(client, staff, finished).status_code == 200
    client.force_login(bob)
    assert "six.jsonl" not in client.get(reverse("debates:evaluations")).content.decode()
    client.force_login(alice)
    listing = client.get(reverse("debates:evaluations")).content.decode()
    assert "six.jsonl" in listing
    row = re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", listing))
    assert "Items 6/6 Best model 83% Majority 67% Verdict 83% Cost $0.0" in row
    client.logout()
    assert client.get(reverse("debates:evaluations")).status_code == 302


def test_the_exports_carry_every_item_and_the_totals(client, alice, finished) -> None:
    response = page(client, alice, finished, "debates:evaluation_export", "csv")
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    assert response["Content-Disposition"] == f'attachment; filename="evaluation-{finished.pk}.csv"'
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [row["id"] for row in rows] == [item["id"] for item in scenario.ITEMS]
    assert [row["verdict_correct"] for row in rows] == ["True", "True", "True", "True", "False", "True"]
    assert rows[3]["Gamma house read"] == "Venus"
    data = json.loads(page(client, alice, finished, "debates:evaluation_export", "json").content)
    assert data["evaluation"]["totals"]["rows"][-1] == {
        "kind": "verdict",
        "label": "Verdict after debate",
        "detail": "the moderator",
        "correct": 5,
        "total": 6,
        "accuracy": 5 / 6,
        "interval95": pytest.approx([0.4365, 0.9699], abs=1e-4),
    }
    assert page(client, alice, finished, "debates:evaluation_export", "xml").status_code == 404


def test_a_csv_cell_a_spreadsheet_would_run_as_a_formula_is_quoted(client, alice, finished) -> None:
    item = EvaluationItem.objects.get(evaluation=finished, item_id="moons")
    item.verdict = '=HYPERLINK("http://evil.example","click")'
    item.save()
    exported = page(client, alice, finished, "debates:evaluation_export", "csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(exported)))
    assert rows[0]["verdict"] == "'" + item.verdict
    assert rows[0]["expected"] == "2"
