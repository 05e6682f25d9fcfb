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
# The server-side web search tool, and how many searches one answer may make at most.
WEB_SEARCH = "web_search_20250305"
MAX_SEARCHES = 5
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
    system, conversation = split_system(messages)
    headers = {"x-api-key": endpoint.api_key, "anthropic-version": VERSION}
    asked = [{"role": m.role, "content": content(m)} for m in conversation]
    body: dict[str, Any] = {
        "model": voice.model,
        "max_tokens": voice.max_tokens,
        "temperature": voice.temperature,
        "messages": asked,
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
    tokens_in = tokens_out = None
    finish, done, searched = "", False, 0
    blocks: dict[int, tuple[int, dict[str, Any]]] = {}  # index -> (where it starts, the block so far)
    async for event in post_sse(endpoint, url, headers, body, deadline):
        data = decode_json(endpoint, event)
        kind = data.get("type", event.event)
        if kind == "content_block_delta":
            delta = data.get("delta") or {}
            if data.get("index", 0) not in blocks:  # no start seen
                opened = {"type": "tool_use" if delta.get("type") == "input_json_delta" else "text"}
                blocks[data.get("index", 0)] = (turn.written, opened)
            start, block = blocks[data.get("index", 0)]
            if delta.get("type") == "text_delta" and delta.get("text"):
                block["text"] = block.get("text", "") + delta["text"]
                turn.written += len(delta["text"])
                yield Chunk(delta["text"])
            elif delta.get("type") == "input_json_delta" and delta.get("partial_json"):
                block[PARTIAL] = block.get(PARTIAL, "") + delta["partial_json"]
                if block["type"] == "tool_use":  # the structure's input is the reply (a search's query is not)
                    turn.written += len(delta["partial_json"])
                    yield Chunk(delta["partial_json"])
            elif delta.get("type") == "citations_delta" and isinstance(delta.get("citation"), dict):
                block["citations"] = [*(block.get("citations") or ()), delta["citation"]]
        elif kind == "content_block_start":
            block = dict(data.get("content_block") or {})
            if block.get("type") == "text" and turn.written and turn.content and turn.content[-1].get("type") != "text":
                turn.written += len(BETWEEN_SEARCHES)  # text after a search: a paragraph of its own
                yield Chunk(BETWEEN_SEARCHES)
            blocks[data.get("index", 0)] = (turn.written, block)
        elif kind == "content_block_stop":
            start, block = blocks.pop(data.get("index", 0), (turn.written, {}))
            turn.content.append(whole(block))
            if found := block_sources(block, start):
                yield Cited(tuple(found))
        elif kind == "message_start":
            usage = (data.get("message") or {}).get("usage") or {}
            tokens_in = usage.get("input_tokens", tokens_in)
            tokens_out = usage.get("output_tokens", tokens_out)
            searched = searches(usage, searched)
        elif kind == "message_delta":
            usage = data.get("usage") or {}
            tokens_out = usage.get("output_tokens", tokens_out)
            searched = searches(usage, searched)
            finish = (data.get("delta") or {}).get("stop_reason") or finish
        elif kind == "message_stop":
            done = True
            break
        elif kind == "error":
            error: dict[str, Any] = data.get("error") or {}
            raise status_error(endpoint.name, ERROR_STATUS.get(error.get("type", ""), 500), event.data)
    if not (done or finish):
        raise ended_early(endpoint)
    turn.spent(tokens_in, tokens_out, searched)
    turn.finish = finish


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
