"""The Models page with 100,000 stored contributions: build time and SQL queries, SQLite and PostgreSQL.

Method. A throwaway database (SQLite in a temporary directory; PostgreSQL at 127.0.0.1:5432,
database ``teorema_bench_models`` created and dropped by this script, when it answers as
``postgres`` or ``root`` with trust auth) is migrated and filled with bulk_create: --panelists
panelists (default 20) on 5 providers, in 6 panels of 3 to 5 voices (teorema, adversarial,
vote), and questions until --contributions contributions are stored (default 100,000: about
20,000 questions). Each question has a blind answer (or ballot) per voice with two claims and
their confidences, a debate round with CHANGE lines on a tenth of them, a synthesis; the
question's ledger (stances, changes, a claims matrix) or consensus is shaped as the engine
stores it; 3 % of calls failed and 2 % gated with the engine's own error texts; a quarter of
the questions have an outcome; half are private to one of two users.

Measured: first the one-off reading of every stored question into Standing rows (track.reading,
which a request does for the questions that finished since the last one); then, after ANALYZE
(the planner's statistics, as a live database keeps them) and one warm-up each, the Models page
(``GET /models/``: figures, SVG and template) and its JSON (``GET /api/models``) for a staff
user (every question) and for a user (the questions they may see), each the median wall time of
--repeat (5) requests through Django's test client, in this process, against the database on
loopback. Queries per request are counted with CaptureQueriesContext, at the first 1 % of the
contributions and again at all of them: the count must be the same (the figures are
aggregates, never one query per row).

Usage: python bench/bench_models.py [--contributions 100000] [--panelists 20] [--repeat 5] [--backend sqlite postgres]
"""

import argparse
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from decimal import Decimal
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PG_DATABASE = "teorema_bench_models"
PG_USERS = ("postgres", "root")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contributions", type=int, default=100_000)
    parser.add_argument("--panelists", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backend", nargs="+", choices=["sqlite", "postgres"], default=["sqlite", "postgres"])
    parser.add_argument("--child", help=argparse.SUPPRESS)  # the database URL this process measures
    args = parser.parse_args()
    if args.child is not None:
        measure(args)
        return
    print(f"{args.contributions:,} contributions, {args.panelists} panelists; median of {args.repeat} requests")
    for backend in args.backend:
        url = sqlite_url() if backend == "sqlite" else postgres_url()
        if url is None:
            print(f"\n{backend}: skipped, nothing answers at 127.0.0.1:5432 as {' or '.join(PG_USERS)}")
            continue
        try:
            env = {**os.environ, "DATABASE_URL": url, "TEOREMA_DATA_DIR": tempfile.mkdtemp(prefix="teorema-bench-")}
            env |= {"DJANGO_SETTINGS_MODULE": "teorema.settings", "LOG_LEVEL": "WARNING"}
            subprocess.run([sys.executable, __file__, *sys.argv[1:], "--child", backend], env=env, check=True)
        finally:
            if backend == "postgres":
                drop_postgres(url)


def sqlite_url() -> str:
    return f"sqlite:///{tempfile.mkdtemp(prefix='teorema-bench-')}/bench.sqlite3"


def postgres_url() -> str | None:
    import psycopg

    for user in PG_USERS:
        try:
            with psycopg.connect(
                f"postgresql://{user}@127.0.0.1:5432/postgres", autocommit=True, connect_timeout=3
            ) as db:
                db.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE}")
                db.execute(f"CREATE DATABASE {PG_DATABASE}")
            return f"postgres://{user}@127.0.0.1:5432/{PG_DATABASE}"
        except psycopg.Error:
            continue
    return None


def drop_postgres(url: str) -> None:
    import psycopg

    with psycopg.connect(url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as db:
        db.execute(f"DROP DATABASE IF EXISTS {PG_DATABASE} WITH (FORCE)")


# --- the child: fill, then measure -------------------------------------------------------------


def measure(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection
    from django.test.utils import setup_test_environment

    from debates.track import reading

    setup_test_environment()  # the test client's host, "testserver", is allowed
    call_command("migrate", verbosity=0)
    history = History(args.panelists, random.Random(16))
    history.fill(args.contributions // 100)
    reading.read_pending()
    small = requests(args.repeat, history.users)
    history.fill(args.contributions)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")  # the planner's statistics, as a live database keeps them
    began = time.perf_counter()
    read = reading.read_pending()
    once = time.perf_counter() - began
    large = requests(args.repeat, history.users)
    print(f"\n{args.child} ({history.questions:,} questions, {history.contributions:,} contributions)")
    print(f"  reading {read:,} new questions, once: {once:.1f} s (later requests read only what finished since)")
    for (what, seconds, queries), (_, _, small_queries) in zip(large, small, strict=True):
        print(f"  {what:<14} {seconds * 1000:6.0f} ms   {queries} queries ({small_queries} at 1 %)")


def requests(repeat: int, users: dict) -> list[tuple[str, float, int]]:
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    found = []
    for who, user in users.items():
        client = Client()
        client.force_login(user)
        for what, path in (("page", "/models/"), ("JSON", "/api/models")):
            assert client.get(path).status_code == 200, path  # warm-up
            times = []
            for _ in range(repeat):
                with CaptureQueriesContext(connection) as queries:
                    began = time.perf_counter()
                    response = client.get(path)
                    times.append(time.perf_counter() - began)
                assert response.status_code == 200, path
            found.append((f"{what} ({who})", statistics.median(times), len(queries)))
    return found


class History:
    """Questions as the engine stores them, made with bulk_create until enough contributions exist."""

    ANSWERS = ("Add read replicas", "Shard the database", "Add a cache in front")
    ERRORS = (
        "Fake {n} had a server error (500)",
        "Fake {n} is rate limiting us (429)",
        "Fake {n} stalled: nothing for 60s after the first chunk",
        "Fake {n} rejected the key (401)",
    )
    GATES = (
        "gated out after 2 tries: a refusal, not an answer (“I can't help”)",
        "gated out after 2 tries: off-topic: it shares no term with the question",
    )

    def __init__(self, panelists: int, rng: random.Random) -> None:
        from django.contrib.auth import get_user_model

        from debates.models import Membership, Panel, Panelist, Provider

        self.rng = rng
        self.questions = self.contributions = 0
        users = get_user_model().objects
        self.users = {
            "staff": users.create_user("staff", is_staff=True),
            "user": users.create_user("alice"),
        }
        self.owners = [self.users["user"], users.create_user("bob")]
        providers = [
            Provider.objects.create(name=f"Fake {i}", wire="openai", base_url="http://127.0.0.1:9/v1") for i in range(5)
        ]
        self.panelists = Panelist.objects.bulk_create(
            Panelist(
                name=f"Model {i:02}",
                provider=providers[i % 5],
                model=f"model-{i}",
                family=f"family-{i % 7}",
                price_in=Decimal("1"),
                price_out=Decimal("2"),
            )
            for i in range(panelists)
        )
        self.panels = []
        for i, protocol in enumerate(("teorema", "teorema", "adversarial", "vote", "vote", "teorema")):
            members = rng.sample(self.panelists, (3, 4, 3, 4, 3, 5)[i])
            panel = Panel.objects.create(
                name=f"Panel {i}", slug=f"panel-{i}", protocol=protocol, moderator=self.panelists[-1 - i]
            )
            Membership.objects.bulk_create(
                Membership(panel=panel, panelist=p, position=n) for n, p in enumerate(members)
            )
            self.panels.append((panel, members))

    def fill(self, target: int, batch: int = 500) -> None:
        while self.contributions < target:
            self._batch(batch, target)

    def _batch(self, size: int, target: int) -> None:
        from debates.models import Contribution, Question, Round, VerdictOutcome

        made = []
        for _ in range(size):
            panel, members = self.rng.choice(self.panels)
            made.append((panel, members, self._question(panel, members)))
        questions = Question.objects.bulk_create([q for _, _, q in made])
        rounds, rows, outcomes = [], [], []
        for question, (panel, _, _) in zip(questions, made, strict=True):
            kinds = ["vote" if panel.protocol == "vote" else "answer"]
            if panel.protocol != "vote" and self.rng.random() < 0.1:
                kinds.append("debate")
            rounds += [
                Round(question=question, index=i + 1, kind=k, title=k, status="done") for i, k in enumerate(kinds)
            ]
            rounds.append(Round(question=question, index=len(kinds) + 1, kind="synthesis", title="Synthesis"))
            if self.rng.random() < 0.25:
                outcomes.append(VerdictOutcome(question=question, value=self.rng.choice(("right", "wrong", "partly"))))
        rounds = Round.objects.bulk_create(rounds)
        for r in rounds:
            rows += self._contributions(r, r.question)
        budget = target - self.contributions
        Contribution.objects.bulk_create(rows[:budget], batch_size=2000)
        VerdictOutcome.objects.bulk_create(outcomes)
        self.questions += len(questions)
        self.contributions += min(len(rows), budget)

    def _question(self, panel, members):
        from debates.models import Question

        labels = [f"Panelist {chr(65 + i)}" for i in range(len(members))]
        answers = {label: self.rng.choice(self.ANSWERS[:2]) for label in labels}
        counts = {a: list(answers.values()).count(a) for a in set(answers.values())}
        top = max(counts, key=counts.get)
        roster = [
            {"seat": f"p{i + 1}", "label": label, "panelist_id": m.pk, "name": m.name, "family": m.family}
            for i, (label, m) in enumerate(zip(labels, members, strict=True))
        ]
        fields: dict = {"ledger": {}, "consensus": {}}
        if panel.protocol == "vote":
            groups = sorted(counts, key=lambda a: -counts[a])
            fields["consensus"] = {
                "reached": True,
                "decision": top,
                "agreement": f"{counts[top]}/{len(labels)}",
                "groups": [{"decision": a, "labels": [lb for lb in labels if answers[lb] == a]} for a in groups],
                "dissenters": [lb for lb in labels if answers[lb] != top],
                "escalation": "",
                "notes": [],
            }
        else:
            fields["ledger"] = {
                "claims": [
                    {
                        "id": f"{lb[-1]}{n}",
                        "author": lb,
                        "text": f"claim {n} of {lb}",
                        "kind": "fact",
                        "confidence": 0.8,
                        "status": "standing",
                        "cells": {x: {"start": "", "end": ""} for x in labels},
                    }
                    for lb in labels
                    for n in (1, 2)
                ],
                "events": [],
                "unmatched": [],
                "changes": {},
                "stances": {
                    lb: {"stance": "agrees" if answers[lb] == top else "disagrees", "why": answers[lb]} for lb in labels
                },
                "emerging": top,
                "unreadable": [],
                "flags": [],
                "labels": labels,
            }
        return Question(
            owner=self.rng.choice(self.owners),
            panel=panel,
            text="Read replicas or sharding?",
            criticality="medium",
            status="done",
            verdict=top,
            roster=roster,
            visibility="private" if self.rng.random() < 0.5 else "users",
            panel_run={"heterogeneity": "families", "evidence": "strong", "note": "the panel spans several families"},
            **fields,
        )

    def _contributions(self, r, question) -> list:
        from debates.models import Contribution

        if r.kind == "synthesis":
            moderator = question.panel.moderator
            return [
                Contribution(
                    round=r,
                    seat="moderator",
                    label="Moderator",
                    panelist=moderator,
                    kind="synthesis",
                    status="done",
                    tokens_in=3000,
                    tokens_out=800,
                    cost=Decimal("0.0046"),
                    latency_ms=9000,
                )
            ]
        rows = []
        for entry in question.roster:
            label, n = entry["label"], self.rng.random()
            status, error = "done", ""
            if n < 0.03:
                status, error = "failed", self.rng.choice(self.ERRORS).format(n=entry["panelist_id"] % 5)
            elif n < 0.05:
                status, error = "gated", self.rng.choice(self.GATES)
            answer = question.verdict if self.rng.random() < 0.7 else self.ANSWERS[1]
            ledger: dict = {"answer": answer}
            if r.kind in ("answer", "vote"):
                ledger["claims"] = [
                    {
                        "id": f"{label[-1]}{k}",
                        "text": f"claim {k}",
                        "kind": "fact",
                        "confidence": round(self.rng.uniform(0.4, 1.0), 2),
                    }
                    for k in (1, 2)
                ]
            else:
                degree = self.rng.choice(("none", "none", "partial", "total"))
                ledger["change"] = {"degree": degree, "reason": self.rng.choice(("", "the growth numbers"))}
            flags = ["sycophancy: agreed without a reason"] if self.rng.random() < 0.05 else []
            rows.append(
                Contribution(
                    round=r,
                    seat=entry["seat"],
                    label=label,
                    panelist_id=entry["panelist_id"],
                    kind=r.kind,
                    status=status,
                    text="An answer. " * 40,
                    error=error,
                    decision=answer if r.kind == "vote" else "",
                    confidence=round(self.rng.uniform(0.5, 1.0), 2) if r.kind == "vote" else None,
                    flags=flags,
                    tokens_in=2000,
                    tokens_out=self.rng.randint(300, 900),
                    cost=Decimal("0.0031"),
                    latency_ms=self.rng.randint(800, 30_000),
                    ledger=ledger,
                )
            )
        return rows


if __name__ == "__main__":
    main()
