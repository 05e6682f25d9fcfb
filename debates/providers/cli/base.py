"""What every CLI voice shares: the call a flavour turns into an invocation, the reader it reads the
CLI's output with, and whether it is logged in.

A flavour is one CLI (Claude Code, Gemini CLI, Qwen Code, Codex, any command): how to run it as a
panelist and how to read what it prints. Its reader is one small handler per event kind, dispatched
by one ``match`` (as ``Recorder.store`` is): nothing else of the CLI's output is parsed.
"""

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debates.providers.base import Chunk, Cited, Endpoint, Fault, Message, Part, ProviderError, Usage, Voice
from debates.providers.catalog import Sight
from debates.providers.cli import notices
from debates.providers.cli.sandbox import Invocation, Scratch

Item = Chunk | Cited | Usage
NOISE_CHARS = 600  # what a failure quotes of output that was no event
LAST_LINES = 5  # the lines of a failed CLI's standard error read for a notice


@dataclass(frozen=True)
class Call:
    """One step's prompt for one CLI voice: ours, whole (the system prompt and the step's prompt), and
    the question's files it reads natively, placed in its workspace."""

    voice: Voice
    system: str
    prompt: str
    files: tuple[Path, ...] = ()

    @property
    def model(self) -> str:
        """The model to ask for, or "" for the CLI's own default."""
        return "" if self.voice.model in ("", "default") else self.voice.model

    @property
    def endpoint(self) -> Endpoint:
        return self.voice.endpoint


@dataclass(frozen=True)
class Login:
    """Whether a CLI can answer without asking anyone: ``ready`` True, False, or None (cannot tell
    without a call); ``said``: in words."""

    ready: bool | None
    said: str


class Reader:
    """Reads one run of a CLI into chunks, citations and usage; says why it failed, in words."""

    def __init__(self, label: str) -> None:
        self.label = label
        self.text: list[str] = []  # what it streamed as the answer
        self.failure: ProviderError | None = None  # what the CLI itself said went wrong

    def feed(self, data: bytes) -> list[Item]:
        raise NotImplementedError

    def end(self, status: int, stderr: str) -> list[Item]:
        """What is left once the CLI has exited; raises its failure (a non-zero exit, a notice
        instead of an answer) in words."""
        if self.failure is not None:
            raise self.failure
        answer = "".join(self.text)
        if found := notices.notice(answer):
            raise ProviderError(found.fault, found.words(self.label))
        if status != 0:
            raise exit_error(self.label, status, stderr)
        return []

    def chunk(self, text: str) -> list[Item]:
        if not text:
            return []
        self.text.append(text)
        return [Chunk(text)]

    def fail(self, said: str, fault: Fault = Fault.SERVER) -> list[Item]:
        """The CLI said it failed: read as a notice where it is one (a login, a usage limit)."""
        if self.failure is None:
            found = notices.notice(said)
            self.failure = (
                ProviderError(found.fault, found.words(self.label))
                if found
                else ProviderError(fault, f"{self.label} failed: {' '.join(said.split())[:NOISE_CHARS]}")
            )
        return []


class JsonLines(Reader):
    """A CLI that prints one JSON event a line: each event goes to ``event``; a line that is no JSON
    is kept as noise, which a failure quotes."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self._pending = b""
        self.noise = ""

    def feed(self, data: bytes) -> list[Item]:
        lines = (self._pending + data).split(b"\n")
        self._pending = lines.pop()
        return [item for line in lines for item in self._line(line)]

    def end(self, status: int, stderr: str) -> list[Item]:
        rest = self._line(self._pending)
        self._pending = b""
        return rest + super().end(status, f"{self.noise}\n{stderr}")

    def _line(self, line: bytes) -> list[Item]:
        if not line.strip():
            return []
        try:
            event = json.loads(line)
        except ValueError:
            self.noise = (self.noise + line.decode(errors="replace") + "\n")[-NOISE_CHARS:]
            return []
        return list(self.event(event)) if isinstance(event, dict) else []

    def event(self, event: dict[str, Any]) -> Iterable[Item]:
        raise NotImplementedError


@dataclass(frozen=True)
class Flavour:
    """One CLI: what it is called, how to install it, how to run it as a panelist and read it."""

    key: str  # its preset's key
    label: str
    program: str
    install: str
    family: str
    model: str  # the model a panelist found on this machine is given
    models: tuple[str, ...]  # the models it is known to take (its aliases first), for the guided setup
    invocation: Callable[[Call, Scratch], Invocation]
    reader: Callable[[str], Reader]
    login: Callable[[Endpoint], Login]
    sight: Sight = field(default_factory=lambda: Sight(vision=False, pdf=False))  # read natively, as files
    key_variable: str = ""  # its own variable for an API key, where a provider's key goes
    passes: tuple[str, ...] = field(default_factory=tuple)  # more of the server's variables it may read
    unable: Callable[[], str] = field(default=lambda: "")  # why it cannot run here as a panelist at all, or ""


def exit_error(label: str, status: int, stderr: str) -> ProviderError:
    """A CLI that exited non-zero: a notice among its last lines (a login, a usage limit), else its
    last words on standard error, or its status alone."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()][-LAST_LINES:]
    if found := next((n for line in reversed(lines) if (n := notices.notice(line))), None):
        return ProviderError(found.fault, found.words(label))
    said = f": {lines[-1][:NOISE_CHARS]}" if lines else ""
    return ProviderError(Fault.SERVER, f"{label} exited with status {status}{said}")


def conversation(messages: list[Message]) -> tuple[str, str, tuple[Part, ...]]:
    """The system prompt, the rest as one prompt (a conversation's turns under their speakers' names),
    and the native parts it carries."""
    system = "\n\n".join(m.content for m in messages if m.role == "system")
    turns = [m for m in messages if m.role != "system"]
    parts = tuple(part for m in turns for part in m.parts)
    if len(turns) == 1:
        return system, turns[0].content, parts
    said = {"user": "User", "assistant": "You (earlier)"}
    return system, "\n\n".join(f"## {said.get(m.role, m.role)}\n\n{m.content}" for m in turns), parts


def given_key(endpoint: Endpoint, variable: str) -> dict[str, str]:
    """The provider's key in the CLI's own variable, else the server's own value of that variable."""
    key = endpoint.api_key or os.environ.get(variable, "") if variable else ""
    return {variable: key} if key else {}


def home(*parts: str) -> Path:
    return Path(os.environ.get("HOME", "~")).expanduser().joinpath(*parts)


def keyed_login(endpoint: Endpoint, variables: tuple[str, ...], files: tuple[Path, ...], flavour: str) -> Login:
    """Ready with a key (the provider's, or one of the CLI's own variables), or a login file; else not."""
    if endpoint.api_key:
        return Login(True, f"{flavour} runs with the provider's key")
    if named := next((v for v in variables if os.environ.get(v)), None):
        return Login(True, f"{flavour} runs with the key in {named}")
    if found := next((f for f in files if f.is_file()), None):
        return Login(True, f"{flavour} is logged in ({found.name})")
    return Login(False, "")


def notes_file(call: Call) -> str:
    """The question's files, named for a CLI that reads them in its workspace."""
    if not call.files:
        return ""
    names = ", ".join(f"`{path.name}`" for path in call.files)
    return f"\n\nThe files attached to the question are in your working directory (read-only): {names}."
