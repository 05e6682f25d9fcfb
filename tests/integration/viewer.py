"""A websocket viewer of one question, and the card texts its page would show.

The consumer sends HTML fragments for the htmx ws extension: an element with an id replaces
the element with that id (out-of-band swap), ``<div hx-swap-oob="beforeend:#ID">`` appends to
it. ``Page`` applies them to the card texts (``v<round>-<seat>-text``) as htmx would and keeps,
for each contribution, the text streamed up to the moment its finished card arrived: that is what a
person watched, so it must equal the stored contribution, with nothing missing and nothing doubled.
"""

import asyncio
import contextlib
import re
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosedError, InvalidHandshake

TEXT_ID = re.compile(r"v\d+-\S+-text")
VOID = {"br", "hr", "img", "input", "meta", "link", "wbr", "col", "source"}


def dom_text_id(round_index: int, seat: str) -> str:
    """The id of a card's text element (debates.cards.dom_id for the seats used here)."""
    return f"v{round_index}-{seat}-text"


@dataclass
class _Capture:
    op: str  # "set" (the element is replaced) or "append" (beforeend)
    target: str
    finished: bool
    depth: int
    parts: list[str] = field(default_factory=list)


class _Operations(HTMLParser):
    """One fragment's operations on card texts, in document order."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.open: list[_Capture] = []
        self.ops: list[_Capture] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in VOID:
            return
        self.depth += 1
        values = {name: value or "" for name, value in attrs}
        swap = values.get("hx-swap-oob", "")
        if TEXT_ID.fullmatch(values.get("id", "")):
            self.open.append(_Capture("set", values["id"], "markdown" in values.get("class", ""), self.depth))
        elif swap.startswith("beforeend:#") and TEXT_ID.fullmatch(swap.removeprefix("beforeend:#")):
            self.open.append(_Capture("append", swap.removeprefix("beforeend:#"), False, self.depth))

    def handle_endtag(self, tag: str) -> None:
        if tag in VOID:
            return
        if self.open and self.open[-1].depth == self.depth:
            self.ops.append(self.open.pop())
        self.depth -= 1

    def handle_data(self, data: str) -> None:
        for capture in self.open:
            capture.parts.append(data)


@dataclass
class Page:
    texts: dict[str, str] = field(default_factory=dict)  # text element id -> what it shows now
    streamed: dict[str, str] = field(default_factory=dict)  # id -> streamed text when it finished
    finished: set[str] = field(default_factory=set)

    def apply(self, html: str) -> None:
        parser = _Operations()
        parser.feed(html)
        parser.close()
        for op in parser.ops:
            text = "".join(op.parts)
            if op.op == "append":
                self.texts[op.target] = self.texts.get(op.target, "") + text
                continue
            if op.finished and op.target not in self.finished:
                self.finished.add(op.target)
                self.streamed[op.target] = self.texts.get(op.target, "")
            elif not op.finished:
                self.finished.discard(op.target)
            self.texts[op.target] = text


DIV = re.compile(r"<div\b|</div>")


def finished_html(message: str, text_id: str) -> str | None:
    """The inner HTML of a finished card's text (rendered markdown, its closing block in a div of
    its own) in one message."""
    opened = re.search(rf'<div id="{re.escape(text_id)}" class="card-body markdown">', message)
    if opened is None:
        return None
    depth = 1
    for tag in DIV.finditer(message, opened.end()):
        depth += 1 if tag[0] == "<div" else -1
        if not depth:
            return message[opened.end() : tag.start()]
    return None


@dataclass
class Viewer:
    """Everything one websocket received: (arrival time, message), and how it closed."""

    port: int
    messages: list[tuple[float, str]] = field(default_factory=list)
    close_code: int | None = None
    connections: int = 0  # handshakes that succeeded
    opened: list[float] = field(default_factory=list)  # when each succeeded (time.time())
    _page: Page = field(default_factory=Page)
    _applied: int = 0

    def page(self) -> Page:
        """The page as of the last message received (parsed on demand, not in the receive loop)."""
        for _at, message in self.messages[self._applied :]:
            self._page.apply(message)
        self._applied = len(self.messages)
        return self._page


async def watch(viewer: Viewer, question_id: int, session: str, opened=None) -> Viewer:
    """Receive until the server closes the socket (it does once the run is over).

    ``opened`` (an asyncio.Event) is set once the handshake succeeded.
    """
    url = f"ws://127.0.0.1:{viewer.port}/ws/questions/{question_id}/"
    headers = {"Cookie": f"sessionid={session}"}
    # No keepalive pings: on a loaded machine a late pong would close a healthy loopback socket.
    async with connect(
        url,
        origin=f"http://127.0.0.1:{viewer.port}",
        additional_headers=headers,
        proxy=None,
        max_size=None,
        ping_interval=None,
    ) as socket:
        viewer.connections += 1
        viewer.opened.append(time.time())
        if opened is not None:
            opened.set()
        try:
            async for message in socket:
                viewer.messages.append((time.time(), message))
        except ConnectionClosedError:
            pass
        viewer.close_code = socket.close_code
    return viewer


async def follow(viewer: Viewer, question_id: int, session: str, opened=None, pause: float = 0.5) -> Viewer:
    """Watch until the run is over, reconnecting as the page's htmx ws extension does after an
    abnormal close or a refused handshake: each new socket starts from a fresh snapshot."""
    while True:
        viewer.close_code = None
        with contextlib.suppress(OSError, InvalidHandshake):  # refused while the server cannot take it
            await watch(viewer, question_id, session, opened)
        if viewer.close_code == 1000:
            return viewer
        await asyncio.sleep(pause)


def out_of_order(viewer: Viewer, stored: dict[str, str]) -> list[str]:
    """Each moment a card streaming to ``viewer`` showed text that was not the start of its stored
    text (``stored``: text id -> text): a word doubled, lost before the last one shown, or out of order."""
    page, wrong = Page(), []
    for _at, message in viewer.messages:
        page.apply(message)
        for text_id, shown in page.texts.items():
            if text_id in stored and text_id not in page.finished and not stored[text_id].startswith(shown):
                wrong.append(f"{text_id} showed {shown!r}")
    return wrong
