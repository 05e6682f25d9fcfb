"""Many viewers of one question in processes of their own: the crowd a link shared with a team draws.

A thousand sockets read by the process that also checks or measures them would take its CPU, and
the lags measured would be that reader's own: the crowd's viewers live in child processes
(``python -m tests.integration.crowd``), each opening its share with ``viewer.watch``, the same
session cookie for all, and stamping arrivals with ``time.time()`` as every viewer does. A child
has AT_ONCE sockets opening at a time, the next once one has its connect snapshot, as people
following a link arrive over seconds: a socket is accepted only after the web process's one
viewers' thread (``debates.live.viewers``) has read its session and its right to watch, behind
every socket opened before it, and Daphne drops a handshake not done within 5 s
(``--websocket_connect_timeout``): of 3,000 opened at once on 2 cores, 2,035 were refused.

Parent and child speak in lines: the child prints ``ready`` once each of its sockets has its connect
snapshot (or failed), and ``closed`` once the server closed them all; then it reads one line, the
report wanted (JSON), closes what is still open, writes the report as JSON, and exits. Reports, a
record per viewer:

- ``{"check": [stored contribution, …], "why": …}``: ``checks.check_viewer``'s problems (a socket
  still open is one, for the reason ``why``) and how it came to each contribution; the messages of a
  viewer with problems are kept beside the report;
- ``{"arrivals": true}``: when it first received each word streamed (``streamed_words``), the words
  its connect snapshot held, whether it ended with the final page and when its last message came.
"""

import asyncio
import html
import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from tests.integration.checks import check_viewer, keep_messages, still_open
from tests.integration.cluster import ROOT, Process
from tests.integration.debate import StoredContribution
from tests.integration.viewer import Viewer, watch

AT_ONCE = 8  # sockets a child has opening at a time
WORD = re.compile(r"it-\w+\.\d+\.w\d+")  # a streamed word: "<model>.<request>.w<i>"


def streamed_words(viewer: Viewer) -> tuple[dict[str, float], set[str]]:
    """When the viewer first received each word streamed: in any message after the snapshot it
    connected to (a fragment, a whole card, or a later snapshot that made a gap good); and the
    words that snapshot already held. Those were not streamed to it: a whole card at the end of
    the round repeats them, and counting that as their arrival made a viewer that connected a
    moment late seem to wait seconds for words it had at once."""
    if not viewer.messages:
        return {}, set()
    shown = set(WORD.findall(html.unescape(viewer.messages[0][1])))
    streamed: dict[str, float] = {}
    for arrived, message in viewer.messages[1:]:
        for word in WORD.findall(html.unescape(message)):
            if word not in shown:
                streamed.setdefault(word, arrived)
    return streamed, shown


async def snapshot_or_end(viewer: Viewer, watching: asyncio.Task[Viewer]) -> None:
    """Return once the viewer has its connect snapshot, or its socket ended (``watching``: its watch)."""
    while not viewer.messages and not watching.done():  # noqa: ASYNC110 (no event per message: the receive loop stays lean)
        await asyncio.sleep(0.01)


def finished(viewer: Viewer) -> bool:
    """The viewer's last message is the final page of a run that ended well."""
    return bool(viewer.messages) and "is-over" in viewer.messages[-1][1] and "status-done" in viewer.messages[-1][1]


@dataclass
class Crowd:
    """``viewers`` sockets on one question, spread over ``processes`` children and over ``webs``
    (child i watches on ``webs[i % len(webs)]``). Use with ``async with``: the children end with it."""

    webs: list[Process]
    question_id: int
    session: str
    viewers: int
    processes: int
    folder: Path
    children: list[asyncio.subprocess.Process] = field(default_factory=list)
    _closed: list[asyncio.Task[bytes]] = field(default_factory=list)

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for child in self.children:
            if child.returncode is None:
                child.kill()
                await child.wait()

    async def connect(self) -> None:
        """Start the children; return once every socket has its connect snapshot (or failed)."""
        self.folder.mkdir(parents=True, exist_ok=True)
        first = 0
        for number in range(self.processes):
            web = self.webs[number % len(self.webs)]
            count = self.viewers // self.processes + (number < self.viewers % self.processes)
            spec = {
                "port": web.port,
                "question": self.question_id,
                "session": self.session,
                "first": first,
                "count": count,
                "who": f"of question {self.question_id} on {web.name} (port {web.port})",
                "log": str(web.log),
                "report": str(self.folder / f"crowd-{number}.json"),
            }
            first += count
            self.children.append(
                await asyncio.create_subprocess_exec(
                    sys.executable,
                    "-m",
                    __name__,
                    json.dumps(spec),
                    cwd=ROOT,
                    stdin=asyncio.subprocess.PIPE,
                    stdout=asyncio.subprocess.PIPE,
                )
            )
        said = await asyncio.gather(*(_line(child) for child in self.children))
        if any(line != b"ready\n" for line in said):
            raise RuntimeError(f"a crowd process ended before its viewers were ready (said {said}; see its stderr)")
        self._closed = [asyncio.create_task(_line(child)) for child in self.children]

    async def closed(self) -> bool:
        """Wait for every child's sockets to end; whether the server closed them all (a child that
        failed says nothing). Cancelling the wait leaves the children as they were."""
        await asyncio.wait(self._closed)
        return all(task.result() == b"closed\n" for task in self._closed)

    async def report(self, wanted: dict[str, Any]) -> list[dict[str, Any]]:
        """Each viewer's record (module docstring), in order; any still open are closed first."""
        for child in self.children:
            assert child.stdin is not None
            child.stdin.write(json.dumps(wanted).encode() + b"\n")
            await child.stdin.drain()
        codes = await asyncio.gather(*(child.wait() for child in self.children))
        if any(codes):
            raise RuntimeError(f"a crowd process failed ({codes}; see its stderr)")
        records = []
        for number in range(len(self.children)):
            records += json.loads((self.folder / f"crowd-{number}.json").read_text())
        return records


async def _line(child: asyncio.subprocess.Process) -> bytes:
    assert child.stdout is not None
    return await child.stdout.readline()


def _say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


async def watch_share(spec: dict[str, Any]) -> list[dict[str, Any]] | None:
    """The child: open its share of the sockets, follow them to their close; the report wanted
    (module docstring), None when the parent is gone."""
    viewers = [Viewer(spec["port"]) for _ in range(spec["count"])]
    room = asyncio.Semaphore(AT_ONCE)

    async def start(viewer: Viewer) -> asyncio.Task[Viewer]:
        async with room:
            task = asyncio.create_task(watch(viewer, spec["question"], spec["session"]))
            await snapshot_or_end(viewer, task)
        return task

    tasks = await asyncio.gather(*(start(viewer) for viewer in viewers))
    _say("ready")
    request = asyncio.ensure_future(asyncio.to_thread(sys.stdin.readline))
    everyone = asyncio.ensure_future(asyncio.wait(tasks))
    await asyncio.wait([request, everyone], return_when=asyncio.FIRST_COMPLETED)
    if everyone.done():
        _say("closed")
    line = await request
    if not line:
        return None
    wanted = json.loads(line)
    open_ = [not task.done() for task in tasks]
    everyone.cancel()
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    failures = [
        None if still or task.cancelled() else task.exception() for still, task in zip(open_, tasks, strict=True)
    ]
    if "check" in wanted:
        return _checked(spec, wanted, viewers, open_, failures)
    return [_arrivals(viewer, failure) for viewer, failure in zip(viewers, failures, strict=True)]


def _checked(spec: dict, wanted: dict, viewers: list[Viewer], open_: list[bool], failures: list) -> list:
    calls = [StoredContribution(**call) for call in wanted["check"]]
    records = []
    for number, (viewer, still, failure) in enumerate(zip(viewers, open_, failures, strict=True), start=spec["first"]):
        who = f"viewer {number} {spec['who']}"
        problems = [still_open(who, viewer, wanted["why"])] if still else []
        if failure is not None:
            problems.append(f"{who}: the socket failed: {failure!r}")
        found, how = check_viewer(viewer, calls, who, Path(spec["log"]))
        problems += found
        if problems:
            keep_messages(viewer, Path(spec["report"]).with_name(f"viewer-{number}.txt"))
        records.append({"problems": problems, "how": how, "messages": len(viewer.messages)})
    return records


def _arrivals(viewer: Viewer, failure: BaseException | None) -> dict[str, Any]:
    streamed, shown = streamed_words(viewer)
    return {
        "last": viewer.messages[-1][0] if viewer.messages else None,
        "streamed": streamed,
        "shown": sorted(shown),
        "finished": finished(viewer),
        "failure": repr(failure) if failure is not None else "",
    }


if __name__ == "__main__":
    share = json.loads(sys.argv[1])
    if (records := asyncio.run(watch_share(share))) is not None:
        Path(share["report"]).write_text(json.dumps(records))
