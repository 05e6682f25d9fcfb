"""What the fake provider server says, in each of the three real wire formats.

One class per wire: how to read a request (model, system prompt, turns, streaming or not) and
how to write the stream's events, a whole non-streamed answer, and errors in the provider's own
shape, so our client is tested against the formats it meets in production.

Sources (``Cite``) go out as each wire sends them, streamed and not, in the shapes of the
providers' official SDKs (tests/providers/test_official_clients.py parses them with those):

- OpenAI and OpenRouter, when the request asked for search: a ``url_citation`` annotation over each
  Markdown link the answer holds to a cited page (the span covers the link, not the sentence it
  follows, as the search models write them), streamed in the finishing chunk; OpenRouter's with the
  page's ``content``.
- Perplexity (unless ``disable_search``): ``search_results`` for every page found and ``citations``
  (deprecated) listing them all, in every chunk; the answer's own "[n]" markers say which it cites.
- Anthropic, when the request carries the web search tool: ``server_tool_use`` and
  ``web_search_tool_result`` blocks (only where a search found pages), then text blocks with
  ``citations`` (``citations_delta`` when streamed). A turn scripted to end in ``pause_turn`` ends
  with the search it paused before running; the request that continues it (the paused content sent
  back as the assistant's) gets that search's results, then the rest of the answer.
- Gemini, when the request carries ``google_search``: ``groundingMetadata`` (chunks, supports whose
  segments are UTF-8 byte offsets, ``startIndex`` left out where it is 0, as protobuf JSON does).
"""

import itertools
import json
import re
from dataclasses import dataclass
from typing import Any

CREATED = 1767225600  # the replies' "created" time: OpenAI's types require one


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; ``data`` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "").encode() + f"data: {payload}\n\n".encode()


@dataclass(frozen=True)
class Cite:
    """A source the fake cites: its page, the words it quotes from it, and the words of the answer
    it supports (none: a page looked up, cited nowhere)."""

    url: str
    title: str = ""
    quote: str = ""
    supports: str = ""


Span = tuple[int, int, int]  # (start, end) of the answer a source supports, and the source's index


def located(answer: str, sources: tuple[Cite, ...]) -> list[Span]:
    """Where in the answer each source's supported words are (the first time they occur)."""
    found = []
    for index, cite in enumerate(sources):
        at = answer.find(cite.supports) if cite.supports else -1
        if at >= 0:
            found.append((at, at + len(cite.supports), index))
    return sorted(found)


# A Markdown link as OpenAI's and OpenRouter's search models write one after what it supports:
# "([example.org](https://example.org/page?utm_source=openai))", or without the parentheses.
LINK = re.compile(r"\(?\[[^\]\n]*\]\((?P<url>[^()\s]+)\)\)?")


def linked(answer: str, sources: tuple[Cite, ...]) -> list[tuple[int, int, str, int]]:
    """Each link of the answer to a cited page: (start, end, its address as written, the source's index)."""
    found = []
    for match in LINK.finditer(answer):
        for index, cite in enumerate(sources):
            if cite.supports and match["url"].startswith(cite.url):
                found.append((match.start(), match.end(), match["url"], index))
                break
    return found


def bounds(answer: str, sources: tuple[Cite, ...]) -> list[int]:
    """The offsets where a supported span begins or ends, inside the answer: where pieces split."""
    return sorted({b for start, end, _ in located(answer, sources) for b in (start, end)} - {0, len(answer)})


@dataclass(frozen=True)
class Parsed:
    model: str
    system: str
    messages: list[tuple[str, str]]  # (role, text), roles "user" / "assistant"
    stream: bool


def _text(content: Any) -> str:
    """Text from a string or a list of content blocks."""
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content or () if isinstance(block, dict))


def _files(content: Any) -> list[dict]:
    """The blocks of a message's content that are no text (images, documents, files), exactly as sent."""
    if isinstance(content, str):
        return []
    return [block for block in content or () if isinstance(block, dict) and block.get("type", "") != "text"]


class OpenAI:
    name = "openai"
    FINISH = {"stop": "stop", "length": "length"}

    def parse(self, body: dict) -> Parsed:
        turns = body.get("messages") or []
        system = "\n\n".join(_text(m.get("content")) for m in turns if m.get("role") == "system")
        messages = [(m["role"], _text(m.get("content"))) for m in turns if m.get("role") != "system"]
        return Parsed(body.get("model", ""), system, messages, bool(body.get("stream")))

    def files(self, body: dict) -> list[dict]:
        """The user messages' parts that are no text: ``image_url`` and ``file``."""
        return [
            part for m in body.get("messages") or [] if m.get("role") == "user" for part in _files(m.get("content"))
        ]

    def json_output(self, body: dict) -> bool:
        return (body.get("response_format") or {}).get("type") in ("json_object", "json_schema")

    def schema(self, body: dict) -> dict | None:
        """The JSON Schema asked for (``response_format`` json_schema), if any."""
        found = body.get("response_format") or {}
        return (found.get("json_schema") or {}).get("schema") if found.get("type") == "json_schema" else None

    def head(
        self, model: str, usage: tuple[int, int] | None, body: dict, sources: tuple[Cite, ...] = (), answer: str = ""
    ) -> list[bytes]:
        return [sse(self._chunk(model, {"role": "assistant", "content": ""}))]

    def piece(self, model: str, text: str, body: dict, at: int = 0, answer: str = "", sources: tuple = ()) -> bytes:
        return sse(self._chunk(model, {"content": text}) | self._perplexity(answer, sources, body))

    def tail(
        self,
        model: str,
        usage: tuple[int, int] | None,
        sources: tuple[Cite, ...],
        finish: str,
        body: dict,
        answer: str = "",
    ) -> list[bytes]:
        # The annotations come once, with the finishing chunk (the SDK's accumulator takes them once).
        annotations = self._annotations(answer, sources, body)
        last = self._chunk(model, {"annotations": annotations} if annotations else {}, self.FINISH.get(finish, finish))
        events = [sse(last | self._perplexity(answer, sources, body))]
        if usage:
            events.append(sse(self._chunk(model, {}) | {"choices": [], "usage": self._usage(usage)}))
        return [*events, b"data: [DONE]\n\n"]

    def searching(self, body: dict) -> bool:
        """Asked for search as OpenAI (``web_search_options``) or OpenRouter (the ``web`` plugin) asks."""
        return "web_search_options" in body or any(p.get("id") == "web" for p in body.get("plugins") or ())

    def _annotations(self, answer: str, sources: tuple[Cite, ...], body: dict) -> list[dict]:
        if not (sources and self.searching(body)):
            return []
        found = []
        for start, end, url, index in linked(answer, sources):  # the link's span, as the search models give it
            cited = {"url": url, "title": sources[index].title, "start_index": start, "end_index": end}
            if body.get("plugins"):  # OpenRouter adds the page's text
                cited["content"] = sources[index].quote
            found.append({"type": "url_citation", "url_citation": cited})
        return found

    def _perplexity(self, answer: str, sources: tuple[Cite, ...], body: dict) -> dict:
        """Perplexity's fields: it searches unless told not to; every page found is a search result and
        is in ``citations`` (deprecated), numbered as the answer's "[n]" markers count them."""
        if not sources or self.searching(body) or body.get("disable_search"):
            return {}
        results = [{"title": c.title, "url": c.url, "date": None, "snippet": c.quote, "source": "web"} for c in sources]
        return {"citations": [c.url for c in sources], "search_results": results}

    def error_event(self, status: int, message: str) -> bytes:
        return sse({"error": {"message": message, "type": "server_error", "code": status}})

    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, sources: tuple[Cite, ...], finish: str, body: dict
    ) -> dict:
        message: dict = {"role": "assistant", "content": text}
        if annotations := self._annotations(text, sources, body):
            message["annotations"] = annotations
        reply = {"id": "chatcmpl-fake", "object": "chat.completion", "created": CREATED, "model": model}
        reply["choices"] = [{"index": 0, "message": message, "finish_reason": self.FINISH.get(finish, finish)}]
        if usage:
            reply["usage"] = self._usage(usage)
        return reply | self._perplexity(text, sources, body)

    def error_body(self, status: int, message: str) -> dict:
        return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}

    def _chunk(self, model: str, delta: dict, finish: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        chunk = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": CREATED, "model": model}
        return chunk | {"choices": [choice]}

    def _usage(self, usage: tuple[int, int]) -> dict:
        return {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}


class Anthropic:
    name = "anthropic"
    ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
    ERROR_TYPES |= {404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}
    FINISH = {"stop": "end_turn", "length": "max_tokens"}
    PAUSED = "pause_turn"  # the server paused its own loop of searches: the client sends the turn back to go on

    def parse(self, body: dict) -> Parsed:
        messages = [(m["role"], _text(m.get("content"))) for m in body.get("messages") or []]
        return Parsed(body.get("model", ""), _text(body.get("system", "")), messages, bool(body.get("stream")))

    def files(self, body: dict) -> list[dict]:
        """The user messages' ``image`` and ``document`` blocks."""
        return [
            part for m in body.get("messages") or [] if m.get("role") == "user" for part in _files(m.get("content"))
        ]

    def tool(self, body: dict) -> dict | None:
        """The tool the request forces the model to call (how a structure is asked for), if any."""
        choice = body.get("tool_choice") or {}
        if choice.get("type") != "tool":
            return None
        return next((t for t in body.get("tools") or () if t.get("name") == choice.get("name")), None)

    def schema(self, body: dict) -> dict | None:
        return (self.tool(body) or {}).get("input_schema")

    def head(
        self, model: str, usage: tuple[int, int] | None, body: dict, sources: tuple[Cite, ...] = (), answer: str = ""
    ) -> list[bytes]:
        message = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []}
        message |= {"stop_reason": None, "stop_sequence": None}
        if usage:
            message["usage"] = {"input_tokens": usage[0], "output_tokens": 1}
        events = [sse({"type": "message_start", "message": message}, "message_start")]
        tool = self.tool(body)
        if tool:
            opened = {"type": "tool_use", "id": "toolu_fake", "name": tool["name"], "input": {}}
            block = {"type": "content_block_start", "index": 0, "content_block": opened}
            return [*events, sse(block, "content_block_start"), sse({"type": "ping"}, "ping")]
        opening = self._opening(body, sources)
        events += [event for index, block in enumerate(opening) for event in self._streamed(index, block)]
        return [*events, *self._text_block(len(opening), 0, answer, sources), sse({"type": "ping"}, "ping")]

    def piece(self, model: str, text: str, body: dict, at: int = 0, answer: str = "", sources: tuple = ()) -> bytes:
        if self.tool(body):
            delta = {"type": "input_json_delta", "partial_json": text}
            return sse({"type": "content_block_delta", "index": 0, "delta": delta}, "content_block_delta")
        index = len(self._opening(body, sources))
        opened = b""
        if cuts := self._cuts(body, answer, sources):  # a new text block wherever a cited span begins or ends
            passed = [b for b in cuts if b <= at]
            index += len(passed)
            if passed and passed[-1] == at:
                stop = sse({"type": "content_block_stop", "index": index - 1}, "content_block_stop")
                opened = stop + b"".join(self._text_block(index, at, answer, sources))
        delta = {"type": "text_delta", "text": text}
        return opened + sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta")

    def searching(self, body: dict) -> bool:
        """The request carries the server-side web search tool."""
        return any(str(t.get("type", "")).startswith("web_search_") for t in body.get("tools") or ())

    def _cuts(self, body: dict, answer: str, sources: tuple[Cite, ...]) -> list[int]:
        """Where the answer's text blocks split: at each cited span, when searching."""
        return bounds(answer, sources) if sources and self.searching(body) and not self.tool(body) else []

    def _opening(self, body: dict, sources: tuple[Cite, ...]) -> list[dict]:
        """The blocks before the answer's text: the search this response ran (its call, then its
        results), where it found pages; a request continuing a paused turn gets the results of the
        search that turn ended with."""
        if self.tool(body) or not self.searching(body):
            return []
        paused = self._paused_search(body)
        use, result = self._search_blocks(body, sources, paused or "srvtoolu_fake")
        if paused:
            return [result]
        return [use, result] if sources else []

    def _paused_search(self, body: dict) -> str:
        """The id of the search a paused turn ended with, when this request sends that turn back to be
        continued (as its last message, the assistant's, content and all)."""
        last = (body.get("messages") or [{}])[-1]
        content = last.get("content") if last.get("role") == "assistant" else None
        ends = content[-1] if isinstance(content, list) and content and isinstance(content[-1], dict) else {}
        return str(ends.get("id") or "") if ends.get("type") == "server_tool_use" else ""

    def _streamed(self, index: int, block: dict) -> list[bytes]:
        """One whole block as the stream sends it: a tool call's input as JSON deltas, anything else whole."""
        start = block | {"input": {}} if block["type"] == "server_tool_use" else block
        events = [sse({"type": "content_block_start", "index": index, "content_block": start}, "content_block_start")]
        if block["type"] == "server_tool_use":
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
            events.append(sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"))
        return [*events, sse({"type": "content_block_stop", "index": index}, "content_block_stop")]

    def _search_blocks(self, body: dict, sources: tuple[Cite, ...], id: str = "srvtoolu_fake") -> tuple[dict, dict]:
        query = _text((body.get("messages") or [{}])[-1].get("content"))[:60]
        use = {"type": "server_tool_use", "id": id, "name": "web_search", "input": {"query": query}}
        results = [
            {
                "type": "web_search_result",
                "url": c.url,
                "title": c.title,
                "encrypted_content": "EqgfCioIARgB…",
                "page_age": None,
            }
            for c in sources
        ]
        return use, {"type": "web_search_tool_result", "tool_use_id": id, "content": results}

    def _citation(self, cite: Cite) -> dict:
        return {
            "type": "web_search_result_location",
            "url": cite.url,
            "title": cite.title,
            "encrypted_index": "Eo8BCioIAhgB…",
            "cited_text": cite.quote,
        }

    def _text_block(self, index: int, at: int, answer: str, sources: tuple[Cite, ...]) -> list[bytes]:
        """A text block opening at ``at``: its citations first, as citations_delta events."""
        starting = [i for start, _, i in located(answer, sources) if start == at] if sources else []
        block: dict = {"type": "text", "text": ""} | ({"citations": []} if starting else {})
        events = [sse({"type": "content_block_start", "index": index, "content_block": block}, "content_block_start")]
        for i in starting:
            delta = {"type": "citations_delta", "citation": self._citation(sources[i])}
            events.append(sse({"type": "content_block_delta", "index": index, "delta": delta}, "content_block_delta"))
        return events

    def json_output(self, body: dict) -> bool:
        return self.tool(body) is not None  # the Messages API has no JSON mode: a forced tool call is its way

    def tail(
        self,
        model: str,
        usage: tuple[int, int] | None,
        sources: tuple[Cite, ...],
        finish: str,
        body: dict,
        answer: str = "",
    ) -> list[bytes]:
        reason = "tool_use" if self.tool(body) and finish == "stop" else self.FINISH.get(finish, finish)
        delta: dict = {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}}
        if usage:
            delta["usage"] = {"output_tokens": usage[1]} | self._server_tools(body, sources)
        last = 0 if self.tool(body) else len(self._opening(body, sources)) + len(self._cuts(body, answer, sources))
        events = [sse({"type": "content_block_stop", "index": last}, "content_block_stop")]
        if self._pauses(body, reason):
            events += self._streamed(last + 1, self._search_blocks(body, sources)[0])
        return [*events, sse(delta, "message_delta"), sse({"type": "message_stop"}, "message_stop")]

    def _pauses(self, body: dict, reason: str) -> bool:
        """A turn scripted to pause ends with the search the server paused before running."""
        return reason == self.PAUSED and self.searching(body) and not self.tool(body)

    def _server_tools(self, body: dict, sources: tuple[Cite, ...]) -> dict:
        ran = any(b["type"] == "web_search_tool_result" for b in self._opening(body, sources))
        return {"server_tool_use": {"web_search_requests": 1, "web_fetch_requests": 0}} if ran else {}

    def error_event(self, status: int, message: str) -> bytes:
        return sse({"type": "error", "error": {"type": self._type(status), "message": message}}, "error")

    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, sources: tuple[Cite, ...], finish: str, body: dict
    ) -> dict:
        reason = self.FINISH.get(finish, finish)
        reply = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model}
        reply |= {"content": self._content(text, sources, body, reason), "stop_reason": reason, "stop_sequence": None}
        if usage:
            reply["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]} | self._server_tools(body, sources)
        return reply

    def _content(self, text: str, sources: tuple[Cite, ...], body: dict, reason: str) -> list[dict]:
        spans = located(text, sources)
        blocks = self._opening(body, sources)
        for start, end in itertools.pairwise([0, *self._cuts(body, text, sources), len(text)]):
            block: dict = {"type": "text", "text": text[start:end]}
            if cited := [self._citation(sources[i]) for s, _, i in spans if s == start and self.searching(body)]:
                block["citations"] = cited
            blocks.append(block)
        return [*blocks, *([self._search_blocks(body, sources)[0]] if self._pauses(body, reason) else [])]

    def error_body(self, status: int, message: str) -> dict:
        return {"type": "error", "error": {"type": self._type(status), "message": message}}

    def _type(self, status: int) -> str:
        return self.ERROR_TYPES.get(status, "api_error")


class Gemini:
    name = "gemini"
    PATH = re.compile(r"/models/(?P<model>[^/:]+):(?P<method>streamGenerateContent|generateContent)$")
    FINISH = {"stop": "STOP", "length": "MAX_TOKENS"}

    def parse(self, body: dict, model: str = "", method: str = "") -> Parsed:
        parts = lambda node: "".join(p.get("text", "") for p in (node or {}).get("parts") or ())  # noqa: E731
        messages = [("assistant" if c.get("role") == "model" else "user", parts(c)) for c in body.get("contents") or []]
        return Parsed(model, parts(body.get("systemInstruction")), messages, method == "streamGenerateContent")

    def files(self, body: dict) -> list[dict]:
        """The user turns' parts that are no text (``inline_data``)."""
        return [
            part
            for content in body.get("contents") or []
            if content.get("role") != "model"
            for part in content.get("parts") or ()
            if "text" not in part
        ]

    def head(
        self, model: str, usage: tuple[int, int] | None, body: dict, sources: tuple[Cite, ...] = (), answer: str = ""
    ) -> list[bytes]:
        return []

    def piece(self, model: str, text: str, body: dict, at: int = 0, answer: str = "", sources: tuple = ()) -> bytes:
        return sse({"candidates": [self._candidate(text)], "modelVersion": model})

    def searching(self, body: dict) -> bool:
        """The request carries the Google Search grounding tool (either spelling the API takes)."""
        return any("google_search" in t or "googleSearch" in t for t in body.get("tools") or ())

    def _grounding(self, answer: str, sources: tuple[Cite, ...], body: dict) -> dict:
        """groundingMetadata: every source a chunk, each supported span a support (byte offsets)."""
        if not (sources and self.searching(body)):
            return {}
        supports = []
        for start, end, index in located(answer, sources):
            first = len(answer[:start].encode())  # UTF-8 bytes, as the API counts them
            segment = {"startIndex": first} if first else {}  # protobuf JSON leaves a 0 out
            segment |= {"endIndex": len(answer[:end].encode()), "text": answer[start:end]}
            supports.append({"segment": segment, "groundingChunkIndices": [index], "confidenceScores": [0.9]})
        query = _text((body.get("contents") or [{}])[-1].get("parts"))[:60]
        return {
            "groundingMetadata": {
                "webSearchQueries": [query],
                "searchEntryPoint": {"renderedContent": "<div>…</div>"},
                "groundingChunks": [{"web": {"uri": c.url, "title": c.title}} for c in sources],
                "groundingSupports": supports,
            }
        }

    def json_output(self, body: dict) -> bool:
        return (body.get("generationConfig") or {}).get("responseMimeType") == "application/json"

    def schema(self, body: dict) -> dict | None:
        return (body.get("generationConfig") or {}).get("responseSchema")

    def tail(
        self,
        model: str,
        usage: tuple[int, int] | None,
        sources: tuple[Cite, ...],
        finish: str,
        body: dict,
        answer: str = "",
    ) -> list[bytes]:
        candidate = self._candidate("", self.FINISH.get(finish, finish)) | self._grounding(answer, sources, body)
        last: dict = {"candidates": [candidate], "modelVersion": model}
        if usage:
            last["usageMetadata"] = self._usage(usage)
        return [sse(last)]

    def blocked(self) -> bytes:
        return sse({"promptFeedback": {"blockReason": "SAFETY"}})

    def error_event(self, status: int, message: str) -> bytes:
        return sse(self.error_body(status, message))

    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, sources: tuple[Cite, ...], finish: str, body: dict
    ) -> dict:
        candidate = self._candidate(text, self.FINISH.get(finish, finish)) | self._grounding(text, sources, body)
        reply: dict = {"candidates": [candidate], "modelVersion": model}
        if usage:
            reply["usageMetadata"] = self._usage(usage)
        return reply

    def error_body(self, status: int, message: str) -> dict:
        kinds = {400: "INVALID_ARGUMENT", 403: "PERMISSION_DENIED", 429: "RESOURCE_EXHAUSTED"}
        return {"error": {"code": status, "message": message, "status": kinds.get(status, "UNAVAILABLE")}}

    def _candidate(self, text: str, finish: str | None = None) -> dict:
        candidate: dict = {"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return candidate

    def _usage(self, usage: tuple[int, int]) -> dict:
        return {"promptTokenCount": usage[0], "candidatesTokenCount": usage[1], "totalTokenCount": sum(usage)}


OPENAI, ANTHROPIC, GEMINI = OpenAI(), Anthropic(), Gemini()
