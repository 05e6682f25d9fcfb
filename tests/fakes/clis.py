"""The real CLIs (``npm`` installs them from package-lock.json into node_modules/, ``make test`` does)
pointed at the fake provider server: a voice for each, the sandbox they run in, and the processes
a call leaves (none, once it is over)."""

import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from debates.providers.base import Endpoint, Voice
from debates.providers.cli import sandbox
from tests.fakes.provider_server import FakeProviderServer

ROOT = Path(__file__).resolve().parents[2]
BIN = ROOT / "node_modules" / ".bin"
# Each CLI's wire on the fake, and a model of its family.
WIRES = {"claude-code": "anthropic", "gemini-cli": "gemini", "qwen-code": "openai", "codex": "openai"}
MODELS = {
    "claude-code": "claude-sonnet-4-5",
    "gemini-cli": "gemini-2.5-flash",
    "qwen-code": "qwen3-coder-plus",
    "codex": "gpt-5-codex",
}
FAMILIES = {"claude-code": "claude", "gemini-cli": "gemini", "qwen-code": "qwen", "codex": "gpt"}
CLI_KEY = "sk-fake-cli-Rt5Wq8Zn"  # random, as a real key is
LABELS = {"claude-code": "Claude Code", "gemini-cli": "Gemini CLI", "qwen-code": "Qwen Code", "codex": "Codex"}
# Variables of the developer's own that would log a CLI in (or point it elsewhere) behind the test's back.
THEIRS = (
    "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CONFIG_DIR",
    "GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GEMINI_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_HOME",
    "CODEX_API_KEY",
)  # fmt: skip


def require_clis() -> None:
    """The pinned CLIs are there: a test of them fails, never skips, without them."""
    missing = [name for name in ("claude", "gemini", "qwen", "codex") if not (BIN / name).exists()]
    assert not missing, f"{', '.join(missing)} not installed: run `make node_modules/.installed` (or `make test`)"


@pytest.fixture
def cli_sandbox(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A HOME of the test's own (nobody logged in), the pinned CLIs found first, and the scratch
    directories under a private folder of the repository's data/ (Gemini CLI refuses settings under a
    folder others may write, as /tmp is). Yields the scratch root."""
    require_clis()
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for name in THEIRS:
        monkeypatch.delenv(name, raising=False)
    scratch = ROOT / "data" / f"test-cli-{uuid.uuid4().hex[:8]}"
    monkeypatch.setattr(sandbox, "SETTINGS", sandbox.Settings(scratch=scratch, path=(str(BIN),)))
    yield scratch
    shutil.rmtree(scratch, ignore_errors=True)


def cli_voice(server: FakeProviderServer, cli: str, model: str = "", **fields: Any) -> Voice:
    """A voice on the CLI ``cli`` (a preset's key) pointed at the fake, with a key like a real one."""
    wire = WIRES.get(cli, "openai")
    endpoint_fields = {k: fields.pop(k) for k in list(fields) if k in Endpoint.__dataclass_fields__}
    key = server.endpoint(wire).api_key
    defaults = {"name": LABELS.get(cli, cli), "base_url": server.base_url(wire), "api_key": key, "stall_timeout": 30.0}
    endpoint = Endpoint(wire="cli", cli=cli, **(defaults | {"total_timeout": 60.0} | endpoint_fields))
    return Voice(
        name=f"{cli}/{model or MODELS.get(cli, '')}",
        model=model or MODELS.get(cli, "default"),
        endpoint=endpoint,
        **fields,
    )


def processes_in(root: Path) -> set[int]:
    """The processes working in a folder under ``root`` now (a CLI and whatever it started)."""
    return sandbox.working_in(root)


def alive(pid: int) -> bool:
    """Running, or stopped, but not a zombie waiting for its parent to read its status."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def make_cli_panel(url: str, clis: tuple[str, ...] = ("claude-code", "gemini-cli", "qwen-code")):
    """A default teorema panel ``clis`` (slug "clis") whose voices are these CLIs, each on the fake at
    ``url`` (its root) with a key of its own, the first one moderating."""
    from debates.models import Membership, Panel, Panelist, Provider

    bases = {"openai": f"{url}/v1", "anthropic": url, "gemini": f"{url}/v1beta"}
    members = []
    for cli in clis:
        provider = Provider.objects.create(
            name=LABELS[cli], wire="cli", preset=cli, base_url=bases[WIRES[cli]], max_retries=0
        )
        provider.set_api_key(CLI_KEY)
        provider.save()
        members.append(
            Panelist.objects.create(name=LABELS[cli], provider=provider, model=MODELS[cli], family=FAMILIES[cli])
        )
    panel = Panel.objects.create(name="CLIs", slug="clis", protocol="teorema", moderator=members[0], is_default=True)
    for position, member in enumerate(members):
        Membership.objects.create(panel=panel, panelist=member, position=position)
    return panel
