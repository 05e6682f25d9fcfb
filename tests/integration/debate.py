"""One debate on the fake providers, as the server setup stores it: roster, answers, rows.

Each voice answers with text that names its model and step, so every stored contribution can be
traced to the one request that produced it in the fake server's log.
"""

import json
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from debates.live.cards import Card
from tests.fakes.provider_server import FakeProviderServer, FakeRequest, Script
from tests.integration.cluster import API_KEY_ENV, Cluster, Credentials, create_user, server_env

PANEL = "scale-out"
# Paces (tokens per second) differ so that, mid-round, some contributions are stored while others stream.
VOICES = {"it-alpha": 40.0, "it-beta": 20.0, "it-gamma": 12.0}
WORDS = 80
MODERATOR = "it-moderator"
# The step a request is for, told by its prompt template (debates/prompts/).
STEP_MARKERS = {
    "answer": "Answer the question on your own",
    "debate": "Now debate.",
    "synthesis": "You are the moderator.",
}
FILLER = (
    "The reporting load is read heavy, so replicas absorb it while the primary keeps the writes; "
    "sharding would split data that the reports join across, and the operational cost is higher. "
)


def roster_toml(server: FakeProviderServer, voices: dict[str, float]) -> str:
    """A provider on the fake server, one panelist per model, a moderator, the default panel."""
    lines = [
        "[[providers]]",
        'name = "Fake"',
        'wire = "openai"',
        f'base_url = "{server.base_url("openai")}"',
        f'api_key_env = "{API_KEY_ENV}"',
        "max_retries = 0",
        "stall_timeout = 60.0",
    ]
    for model in [*voices, MODERATOR]:
        lines += ["", "[[panelists]]", f'name = "{model}"', 'provider = "Fake"', f'model = "{model}"']
        lines.append(f'family = "{model.removeprefix("it-")}"')
    members = ", ".join(f'"{model}"' for model in voices)
    lines += ["", "[[panels]]", 'name = "Scale-out"', f'slug = "{PANEL}"', 'protocol = "teorema"']
    lines += [f"members = [{members}]", f'moderator = "{MODERATOR}"', "is_default = true"]
    return "\n".join(lines) + "\n"


def step_of(request: FakeRequest) -> str:
    return next((step for step, marker in STEP_MARKERS.items() if marker in request.prompt), "other")


def answer(request: FakeRequest, words: int) -> str:
    """A deterministic answer for (model, step): a repeated request gets the same text."""
    step = step_of(request)
    body = " ".join((FILLER * (words // len(FILLER.split()) + 1)).split()[:words])
    if step == "synthesis":
        return f"## Consensus\n{request.model} synthesis: {body}\n\n## Disagreements\nNone.\n\n## Verdict\nReplicas."
    # One answer line for every voice: the same words need no judge, so a debate is its 7 calls.
    return f"{request.model} {step}: {body}\n\nANSWER: Add read replicas"


def script_voices(server: FakeProviderServer, voices: dict[str, float], words: int, moderator_tps: float) -> None:
    """Each voice streams at its own pace (tokens per second), so contributions finish at different times."""
    for model, pace in {**voices, MODERATOR: moderator_tps}.items():
        server.script(model, Script(answer=lambda r: answer(r, words), tokens_per_second=pace or None))


def requests_about(server: FakeProviderServer, question: str) -> list[FakeRequest]:
    """The fake server's log for one question (the brief quotes it in every prompt)."""
    return [r for r in server.requests if question in r.prompt]


@dataclass(frozen=True)
class Deployment:
    """What the integration tests share: the fake providers and a migrated, populated database."""

    server: FakeProviderServer
    env: dict[str, str]
    database_url: str
    credentials: Credentials


@dataclass(frozen=True)
class StoredContribution:
    round: int
    seat: str
    kind: str
    status: str
    text: str
    error: str
    model: str
    record: dict = field(default_factory=dict)  # its closing block as read (the ledger column)

    def finished_body(self) -> str:
        """Its finished card's text as the page renders it: its closing block as read, not raw."""
        card = Card(self.round, self.seat, "", self.kind, self.status, text=self.text, record=self.record)
        return str(card.body)


class Store:
    """Reads the deployment's PostgreSQL directly: what the runs left behind."""

    def __init__(self, database_url: str) -> None:
        self.connection = psycopg.connect(database_url, autocommit=True)

    def close(self) -> None:
        self.connection.close()

    def question(self, question_id: int) -> dict:
        row = self.connection.execute(
            "SELECT status, lease_owner, error, calls, roster FROM debates_question WHERE id = %s", [question_id]
        ).fetchone()
        status, owner, error, calls, roster = row
        roster = roster if isinstance(roster, list) else json.loads(roster or "[]")
        return {"status": status, "lease_owner": owner, "error": error, "calls": calls, "roster": roster}

    def contributions(self, question_id: int) -> list[StoredContribution]:
        models = {e["seat"]: e["model"] for e in self.question(question_id)["roster"]}
        rows = self.connection.execute(
            "SELECT r.index, v.seat, v.kind, v.status, v.text, v.error, v.ledger FROM debates_contribution v"
            " JOIN debates_round r ON r.id = v.round_id WHERE r.question_id = %s ORDER BY r.index, v.seat",
            [question_id],
        ).fetchall()
        return [StoredContribution(*row[:6], model=models.get(row[1], ""), record=as_dict(row[6])) for row in rows]

    def calls(self, question_id: int) -> list[StoredContribution]:
        """The stored contributions that were model calls (grounding is local)."""
        return [row for row in self.contributions(question_id) if row.kind != "grounding"]


def write_roster(path: Path, server: FakeProviderServer, voices: dict[str, float]) -> Path:
    path.write_text(roster_toml(server, voices))
    return path


def set_up(
    workdir: Path, server: FakeProviderServer, database_url: str, redis_url: str, roster: Path, **env: str
) -> Deployment:
    """A deployment on empty databases, ready for its processes: migrated, the roster imported,
    a user. ``env``: more of the processes' environment (a lease of 3 s unless it says otherwise)."""
    environment = server_env(workdir / "data", database_url, redis_url, **{"TEOREMA_LEASE_SECONDS": "3", **env})
    setup = Cluster(workdir, environment)
    setup.manage("migrate", "--no-input")
    setup.manage("roster", "import", str(roster))
    return Deployment(server, environment, database_url, create_user(setup, "watcher"))


def as_dict(value: object) -> dict:
    """A JSON column as psycopg hands it (a dict, or its text)."""
    return value if isinstance(value, dict) else json.loads(value or "{}")
