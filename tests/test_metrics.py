"""/metrics: the figures a team's Prometheus scrapes, read from the stored rows (so any web process
answers for every worker), in Prometheus's text format, to a staff user's token only."""

from decimal import Decimal

import pytest
from django.test import Client
from prometheus_client.parser import text_string_to_metric_families

from debates.models import ApiToken, Contribution, Panelist, Round
from debates.tokens import assign_secret
from tests.fakes.roster import make_panel, make_question

pytestmark = pytest.mark.django_db


def token_of(user) -> str:
    made = ApiToken(user=user, name="prometheus")
    raw = assign_secret(made)
    made.save()
    return f"Bearer {raw}"


def scraped(client: Client, authorization: str) -> dict[tuple[str, tuple], float]:
    response = client.get("/metrics", HTTP_AUTHORIZATION=authorization)
    assert response.status_code == 200, response.content
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.content.decode())
        for sample in family.samples
    }


@pytest.fixture
def stored(db):
    """A finished run: two answers (0.8 s and 3.5 s), one failed call; a question still queued."""
    panel = make_panel("http://127.0.0.1:9/v1", voices=3)
    done = make_question(panel, status="done")
    blind = Round.objects.create(question=done, index=0, kind="answer", title="Blind answers")
    alpha, beta, gamma = (Panelist.objects.get(name=f"{n} house") for n in ("Alpha", "Beta", "Gamma"))
    for seat, panelist, status, latency, cost in [
        ("a", alpha, "done", 800, "0.0100"),
        ("b", beta, "done", 3500, "0.0250"),
        ("c", gamma, "failed", 0, "0"),
    ]:
        Contribution.objects.create(
            round=blind,
            seat=seat,
            label=seat.upper(),
            panelist=panelist,
            kind="answer",
            status=status,
            tokens_in=100,
            tokens_out=50 if status == "done" else 0,
            cost=Decimal(cost),
            latency_ms=latency,
            first_token_ms=latency // 4 if status == "done" else None,
        )
    make_question(panel, text="Another", status="queued")
    return panel


def test_the_stored_runs_are_counted_by_provider_model_and_outcome(stored, client, staff):
    figures = scraped(client, token_of(staff))
    provider = ("provider", "Fake house")
    assert figures[("teorema_provider_calls_total", (("model", "model-alpha"), ("outcome", "done"), provider))] == 1
    assert figures[("teorema_provider_calls_total", (("model", "model-gamma"), ("outcome", "failed"), provider))] == 1
    assert figures[("teorema_tokens_total", (("direction", "out"), ("model", "model-beta"), provider))] == 50
    assert figures[("teorema_cost_dollars_total", (("model", "model-beta"), provider))] == pytest.approx(0.025)
    assert figures[("teorema_questions_total", (("status", "done"),))] == 1
    assert figures[("teorema_questions_total", (("status", "failed"),))] == 0
    assert figures[("teorema_runs_degraded_total", ())] == 1  # finished with a voice failed
    assert figures[("teorema_queue_depth", (("state", "queued"),))] == 1
    # The answered calls' durations: 0.8 s in the 1 s bucket, 3.5 s from the 5 s bucket on.
    buckets = {
        le: figures[("teorema_call_duration_seconds_bucket", (("le", le), provider))]
        for le in ("0.5", "1.0", "5.0", "+Inf")
    }
    assert buckets == {"0.5": 0, "1.0": 1, "5.0": 2, "+Inf": 2}
    assert figures[("teorema_call_duration_seconds_sum", (provider,))] == pytest.approx(4.3)
    first = {
        le: figures[("teorema_time_to_first_token_seconds_bucket", (("le", le), provider))] for le in ("0.5", "1.0")
    }
    assert first == {"0.5": 1, "1.0": 2}  # 0.2 s and 0.875 s
    assert figures[("teorema_time_to_first_token_seconds_count", (provider,))] == 2
    assert figures[("teorema_live_sockets", ())] == 0


def test_the_checks_between_rounds_are_counted_by_outcome(stored, client, staff):
    question = stored.questions.get(status="done")
    step = Round.objects.create(question=question, index=1, kind="check", title="Round 0 — numbers checked (SymPy)")
    found = [
        {"label": "A", "quote": "2^10 = 1024", "computation": "2**10 = 1024", "holds": True},
        {"label": "B", "quote": "2^10 = 1000", "computation": "2**10 = 1024", "holds": False},
        {"label": "B", "quote": "7/3 = 2.33", "computation": "7/3 = 2.333…", "holds": True},
        {"label": "C", "quote": "about a million", "computation": "not checked: no number to compute", "holds": None},
    ]
    Contribution.objects.create(
        round=step, seat="checks", label="SymPy", kind="check", status="done", ledger={"checks": found}
    )
    figures = scraped(client, token_of(staff))
    outcomes = ("holds", "does_not_hold", "not_checked")
    counted = {o: figures[("teorema_checks_total", (("outcome", o),))] for o in outcomes}
    assert counted == {"holds": 2, "does_not_hold": 1, "not_checked": 1}
    assert not [key for key in figures if ("provider", "unknown") in key[1]]  # SymPy's step is no provider call


def test_an_empty_deployment_answers_with_zeros(client, staff):
    figures = scraped(client, token_of(staff))
    assert figures[("teorema_questions_total", (("status", "done"),))] == 0
    assert figures[("teorema_runs_degraded_total", ())] == 0
    assert figures[("teorema_checks_total", (("outcome", "holds"),))] == 0


@pytest.mark.parametrize("authorization", ["", "Bearer not-a-token", "Basic YWRtaW46YWRtaW4="])
def test_without_a_valid_token_the_answer_is_a_401_in_words(client, authorization):
    response = client.get("/metrics", HTTP_AUTHORIZATION=authorization)
    assert response.status_code == 401
    assert "API token of a staff user" in response.json()["error"]
    assert response["WWW-Authenticate"] == 'Bearer realm="teorema"'


def test_a_token_of_a_user_who_is_not_staff_is_refused(client, alice):
    response = client.get("/metrics", HTTP_AUTHORIZATION=token_of(alice))
    assert response.status_code == 403
    assert response.json() == {"error": "Only a staff user's token may read the metrics."}


def test_a_signed_in_session_is_not_enough(client, staff):
    client.force_login(staff)
    assert client.get("/metrics").status_code == 401
