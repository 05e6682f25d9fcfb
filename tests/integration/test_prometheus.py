"""A real Prometheus (Debian's package, started here on loopback) scrapes a web process of the server
setup while a debate runs on a worker, with a staff user's token, and its query API returns the
figures: the web process answers for the worker's calls, read from the database."""

import json
import re
import shutil
import subprocess
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.integration import cluster as deploy
from tests.integration.debate import PANEL, Deployment
from tests.integration.services import until

pytestmark = pytest.mark.services
DASHBOARD = Path(__file__).resolve().parents[2] / "monitoring" / "grafana-dashboard.json"
PROMETHEUS = "prometheus"
STAFF = """
from django.contrib.auth import get_user_model
get_user_model().objects.filter(username="watcher").update(is_staff=True)
"""


@pytest.fixture
def prometheus(tmp_path: Path) -> Iterator:
    """Start Prometheus scraping ``target`` (host:port) every second with ``token``; its port."""
    if shutil.which(PROMETHEUS) is None:
        deploy.skip_or_fail("Prometheus is not installed (apt-get install prometheus)")
    started: list[subprocess.Popen] = []

    def start(target: str, token: str) -> int:
        config = tmp_path / "prometheus.yml"
        config.write_text(
            "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
            "scrape_configs:\n  - job_name: teorema\n    metrics_path: /metrics\n"
            f"    authorization:\n      credentials: {token}\n"
            f"    static_configs:\n      - targets: ['{target}']\n"
        )
        port = deploy.free_port()
        argv = [PROMETHEUS, f"--config.file={config}", f"--storage.tsdb.path={tmp_path / 'tsdb'}"]
        argv.append(f"--web.listen-address=127.0.0.1:{port}")
        log = (tmp_path / "prometheus.log").open("w")
        started.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT))
        until(lambda: ready(port), "Prometheus to be ready")
        return port

    yield start
    for process in started:
        process.terminate()
        process.wait(10)


def ready(port: int) -> bool:
    try:
        return deploy.get(port, "/-/ready", timeout=2).status == 200
    except OSError:
        return False


def query(port: int, expression: str) -> list[dict]:
    answer = deploy.get(port, "/api/v1/query?" + urllib.parse.urlencode({"query": expression}))
    assert answer.status == 200, answer.body
    return json.loads(answer.body)["data"]["result"]


def value(port: int, expression: str) -> float | None:
    result = query(port, expression)
    return float(result[0]["value"][1]) if result else None


def test_prometheus_scrapes_a_debate_from_the_web_process_while_a_worker_runs_it(
    deployment: Deployment, cluster: deploy.Cluster, prometheus
) -> None:
    cluster.manage("shell", "-c", STAFF)
    web = cluster.web("web")
    cluster.worker("worker")
    port = prometheus(f"127.0.0.1:{web.port}", deployment.credentials.token)
    until(lambda: value(port, 'up{job="teorema"}') == 1.0, "the first scrape", patience=60)
    before = value(port, 'teorema_questions_total{status="done"}') or 0.0

    deploy.ask(web, deployment.credentials, "Replicas or sharding for the reporting load? (scraped)", PANEL)
    until(
        lambda: value(port, 'teorema_questions_total{status="done"}') == before + 1,
        "Prometheus to see the run done",
        patience=120,
    )

    seen_running = value(port, 'max_over_time(teorema_queue_depth{state="running"}[5m])')
    assert (seen_running or 0) >= 1  # scraped while it ran
    calls = query(port, 'teorema_provider_calls_total{outcome="done"}')
    models = {sample["metric"]["model"] for sample in calls}
    assert {"it-alpha", "it-beta", "it-gamma", "it-moderator"} <= models
    assert {sample["metric"]["provider"] for sample in calls} == {"Fake"}
    assert (value(port, "sum(teorema_tokens_total)") or 0) > 0
    assert value(port, "sum(teorema_call_duration_seconds_count)") == sum(float(s["value"][1]) for s in calls)

    # The dashboard to import: every panel's query is PromQL this Prometheus reads, over series it has.
    dashboard = json.loads(DASHBOARD.read_text())
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            names = set(re.findall(r"teorema_[a-z_]+", target["expr"]))
            assert names, target
            for name in names:
                series = name.removesuffix("_bucket")
                assert query(port, f"count({{__name__=~'{series}(_bucket|_total)?'}})"), (panel["title"], name)
            query(port, target["expr"])  # a 400 for PromQL it cannot read
