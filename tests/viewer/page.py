"""What a browser would show, for socket tests: the text of every card, after each message.

htmx applies a message by out-of-band swaps: an element with an id replaces the element with
that id; ``hx-swap-oob="beforeend:#x"`` appends its content to #x. Cards are the only thing
whose text these tests follow, so the model keeps the body of each card by its element id.
"""

import html
import re

BODY = re.compile(
    r'<div id="(?P<id>v[^"]+)-text" class="card-body (?P<kind>stream|markdown)"[^>]*>(?P<html>.*?)</div>', re.S
)
APPEND = re.compile(r'<div hx-swap-oob="beforeend:#(?P<id>v[^"]+)-text">(?P<html>.*?)</div>', re.S)
TAG = re.compile(r"<[^>]+>")


class Page:
    def __init__(self) -> None:
        self.bodies: dict[str, tuple[str, str]] = {}  # dom id -> (stream | markdown, html)
        self.over = False  # the final page arrived: the live part (and its socket) is gone

    def apply(self, message: str) -> None:
        if message.startswith('<div id="live"') and "ws-connect" not in message:
            self.over = True
        # In document order, as the ws extension swaps a message's elements one after the other.
        swaps = sorted([*BODY.finditer(message), *APPEND.finditer(message)], key=lambda match: match.start())
        for match in swaps:
            if match.re is BODY:
                self.bodies[match["id"]] = (match["kind"], match["html"])
                continue
            kind, text = self.bodies[match["id"]]
            assert kind == "stream", f"text appended to the finished card {match['id']}"
            self.bodies[match["id"]] = (kind, text + match["html"])

    def text(self, dom: str) -> str:
        """A card's text as the reader sees it (markup stripped, entities decoded)."""
        kind, body = self.bodies[dom]
        return html.unescape(body if kind == "stream" else TAG.sub("", body))

    def kind(self, dom: str) -> str:
        return self.bodies[dom][0]
