"""Where a CLI voice runs: a panelist, never an agent.

Every call gets a scratch directory of its own (``work/``: empty but for the question's files,
read-only; ``control/``: the settings and prompt files Teorema hands the CLI, outside its
workspace), no standard input but the prompt, an environment built from an allow-list (so the
secret key, the database and Redis URLs and other providers' keys never reach it), and a process
group of its own that is killed whole when the call ends, is cancelled, passes its deadline or
writes more than its bound. What each CLI is told to switch off (tools, MCP servers, plugins,
hooks) is its flavour's to say (``flavours``).

The Django app hands ``SETTINGS`` in at startup (``TEOREMA["CLI_*"]``), as it does the retry policy.
"""

import asyncio
import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from debates.providers.base import Fault, ProviderError

# What a CLI may inherit of the server's environment besides its own variables (its flavour's): the
# locale, the terminal's kind, the user it runs as and where its login lives.
INHERITED = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "XDG_CONFIG_HOME", "XDG_DATA_HOME")
INHERITED_PREFIXES = ("LC_",)
STDERR_TAIL = 4000  # characters of a CLI's standard error kept for its failure's words
KILL_GRACE = 1.0  # seconds between asking the group to stop and killing it


@dataclass(frozen=True)
class Settings:
    scratch: Path = Path(tempfile.gettempdir()) / "teorema-cli"
    path: tuple[str, ...] = ()  # directories searched for a CLI before PATH (the project's node_modules/.bin)
    output_bytes: int = 4 * 2**20  # what one call may write to standard output before it is stopped


SETTINGS = Settings()


@dataclass(frozen=True)
class Invocation:
    """One run of a CLI: its arguments (the program first), its own variables, its prompt on stdin
    (None: stdin is closed at once) and the files it is handed outside its workspace."""

    argv: tuple[str, ...]
    env: Mapping[str, str] = field(default_factory=dict)
    stdin: str | None = None
    control: Mapping[str, str] = field(default_factory=dict)  # file name → text, in control/


@dataclass
class Scratch:
    """A call's own directories, removed with everything in them when the call ends."""

    root: Path

    @property
    def work(self) -> Path:
        return self.root / "work"

    @property
    def control(self) -> Path:
        return self.root / "control"

    @classmethod
    def make(cls) -> "Scratch":
        # Private all the way down: Gemini CLI refuses a settings file under a directory others may write.
        SETTINGS.scratch.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(SETTINGS.scratch, 0o700)
        scratch = cls(Path(tempfile.mkdtemp(prefix="call-", dir=SETTINGS.scratch)))
        scratch.work.mkdir(mode=0o700)
        scratch.control.mkdir(mode=0o700)
        return scratch

    def place(self, name: str, data: bytes) -> Path:
        """A file of the question in the workspace, read-only."""
        path = self.work / Path(name).name
        path.write_bytes(data)
        path.chmod(0o444)
        return path

    def remove(self) -> None:
        for path in self.root.rglob("*"):  # read-only files and folders the CLI made read-only
            with contextlib.suppress(OSError):
                path.chmod(0o700 if path.is_dir() else 0o600)
        shutil.rmtree(self.root, ignore_errors=True)


def program(name: str, label: str, install: str) -> str:
    """The path of a CLI's program, or a ProviderError that says it is not installed and how to install it."""
    if os.sep in name:
        if os.access(name, os.X_OK):
            return name
    else:
        search = os.pathsep.join([*SETTINGS.path, os.environ.get("PATH", os.defpath)])
        if found := shutil.which(name, path=search):
            return found
    how = f" (install it: {install})" if install else ""
    raise ProviderError(Fault.UNAVAILABLE, f"{label} is not installed on this machine: no `{name}` program{how}")


def environment(own: Mapping[str, str], scratch: Scratch) -> dict[str, str]:
    """The allow-listed environment: the server's locale and home, the CLI's own variables, and a
    temporary directory inside the scratch one. Nothing else of Teorema's environment goes."""
    inherited = {
        name: value for name, value in os.environ.items() if name in INHERITED or name.startswith(INHERITED_PREFIXES)
    }
    path = os.pathsep.join([*SETTINGS.path, inherited.get("PATH", os.defpath)])
    return inherited | {"PATH": path, "TERM": "dumb", "NO_COLOR": "1", "TMPDIR": str(scratch.control)} | dict(own)


class Process:
    """A CLI running in its scratch directory, as an async context: its standard output as it comes
    (``output``), then its exit status; leaving the context kills its whole process group."""

    def __init__(self, label: str, invocation: Invocation, scratch: Scratch) -> None:
        self.label = label
        self.invocation = invocation
        self.scratch = scratch
        self.stderr = ""
        self._process: asyncio.subprocess.Process | None = None
        self._stderr_task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> "Process":
        for name, text in self.invocation.control.items():
            (self.scratch.control / name).write_text(text)
        stdin = asyncio.subprocess.DEVNULL if self.invocation.stdin is None else asyncio.subprocess.PIPE
        try:
            self._process = await asyncio.create_subprocess_exec(
                *self.invocation.argv,
                cwd=self.scratch.work,
                env=environment(self.invocation.env, self.scratch),
                stdin=stdin,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,  # its own process group, killed whole
            )
        except OSError as exc:
            raise ProviderError(Fault.UNAVAILABLE, f"{self.label} could not be started: {exc.strerror}") from None
        self._stderr_task = asyncio.create_task(self._read_stderr())
        if self.invocation.stdin is not None:
            await self._write_prompt(self.invocation.stdin)
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.kill()

    @property
    def pid(self) -> int:
        return self._running.pid

    @property
    def _running(self) -> asyncio.subprocess.Process:
        assert self._process is not None, "the process is started on entering the context"
        return self._process

    async def output(self, deadline: float, stall: float, limit: float) -> AsyncIterator[bytes]:
        """Standard output as it arrives, until the CLI closes it; a ProviderError (and the group
        killed) past the deadline, after ``stall`` seconds of silence, or past the output bound."""
        stdout = self._running.stdout
        assert stdout is not None
        loop = asyncio.get_running_loop()
        written = 0
        while True:
            quiet_until = loop.time() + stall
            try:
                async with asyncio.timeout_at(min(deadline, quiet_until)):
                    data = await stdout.read(65536)
            except TimeoutError:
                await self.kill()
                if loop.time() >= deadline:
                    raise ProviderError(Fault.TIMEOUT, f"{self.label} did not finish within {limit:g}s") from None
                raise ProviderError(Fault.STALL, f"{self.label} wrote nothing for {stall:g}s") from None
            if not data:
                return
            written += len(data)
            if written > SETTINGS.output_bytes:
                await self.kill()
                raise ProviderError(
                    Fault.MALFORMED,
                    f"{self.label} wrote more than {SETTINGS.output_bytes // 1024} KB: it was stopped",
                )
            yield data

    async def exit_status(self, deadline: float) -> int:
        """The CLI's exit status, once its output is closed (killed at the deadline)."""
        try:
            async with asyncio.timeout_at(deadline):
                status = await self._running.wait()
                if self._stderr_task is not None:
                    await self._stderr_task
        except TimeoutError:
            await self.kill()
            raise ProviderError(Fault.TIMEOUT, f"{self.label} closed its output but did not exit") from None
        return status

    async def kill(self) -> None:
        """Stop the whole process group: politely, then for good; whatever it left running goes too."""
        process = self._process
        if process is None:
            return
        group = process.pid
        if process.returncode is None:
            _signal(group, signal.SIGTERM)
            try:
                async with asyncio.timeout(KILL_GRACE):
                    await process.wait()
            except TimeoutError:
                pass
        _signal(group, signal.SIGKILL)  # children that outlived their parent
        for pid in working_in(self.scratch.root):  # and those it started in a session of their own
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        # Its output is read to the end: a pipe left full keeps the process from being reaped.
        if process.stdout is not None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(KILL_GRACE):
                    while await process.stdout.read(65536):
                        pass
        if process.returncode is None:
            await process.wait()
        if self._stderr_task is not None and not self._stderr_task.done():
            self._stderr_task.cancel()

    async def _write_prompt(self, text: str) -> None:
        stdin = self._running.stdin
        assert stdin is not None
        try:
            stdin.write(text.encode())
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError):
            pass  # it exited before reading: its exit status and stderr say why
        finally:
            stdin.close()

    async def _read_stderr(self) -> None:
        stderr = self._running.stderr
        assert stderr is not None
        while chunk := await stderr.read(65536):
            self.stderr = (self.stderr + chunk.decode(errors="replace"))[-STDERR_TAIL:]


def working_in(root: Path) -> set[int]:
    """The processes whose working directory is under ``root`` (a call's scratch directory): its CLI's
    and any the CLI started in a session of its own (Qwen Code's update check, a browser to open),
    which a kill of its process group does not reach. None where there is no /proc to read."""
    inside = f"{root}{os.sep}"
    found: set[int] = set()
    try:
        entries = list(os.scandir("/proc"))
    except OSError:
        return found
    for entry in entries:
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if f"{os.readlink(f'/proc/{entry.name}/cwd')}{os.sep}".startswith(inside):
                    found.add(int(entry.name))
    return found


def _signal(group: int, number: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, number)
