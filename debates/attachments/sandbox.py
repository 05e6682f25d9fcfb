"""Reading attached files in a child Python process with a deadline and an address-space cap, as the
SymPy sandbox does (debates/grounding/sandbox.py): a PDF or an image crafted to hang or explode a
parser only takes the child with it. One child reads all of a question's files, one after another.
"""

import json
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MEMORY_LIMIT_BYTES = 1536 * 2**20
STARTUP_S = 10.0  # the interpreter itself, on a busy machine
WORKER = Path(__file__).with_name("worker.py")


@dataclass(frozen=True)
class Task:
    name: str
    family: str  # which reader: pdf, docx, image, text
    kind: str
    media_type: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Read:
    """What the child read of one file: ``error`` in words, else its facts and re-encoded bytes."""

    error: str = ""
    facts: dict[str, Any] = field(default_factory=dict)
    blobs: tuple[bytes, ...] = ()


def read(tasks: list[Task], limits: dict[str, Any], seconds: float) -> list[Read]:
    """Each file as the child read it, in order; a file the child did not finish in time (or that
    killed it) is said so, and so are the ones after it."""
    frames = b"".join(
        json.dumps(
            {"family": t.family, "kind": t.kind, "media_type": t.media_type, "size": len(t.data)} | limits
        ).encode()
        + b"\n"
        + t.data
        for t in tasks
    )
    child = subprocess.Popen(
        [sys.executable, "-I", str(WORKER), str(MEMORY_LIMIT_BYTES), str(int(seconds * len(tasks)) + 5)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=tempfile.gettempdir(),
        env={},
        start_new_session=True,
    )
    late = ""
    try:
        out, _ = child.communicate(frames, timeout=STARTUP_S + seconds * len(tasks))
    except subprocess.TimeoutExpired:
        child.kill()
        out, _ = child.communicate()
        late = f"it was not read within {seconds:g} s"
    replies = parse(out)
    stopped = late or "reading it stopped the reader (out of memory or time)"
    return [*replies, *(Read(error=stopped) for _ in tasks[len(replies) :])]


def parse(out: bytes) -> list[Read]:
    """The child's replies, as far as they are whole."""
    if not out.startswith(b"ready\n"):
        return []
    replies: list[Read] = []
    at = len(b"ready\n")
    while (end := out.find(b"\n", at)) >= 0:
        try:
            reply = json.loads(out[at:end])
        except ValueError:
            break
        at = end + 1
        blobs = []
        for size in reply.pop("blobs", []):
            if at + size > len(out):
                return replies
            blobs.append(out[at : at + size])
            at += size
        replies.append(Read(error=reply.pop("error", ""), facts=reply, blobs=tuple(blobs)))
    return replies
