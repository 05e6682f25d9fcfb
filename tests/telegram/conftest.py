"""A fake Telegram per test, the environment pointing at it, and a default panel whose runs are doubled."""

from collections.abc import Iterator

import pytest

from debates.integrations.telegram.config import Config
from debates.models import Contribution, Membership, Panel, Panelist, Provider, Question, Round, Status, Synthesis
from debates.runs import tasks
from tests.fakes.telegram_server import FakeTelegramServer

TOKEN = "123456789:AAE-secret_TOKEN-for-tests-0123456789"
ALLOWED, STRANGER = 4242, 666


@pytest.fixture
def telegram() -> Iterator[FakeTelegramServer]:
    with FakeTelegramServer(TOKEN) as server:
        yield server


@pytest.fixture
def config(telegram: FakeTelegramServer, monkeypatch: pytest.MonkeyPatch, settings) -> Config:
    monkeypatch.setenv("TELEGRAM_BOT_TOKEN", TOKEN)
    monkeypatch.setenv("TELEGRAM_ALLOWED_CHAT_IDS", f"{ALLOWED}, 4343")
    monkeypatch.setenv("TELEGRAM_API_BASE", telegram.url)
    settings.TEOREMA = {**settings.TEOREMA, "PUBLIC_URL": "http://127.0.0.1:8000"}
    monkeypatch.delenv("TELEGRAM_WEBHOOK_SECRET", raising=False)
    return Config.from_env()


@pytest.fixture
def panel(db) -> Panel:
    provider = Provider.objects.create(name="Loopback", wire="openai", base_url="http://127.0.0.1:9/v1")
    provider.set_api_key("sk-loopback-test")  # the one form refuses a panel that cannot run
    provider.save()
    voices = [Panelist.objects.create(name=n, provider=provider, model=n, family=n) for n in ("alpha", "beta")]
    panel = Panel.objects.create(name="Default", slug="default", moderator=voices[0], is_default=True)
    for position, voice in enumerate(voices):
        Membership.objects.create(panel=panel, panelist=voice, position=position)
    return panel


@pytest.fixture
def submitted(monkeypatch: pytest.MonkeyPatch) -> list[Question]:
    """Stands in for ``tasks.submit`` (the engine is tested elsewhere): records, runs nothing."""
    questions: list[Question] = []
    monkeypatch.setattr(tasks, "submit", questions.append)
    return questions


@pytest.fixture
def instant_runs(monkeypatch: pytest.MonkeyPatch, submitted: list[Question]) -> str:
    """``tasks.submit`` that finishes the run at once with a long, formatted synthesis and two voices."""
    synthesis = "## Verdict 🧮\n\n" + "**91 is not prime**: 91 = 7 × 13, so *the key is weak*. ```x < y```\n\n" * 150

    def finish(question: Question) -> None:
        submitted.append(question)
        question.roster = [
            {"seat": "p1", "label": "Panelist A", "name": "alpha"},
            {"seat": "p2", "label": "Panelist B", "name": "beta"},
            {"seat": "moderator", "label": "Moderator", "name": "alpha"},
        ]
        question.status = Status.DONE
        question.save()
        for index, kind in enumerate(("answer", "debate")):
            round_ = Round.objects.create(question=question, index=index, kind=kind, title=kind)
            for seat, label in (("p1", "Panelist A"), ("p2", "Panelist B")):
                text = f"{label} says, in round {index}: `7 * 13 = 91`."
                Contribution.objects.create(round=round_, seat=seat, label=label, kind=kind, status="done", text=text)
        Synthesis.objects.create(question=question, text=synthesis)

    monkeypatch.setattr(tasks, "submit", finish)
    return synthesis
