import pytest

from debates.engine.spec import RunSpec, Seat
from debates.providers.base import Endpoint, Voice

FAMILIES = ["alpha", "beta", "gamma", "delta", "epsilon"]


def make_seat(
    key: str, label: str, model: str, family: str, base_url: str, wire: str = "openai", method: str = "none"
) -> Seat:
    endpoint = Endpoint(
        name=f"{family}-provider",
        wire=wire,
        base_url=base_url,
        api_key="sk-test-key",
        connect_timeout=2,
        stall_timeout=5,
        total_timeout=30,
        max_retries=1,
    )
    voice = Voice(name=f"{family} voice", model=model, endpoint=endpoint, max_tokens=200)
    return Seat(key, label, voice, f"{family.title()} Voice", family, f"{family}-provider", method)


class RecordingSink:
    """The engine's sink as a list: what a run told the outside world, in order."""

    def __init__(self) -> None:
        self.events: list = []

    async def emit(self, event) -> None:
        self.events.append(event)

    def of(self, kind: type) -> list:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.fixture
def sink() -> RecordingSink:
    return RecordingSink()


@pytest.fixture
def spec_factory(request):
    """RunSpec builder: n voices of distinct families on the fake server (if the test uses it)."""
    server = request.getfixturevalue("fake_provider") if "fake_provider" in request.fixturenames else None

    def build(n: int = 3, models: list[str] | None = None, wires: list[str] | None = None, **settings) -> RunSpec:
        models = models or [f"model-{FAMILIES[i]}" for i in range(n)]
        wires = wires or ["openai"] * n

        def url(wire: str) -> str:
            return server.base_url(wire) if server else "http://127.0.0.1:9"

        seats = tuple(
            make_seat(f"p{i + 1}", f"Panelist {chr(65 + i)}", models[i], FAMILIES[i % 5], url(wires[i]), wires[i])
            for i in range(n)
        )
        moderator = make_seat("moderator", "Moderator", "model-moderator", "omega", url("openai"))
        breaker = make_seat("tie_breaker", "Tie-breaker", "model-breaker", "sigma", url("openai"))
        return RunSpec(
            question=settings.pop("question", "Should we add read replicas or shard the database?"),
            protocol=settings.pop("protocol", "teorema"),
            seats=seats,
            moderator=moderator,
            tie_breaker=breaker,
            **settings,
        )

    return build
