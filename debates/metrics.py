"""``/metrics``: what a team's Prometheus scrapes, in its text format (prometheus-client's).

The figures a team watches across its processes (questions by outcome, provider calls by provider,
model and outcome, tokens, cost, call durations, runs degraded, the checks between rounds, the
queue) are read from the database at each scrape, so every web process answers for the whole
deployment, the workers need no port of their own, and a restart loses nothing. Counters are sums
of stored rows: deleting questions lowers them, which Prometheus reads as a counter reset. What only
a process knows (its open live sockets) is that process's own gauge.

Only a staff user's API token is let in (``Authorization: Bearer …``, Prometheus's
``authorization`` scrape setting): the figures name providers, models and spend.
"""

from collections.abc import Iterator

from django.db.models import Count, Exists, OuterRef, Q, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from debates.engine.vocabulary import Outcome, Status, StepKind
from debates.live.consumers import QuestionConsumer
from debates.models import Contribution, Question
from debates.tokens import bearer_user
from debates.track.spend import MODEL, PROVIDER, provider_calls, spent

# Seconds: a local model's short answer to a moderator's long synthesis on a slow provider.
DURATION_BUCKETS = (0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 30.0, 60.0, 120.0, 300.0, 600.0)
UNKNOWN = "unknown"  # a contribution whose panelist was deleted since
FINISHED = (Status.DONE, Status.ANSWERED, Status.NEEDS_REVIEW)


class Stored:
    """A collector of the figures the database holds, read at each scrape (a few aggregate queries)."""

    def collect(self) -> Iterator[Metric]:
        yield from questions()
        yield from calls()
        yield checked()
        yield durations("teorema_call_duration_seconds", "How long each answered provider call took", "latency_ms")
        yield durations(
            "teorema_time_to_first_token_seconds",
            "From each answered call's start to its first words",
            "first_token_ms",
        )
        yield GaugeMetricFamily(
            "teorema_live_sockets", "Live debate sockets open on this process", value=QuestionConsumer.open
        )


def questions() -> Iterator[Metric]:
    by_status = dict(Question.objects.values_list("status").annotate(n=Count("id")).order_by())
    asked = CounterMetricFamily("teorema_questions", "Questions asked, by where each stands now", labels=["status"])
    for status in Status:
        asked.add_metric([status.value], by_status.get(status.value, 0))
    yield asked
    failed_voice = Contribution.objects.filter(
        round__question=OuterRef("pk"), status__in=[Outcome.FAILED, Outcome.GATED]
    )
    degraded = Question.objects.filter(Exists(failed_voice), status__in=FINISHED).count()
    yield CounterMetricFamily(
        "teorema_runs_degraded", "Runs that finished with a voice failed or gated out", value=degraded
    )
    waiting = GaugeMetricFamily("teorema_queue_depth", "Questions waiting for a worker, and running", labels=["state"])
    waiting.add_metric(["queued"], by_status.get(Status.QUEUED.value, 0))
    waiting.add_metric(["running"], by_status.get(Status.RUNNING.value, 0))
    yield waiting


def calls() -> Iterator[Metric]:
    rows = spent(provider_calls(), PROVIDER, MODEL, "status")
    made = CounterMetricFamily(
        "teorema_provider_calls", "Provider calls, by outcome", labels=["provider", "model", "outcome"]
    )
    tokens = CounterMetricFamily(
        "teorema_tokens",
        "Tokens the providers counted (or Teorema estimated)",
        labels=["provider", "model", "direction"],
    )
    cost = CounterMetricFamily(
        "teorema_cost_dollars", "What the calls cost, in US dollars", labels=["provider", "model"]
    )
    by_model: dict[tuple[str, str], list[float]] = {}
    for row in rows:
        where = (row[PROVIDER] or UNKNOWN, row[MODEL] or UNKNOWN)
        made.add_metric([*where, row["status"]], row["n"])
        totals = by_model.setdefault(where, [0.0, 0.0, 0.0])
        totals[0] += row["tokens_in"] or 0
        totals[1] += row["tokens_out"] or 0
        totals[2] += float(row["cost"] or 0)
    for where, (tokens_in, tokens_out, dollars) in by_model.items():
        tokens.add_metric([*where, "in"], tokens_in)
        tokens.add_metric([*where, "out"], tokens_out)
        cost.add_metric(list(where), dollars)
    yield made
    yield tokens
    yield cost


CHECK_OUTCOMES = {True: "holds", False: "does_not_hold", None: "not_checked"}


def checked() -> Metric:
    """The SymPy checks between rounds by outcome, from each check step's stored results
    (``ledger["checks"]``, engine.checks): JSON lists, so counted here rather than by the database."""
    counts = dict.fromkeys(CHECK_OUTCOMES.values(), 0)
    stored = Contribution.objects.filter(kind=StepKind.CHECK).values_list("ledger", flat=True)
    for ledger in stored.iterator():
        for check in ledger.get("checks", []):
            counts[CHECK_OUTCOMES[check.get("holds")]] += 1
    family = CounterMetricFamily(
        "teorema_checks", "Computations SymPy checked between rounds, by outcome", labels=["outcome"]
    )
    for outcome, n in counts.items():
        family.add_metric([outcome], n)
    return family


def durations(name: str, what: str, column: str) -> Metric:
    """Seconds from a column of milliseconds of the answered calls, by provider, as a histogram
    counted by the database (a call without a value, one that wrote nothing, is left out)."""
    answered = provider_calls().filter(status=Outcome.DONE, **{f"{column}__isnull": False})
    bounds = {f"le_{i}": Count("id", filter=Q(**{f"{column}__lte": b * 1000})) for i, b in enumerate(DURATION_BUCKETS)}
    rows = (
        answered.values("panelist__provider__name").annotate(n=Count("id"), total_ms=Sum(column), **bounds).order_by()
    )
    histogram = HistogramMetricFamily(name, what, labels=["provider"])
    for row in rows:
        counted: dict = dict(row)  # the buckets' keys are made above, not literals
        buckets = [(str(b), counted[f"le_{i}"]) for i, b in enumerate(DURATION_BUCKETS)] + [("+Inf", row["n"])]
        histogram.add_metric([row["panelist__provider__name"] or UNKNOWN], buckets, (row["total_ms"] or 0) / 1000)
    return histogram


REGISTRY = CollectorRegistry()
REGISTRY.register(Stored())


@never_cache
@require_safe
def metrics(request: HttpRequest) -> HttpResponse:
    """The figures, for a staff user's token; 401 or 403 in words (JSON) otherwise."""
    user = bearer_user(request.headers.get("Authorization", ""))
    if user is None or not user.is_authenticated:
        response = JsonResponse(
            {"error": "Send 'Authorization: Bearer <token>' with an API token of a staff user (made in the admin)."},
            status=401,
        )
        response["WWW-Authenticate"] = 'Bearer realm="teorema"'
        return response
    if not getattr(user, "is_staff", False):
        return JsonResponse({"error": "Only a staff user's token may read the metrics."}, status=403)
    return HttpResponse(generate_latest(REGISTRY), content_type=CONTENT_TYPE_LATEST)
