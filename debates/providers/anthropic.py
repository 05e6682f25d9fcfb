"""Anthropic Messages: the system prompt travels apart, the answer arrives as typed events."""

import base64
import json
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from typing import Any

from debates.providers.base import (
    STOP,
    TRUNCATED,
    Chunk,
    Cited,
    Endpoint,
    Message,
    Part,
    Source,
    Usage,
    Voice,
    split_system,
)
from debates.providers.catalog import MAX_SEARCHES
from debates.providers.client import decode_json, ended_early, post_sse
from debates.providers.faults import status_error

VERSION = "2023-06-01"
FINISH = {
    "end_turn": STOP,
    "stop_sequence": STOP,
    "tool_use": STOP,  # the reply was the structure asked for, as a forced tool call
    "max_tokens": TRUNCATED,
    "model_context_window_exceeded": TRUNCATED,
    "pause_turn": TRUNCATED,  # still paused after every continuation it may have: the answer is cut off
}
# Error events mid-stream carry a type, not a status; map them so they fault like the HTTP ones.
ERROR_STATUS = {
    "invalid_request_error": 400,
    "authentication_error": 401,
    "permission_error": 403,
    "not_found_error": 404,
    "request_too_large": 413,
    "rate_limit_error": 429,
    "api_error": 500,
    "overloaded_error": 529,
}
# The server-side web search tool (its max_uses: catalog.MAX_SEARCHES, which the estimate prices too).
WEB_SEARCH = "web_search_20250305"
# A turn the server paused in its loop of searches: sent back, and continued this many times at most.
PAUSED = "pause_turn"
MAX_CONTINUATIONS = 5
BETWEEN_SEARCHES = "\n\n"  # what separates the text written before a search from the text after it
PARTIAL = "_partial_json"  # a tool call's input as streamed so far (never sent back)


def block(given: Part) -> dict[str, Any]:
    """An ``image`` block, or a PDF as a ``document`` block titled with its name, each base64."""
    source = {"type": "base64", "media_type": given.media_type, "data": base64.b64encode(given.data).decode()}
    if given.kind == "image":
        return {"type": "image", "source": source}
    return {"type": "document", "source": source, "title": given.name, "citations": {"enabled": True}}


def content(message: Message) -> str | list[dict[str, Any]]:
    """Plain text, or the files' blocks then the text (Anthropic advises files before the question)."""
    if not message.parts:
        return message.content
    return [*(block(p) for p in message.parts), {"type": "text", "text": message.content}]


def search_tool() -> dict[str, Any]:
    """Anthropic's own web search, run on its servers (we fetch nothing)."""
    return {"type": WEB_SEARCH, "name": "web_search", "max_uses": MAX_SEARCHES}


def block_sources(block: dict[str, Any], start: int) -> list[Source]:
    """The sources of one content block, as a message holds it and as a streamed block ends up
    (``content_block_start``'s block, its text and its ``citations_delta``s added): the pages a
    ``web_search_tool_result`` found, and the ``citations`` of a text block that begins at
    ``start`` in the answer (the span they support is that block)."""
    if block.get("type") == "web_search_tool_result":
        found = block.get("content")  # a list of results, or an error object
        return [
            Source(url=str(r["url"]), title=str(r.get("title") or ""), cited=False)
            for r in (found if isinstance(found, list) else ())
            if isinstance(r, dict) and r.get("type") == "web_search_result" and r.get("url")
        ]
    if block.get("type") != "text":
        return []
    end = start + len(block.get("text") or "")
    return [
        found
        for c in block.get("citations") or ()
        if isinstance(c, dict) and (found := cited(c, start, end)) is not None
    ]


def cited(citation: dict[str, Any], start: int, end: int) -> Source | None:
    """One citation of a text block: a web search result it quotes, a search result passed in, or a
    place in an attached document (its title, and the page for a PDF)."""
    quote = str(citation.get("cited_text") or "")
    match citation.get("type"):
        case "web_search_result_location" if citation.get("url"):
            return Source(
                url=str(citation["url"]), title=str(citation.get("title") or ""), quote=quote, start=start, end=end
            )
        case "search_result_location" if citation.get("source"):
            return Source(
                url=str(citation["source"]), title=str(citation.get("title") or ""), quote=quote, start=start, end=end
            )
        case "char_location" | "page_location" | "content_block_location":
            index = citation.get("document_index")
            name = citation.get("document_title") or (
                f"document {index + 1}" if isinstance(index, int) else "a document"
            )
            page = citation.get("start_page_number") if citation["type"] == "page_location" else None
            return Source(
                document=str(name), page=page if isinstance(page, int) else None, quote=quote, start=start, end=end
            )
    return None


def searches(usage: dict[str, Any], before: int) -> int:
    """The web searches the answer made so far (``usage.server_tool_use``, in message_start and message_delta)."""
    found = (usage.get("server_tool_use") or {}).get("web_search_requests")
    return found if isinstance(found, int) else before


@dataclass
class Turn:
    """One answer across the responses of a turn the server paused: the content so far (sent back to
    continue it), the characters of answer written, and what every response cost, added up."""

    content: list[dict[str, Any]] = field(default_factory=list)
    written: int = 0
    tokens_in: int | None = None
    tokens_out: int | None = None
    searched: int = 0
    finish: str = ""

    def spent(self, tokens_in: int | None, tokens_out: int | None, searched: int) -> None:
        """One response's usage, added to the turn's (each continuation is billed as a request of its own)."""
        self.tokens_in = _added(self.tokens_in, tokens_in)
        self.tokens_out = _added(self.tokens_out, tokens_out)
        self.searched += searched


def _added(before: int | None, more: int | None) -> int | None:
    return more if before is None else before + (more or 0)


def request(voice: Voice, messages: list[Message]) -> dict[str, Any]:
    """The request's body: the system prompt apart, a structure as the one tool the model must call,
    else the server's web search for a voice that may search."""
    system, conversation = split_system(messages)
    body: dict[str, Any] = {
        "model": voice.model,
        "max_tokens": voice.max_tokens,
        "temperature": voice.temperature,
        "messages": [{"role": m.role, "content": content(m)} for m in conversation],
        "stream": True,
    }
    if system:
        body["system"] = system
    if voice.structure is not None:
        body["tools"] = [
            {
                "name": voice.structure.name,
                "description": "Record your reply in exactly this structure.",
                "input_schema": json.loads(voice.structure.schema),
            }
        ]
        body["tool_choice"] = {"type": "tool", "name": voice.structure.name}
    elif voice.search:
        body["tools"] = [search_tool()]
    return body


async def attempt(
    voice: Voice, messages: list[Message], deadline: float
) -> AsyncGenerator[Chunk | Cited | Usage, None]:
    """One call: text chunks and each finished block's sources, then the Usage of the whole turn.

    ``voice.json_output`` changes nothing here: the Messages API has no JSON mode (only tools or
    a prefilled "{", and a prefill breaks with thinking models), so the prompt alone asks. A
    ``voice.structure`` becomes the one tool the model must call: its input, streamed as JSON
    deltas, is the reply's text. A voice that may search gets the server's web search tool
    (``search_tool``), never beside a structure: the model must call that tool, and nothing else.
    A turn the server pauses in its loop of searches (``pause_turn``) is sent back as the API asks,
    its content as the assistant's last message, and continued (``MAX_CONTINUATIONS`` times at most,
    within the call's deadline); one still paused then ends as cut off.
    """
    endpoint = voice.endpoint
    headers = {"x-api-key": endpoint.api_key, "anthropic-version": VERSION}
    body = request(voice, messages)
    asked = body["messages"]
    url = f"{endpoint.base_url.rstrip('/')}/v1/messages"
    turn = Turn()
    for _ in range(MAX_CONTINUATIONS + 1):
        async for item in response(endpoint, url, headers, body, deadline, turn):
            yield item
        if turn.finish != PAUSED:
            break
        body = body | {"messages": [*asked, {"role": "assistant", "content": turn.content}]}
    yield Usage(turn.tokens_in, turn.tokens_out, FINISH.get(turn.finish, turn.finish), turn.searched)


async def response(
    endpoint: Endpoint, url: str, headers: dict[str, str], body: dict[str, Any], deadline: float, turn: Turn
) -> AsyncGenerator[Chunk | Cited, None]:
    """One response of the turn, streamed: its text and each finished block's sources as they come;
    its blocks whole, its usage and its stop reason into ``turn``."""
    reader = Reader(turn)
    async for event in post_sse(endpoint, url, headers, body, deadline):
        data = decode_json(endpoint, event)
        kind = data.get("type", event.event)
        if kind == "error":
            error: dict[str, Any] = data.get("error") or {}
            raise status_error(endpoint.name, ERROR_STATUS.get(error.get("type", ""), 500), event.data)
        for item in reader.read(kind, data):
            yield item
        if reader.stopped:
            break
    if not (reader.stopped or reader.finish):
        raise ended_early(endpoint)
    turn.spent(reader.tokens_in, reader.tokens_out, reader.searched)
    turn.finish = reader.finish


@dataclass
class Reader:
    """One response's events read one at a time, one handler per kind (``read``): the blocks open so
    far, each with where it starts in the answer, and what the response said it cost."""

    turn: Turn
    blocks: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)  # index -> (start, block so far)
    tokens_in: int | None = None
    tokens_out: int | None = None
    searched: int = 0
    finish: str = ""
    stopped: bool = False  # message_stop came

    def read(self, kind: str, data: dict[str, Any]) -> list[Chunk | Cited]:
        """What one event adds to the answer: text, or a finished block's sources."""
        match kind:
            case "content_block_start":
                return self.opened(data.get("index", 0), dict(data.get("content_block") or {}))
            case "content_block_delta":
                return self.added(data.get("index", 0), data.get("delta") or {})
            case "content_block_stop":
                return self.closed(data.get("index", 0))
            case "message_start":
                usage = (data.get("message") or {}).get("usage") or {}
                self.tokens_in = usage.get("input_tokens", self.tokens_in)
                self.spent(usage)
            case "message_delta":
                self.spent(data.get("usage") or {})
                self.finish = (data.get("delta") or {}).get("stop_reason") or self.finish
            case "message_stop":
                self.stopped = True
        return []

    def opened(self, index: int, block: dict[str, Any]) -> list[Chunk | Cited]:
        """A block begins; text after a search is a paragraph of its own."""
        content = self.turn.content
        after_search = block.get("type") == "text" and content and content[-1].get("type") != "text"
        said: list[Chunk | Cited] = [self.wrote(BETWEEN_SEARCHES)] if after_search and self.turn.written else []
        self.blocks[index] = (self.turn.written, block)
        return said

    def added(self, index: int, delta: dict[str, Any]) -> list[Chunk | Cited]:
        """A block's delta: its text, a tool call's input (the structure's is the reply, a search's
        query is not), or one of its citations."""
        if index not in self.blocks:  # no start seen
            opened = {"type": "tool_use" if delta.get("type") == "input_json_delta" else "text"}
            self.blocks[index] = (self.turn.written, opened)
        block = self.blocks[index][1]
        match delta.get("type"):
            case "text_delta" if delta.get("text"):
                block["text"] = block.get("text", "") + delta["text"]
                return [self.wrote(delta["text"])]
            case "input_json_delta" if delta.get("partial_json"):
                block[PARTIAL] = block.get(PARTIAL, "") + delta["partial_json"]
                return [self.wrote(delta["partial_json"])] if block["type"] == "tool_use" else []
            case "citations_delta" if isinstance(delta.get("citation"), dict):
                block["citations"] = [*(block.get("citations") or ()), delta["citation"]]
        return []

    def closed(self, index: int) -> list[Chunk | Cited]:
        """A block ends: kept whole for a continuation, its sources said."""
        start, block = self.blocks.pop(index, (self.turn.written, {}))
        self.turn.content.append(whole(block))
        found = block_sources(block, start)
        return [Cited(tuple(found))] if found else []

    def spent(self, usage: dict[str, Any]) -> None:
        """The output so far, as message_start and message_delta carry it (the input is read at the start)."""
        self.tokens_out = usage.get("output_tokens", self.tokens_out)
        self.searched = searches(usage, self.searched)

    def wrote(self, text: str) -> Chunk:
        self.turn.written += len(text)
        return Chunk(text)


def whole(block: dict[str, Any]) -> dict[str, Any]:
    """A streamed block as the API takes it back: a tool call's input parsed from its JSON deltas,
    no empty citations."""
    found = {k: v for k, v in block.items() if k != PARTIAL and not (k == "citations" and not v)}
    if PARTIAL in block:
        try:
            found["input"] = json.loads(block[PARTIAL])
        except ValueError:
            found["input"] = {}
    return found
