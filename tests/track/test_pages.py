"""The Models page and its JSON: signed-in users only, figures over what the user may see, the
plots inline, and a number of queries that does not grow with the history."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.track.conftest import bearer
from tests.track.history import Debate, Voice, store

A, B, C = "Panelist A", "Panelist B", "Panelist C"


def debates(panel, owner, count: int, **fields) -> None:
    for i in range(count):
        voices = {
            A: Voice(confidences=(0.9,)),
            B: Voice(confidences=(0.6,)),
            C: Voice("disagrees" if i % 3 else "agrees", (0.7,), change="partial" if i % 2 else ""),
        }
        store(panel, Debate(voices, outcome=("right", "wrong", "", "partly")[i % 4]), owner=owner, **fields)


def test_the_models_page_needs_a_sign_in(client):
    assert client.get("/models/").status_code == 302
    assert client.get("/api/models").status_code == 401


def test_the_page_shows_the_panel_the_plots_and_the_track_record(client, alice, house):
    debates(house, alice, 6)
    client.force_login(alice)
    page = client.get("/models/").content.decode()
    assert "3 voices ≈" in page
    assert "independent" in page
    assert page.count('<svg class="chart"') == 3
    assert page.count("How to read it:") >= 4
    for name in ("Alpha house", "Beta house", "Gamma house"):
        assert name in page
    assert "style=" not in page.split("<main>", 1)[1]  # the CSP forbids inline style: classes only


def test_the_figures_cover_only_the_questions_the_user_may_see(client, alice, bob, staff, house):
    debates(house, alice, 2)  # private to alice
    debates(house, bob, 3, visibility="users")  # shared
    client.force_login(bob)
    assert client.get("/api/models").json()["questions"] == 3
    assert client.get("/api/models", **bearer(alice)).json()["questions"] == 5
    assert client.get("/api/models", **bearer(staff)).json()["questions"] == 5


def test_the_json_has_every_figure(client, alice, house):
    debates(house, alice, 6)
    body = client.get("/api/models", **bearer(alice)).json()
    assert body["questions"] == 6
    assert body["with_outcome"] == 5
    gamma = next(p for p in body["panelists"] if p["name"] == "Gamma house")
    assert set(gamma) >= {
        "sided_with_verdict",
        "lone_dissent",
        "position_changes",
        "flags",
        "failures",
        "calibration",
        "contradicted_by_facts",
        "calls",
        "tokens_in",
        "tokens_out",
        "cost",
        "cost_per_question",
        "latency_ms",
    }
    assert gamma["sided_with_verdict"] == {"sided": 2, "of": 6, "rate": 2 / 6, "with_reservations": 0}
    assert {"a", "b", "agreement", "kappa", "questions"} <= set(body["agreement"][0])
    (panel,) = body["panels"]
    assert panel["independent_voices"] is not None
    assert len(panel["voices"]) == 3
    assert body["calibration"]["bins"][0].keys() == {"low", "high", "n", "confidence", "right"}


@pytest.mark.parametrize("path", ["/models/", "/api/models"])
def test_queries_do_not_grow_with_the_history(client, alice, house, path):
    client.force_login(alice)

    def queries(questions: int) -> int:
        debates(house, alice, questions)
        client.get(path)  # reads the new questions once (track.reading)
        with CaptureQueriesContext(connection) as captured:
            assert client.get(path).status_code == 200
        return len(captured)

    assert queries(10) == queries(90)  # 10, then 100 questions in all
