"""Server-sent events, decoded incrementally and strictly.

Strict because a body that is not SSE (an HTML error page, a JSON object sent by a server
that ignored ``stream``) must fail as a malformed stream, not pass as an empty answer.
"""

import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")
_IGNORED_FIELDS = frozenset({"id", "retry"})


class SSEError(ValueError):
    """The bytes received are not a server-sent event stream."""


@dataclass(frozen=True, slots=True)
class ServerSentEvent:
    event: str
    data: str


class SSEDecoder:
    """Feed text as it arrives; get back the events it completes."""

    def __init__(self) -> None:
        self._pending = ""
        self._event = ""
        self._data: list[str] = []

    def feed(self, text: str) -> list[ServerSentEvent]:
        buffer = self._pending + text
        # A trailing "\r" may be the first half of "\r\n": keep it for the next feed.
        held = "\r" if buffer.endswith("\r") else ""
        *lines, rest = _LINE_END.split(buffer[: len(buffer) - len(held)])
        self._pending = rest + held
        events = []
        for line in lines:
            event = self._line(line)
            if event is not None:
                events.append(event)
        return events

    def close(self) -> list[ServerSentEvent]:
        """The stream ended: a last event without its blank line still counts."""
        events = self.feed("\n") if self._pending else []
        event = self._line("")
        return [*events, event] if event else events

    def _line(self, line: str) -> ServerSentEvent | None:
        if not line:
            if not self._data:
                self._event = ""
                return None
            event = ServerSentEvent(self._event or "message", "\n".join(self._data))
            self._event, self._data = "", []
            return event
        if line.startswith(":"):
            return None
        field, colon, value = line.partition(":")
        if not colon or field not in {"data", "event", *_IGNORED_FIELDS}:
            raise SSEError(f"unexpected line {line[:60]!r}")
        value = value.removeprefix(" ")
        if field == "data":
            self._data.append(value)
        elif field == "event":
            self._event = value
        return None
