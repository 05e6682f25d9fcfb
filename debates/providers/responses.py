"""OpenAI's Responses API (``POST …/responses``): the wire of OpenAI's models that Chat Completions
does not serve (the -pro, Codex and deep-research models: ``catalog.RESPONSES_ONLY``), and of any
server that speaks it. The system prompt travels as ``instructions``; the answer arrives as typed
events, each naming the output item (and the content part) it belongs to."""

import base64
import json
import re
from collections.abc import AsyncGenerator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from debates.providers import links
from debates.providers.base import (
    STOP,
    THINKING_ALLOWANCE,
    TRUNCATED,
    Chunk,
    Cited,
    Endpoint,
    Fault,
    Message,
    Part,
    ProviderError,
    Source,
    Usage,
    Voice,
    split_system,
)
from debates.providers.client import decode_json, ended_early, post_sse
from debates.providers.faults import status_error

# OpenAI's reasoning models (o-series, GPT-5, Codex) refuse a temperature and think inside max_output_tokens.
REASONING_MODEL = re.compile(r"^(?:openai/)?(?:o\d|gpt-5|codex-)")
MIN_OUTPUT_TOKENS = 16  # the API refuses a smaller max_output_tokens (a ping asks for one token)
FINISH = {"max_output_tokens": TRUNCATED}
# A failure's ``error.code`` as the HTTP status it stands for; any other code names something wrong
# with the request itself (an image it cannot read, a prompt it refuses): 400, not retried.
ERROR_STATUS = {
    "invalid_api_key": 401,
    "rate_limit_exceeded": 429,
    "insufficient_quota": 429,
    "server_error": 500,
    "vector_store_timeout": 500,
    "server_is_overloaded": 503,
    "slow_down": 503,
}
LOOKED_UP = "web_search_call.action.sources"  # asks each search to list the pages it found
# The endpoints that refused to summarise a reasoning model's thinking (OpenAI gives summaries only
# to a verified organisation, a 400 otherwise): asked without, in this process, from then on.
UNSUMMARISED: set[tuple[str, str]] = set()


def part(given: Part) -> dict[str, Any]:
    """An image as an ``input_image`` data URI; a PDF as an ``input_file`` with its name."""
    uri = f"data:{given.media_type};base64,{base64.b64encode(given.data).decode()}"
    if given.kind == "image":
        return {"type": "input_image", "image_url": uri, "detail": "auto"}
    return {"type": "input_file", "filename": given.name, "file_data": uri}


def content(message: Message) -> str | list[dict[str, Any]]:
    """Plain text, or the files' parts then the text."""
    if not message.parts:
        return message.content
    return [*(part(p) for p in message.parts), {"type": "input_text", "text": message.content}]


def text_format(voice: Voice) -> dict[str, Any] | None:
    """The reply's shape: a strict JSON Schema where the voice carries a structure, else a JSON
    object where it asks for JSON (the API wants "JSON" in the input: our prompts say it)."""
    if voice.structure is not None:
        schema = json.loads(voice.structure.schema)
        return {"type": "json_schema", "name": voice.structure.name, "schema": schema, "strict": True}
    return {"type": "json_object"} if voice.json_output else None


def request(voice: Voice, messages: list[Message]) -> dict[str, Any]:
    """The request as JSON. Nothing is stored at OpenAI (``store``: every call carries its whole
    conversation); a voice that may search gets the ``web_search`` tool, its pages listed; a reasoning
    model is asked for the summary of its reasoning, where its endpoint has not refused to give one."""
    system, conversation = split_system(messages)
    reasoning = bool(REASONING_MODEL.match(voice.model))
    budget = voice.max_tokens + (THINKING_ALLOWANCE if reasoning else 0)
    body: dict[str, Any] = {
        "model": voice.model,
        "input": [{"role": m.role, "content": content(m)} for m in conversation],
        "max_output_tokens": max(budget, MIN_OUTPUT_TOKENS),
        "stream": True,
        "store": False,
    }
    if system:
        body["instructions"] = system
    if not reasoning:
        body["temperature"] = voice.temperature
    elif summarised(voice.endpoint):
        body["reasoning"] = {"summary": "auto"}
    if voice.search:
        body["tools"] = [{"type": "web_search"}]
        body["include"] = [LOOKED_UP]
    if (found := text_format(voice)) is not None:
        body["text"] = {"format": found}
    return body


def endpoint_key(endpoint: Endpoint) -> tuple[str, str]:
    return (endpoint.base_url, endpoint.name)


def summarised(endpoint: Endpoint) -> bool:
    return endpoint_key(endpoint) not in UNSUMMARISED


def refuses_summaries(error: ProviderError) -> bool:
    """OpenAI's 400 to an organisation it has not verified: "… must be verified to generate reasoning summaries"."""
    return error.status == 400 and "reasoning summar" in error.message.casefold()


def url_citation(annotation: Any, start: int | None) -> Source | None:
    """A ``url_citation`` of a text part that begins at ``start`` in the answer (its indices count
    the part's characters; None: where the part begins is unknown, so is its span)."""
    if not (isinstance(annotation, dict) and annotation.get("type") == "url_citation" and annotation.get("url")):
        return None
    source = Source(url=str(annotation["url"]), title=str(annotation.get("title") or ""))
    first, last = annotation.get("start_index"), annotation.get("end_index")
    if start is None or not (isinstance(first, int) and isinstance(last, int) and 0 <= first <= last):
        return source
    return replace(source, start=start + first, end=start + last)


def placed(source: Source, text: str) -> Source:
    """A citation on the claim it supports, once the answer is whole: its span covers the Markdown
    link the model wrote after that claim (``links.supported``)."""
    if source.start is None and source.end is None:
        return source
    start, end = links.supported(text, source.url, source.start, source.end)
    return replace(source, start=start, end=end)


def looked_up(call: dict[str, Any]) -> list[Source]:
    """The pages a ``web_search_call`` found (listed where ``include`` asks), none of them cited by it."""
    action = call.get("action")
    found = action.get("sources") if isinstance(action, dict) else None
    return [Source(url=str(s["url"]), cited=False) for s in found or () if isinstance(s, dict) and s.get("url")]


def billed(call: dict[str, Any]) -> int:
    """One search billed for a ``web_search_call``, unless it only opened a page or looked inside one."""
    action = call.get("action")
    return int(not isinstance(action, dict) or action.get("type", "search") == "search")


@dataclass
class Reading:
    """What a stream has said so far: where each text part begins in the answer, and how it ended."""

    name: str
    written: int = 0  # characters of answer so far
    said: list[str] = field(default_factory=list)  # the answer's text so far
    held: list[Source] = field(default_factory=list)  # citations, placed once the answer is whole
    starts: dict[tuple[int, int], int] = field(default_factory=dict)  # (output, content) index -> start
    annotated: set[tuple[int, int]] = field(default_factory=set)  # parts whose citations came as events
    searches: int = 0
    usage: dict[str, Any] = field(default_factory=dict)
    finish: str = ""  # set once the response ends
    thought: list[str] = field(default_factory=list)  # the reasoning items' summaries, where a server gives them

    def read(self, kind: str, data: dict[str, Any]) -> list[Chunk | Cited]:
        """The answer's text and sources an event carries (most carry none); a failure raises."""
        at = (data.get("output_index", 0), data.get("content_index", 0))
        match kind:
            case "response.content_part.added":
                self.starts[at] = self.written
            case "response.output_text.delta":
                return self.delta(at, str(data.get("delta") or ""))
            case "response.output_text.annotation.added":
                self.annotated.add(at)
                self.hold([url_citation(data.get("annotation"), self.starts.get(at))])
            case "response.output_item.done":
                return self.item_done(data.get("output_index", 0), data.get("item") or {})
            case "response.completed" | "response.incomplete":
                self.end(data.get("response") or {})
                text = "".join(self.said)
                return cited([placed(source, text) for source in self.held])
            case "response.failed":
                raise self.failure((data.get("response") or {}).get("error"))
            case "error":  # the error's fields, or (as some servers send it) an ``error`` object
                raise self.failure(data.get("error") if isinstance(data.get("error"), dict) else data)
        return []

    def delta(self, at: tuple[int, int], text: str) -> list[Chunk | Cited]:
        self.starts.setdefault(at, self.written)
        self.written += len(text)
        self.said.append(text)
        return [Chunk(text)] if text else []

    def hold(self, sources: Sequence[Source | None]) -> None:
        self.held += [s for s in sources if s is not None]

    def item_done(self, index: int, item: dict[str, Any]) -> list[Chunk | Cited]:
        """A finished item's sources: a search's pages at once; the citations of a message's text
        parts that no ``annotation.added`` event brought, held for the answer's end."""
        if item.get("type") == "web_search_call":
            self.searches += billed(item)
            return cited(looked_up(item))
        if item.get("type") == "reasoning":  # its summary, where the server gives one, is no part of the answer
            self.thought += [str(s["text"]) for s in item.get("summary") or () if isinstance(s, dict) and s.get("text")]
            return []
        if item.get("type") != "message":
            return []
        for number, given in enumerate(item.get("content") or ()):
            if isinstance(given, dict) and given.get("type") == "output_text" and (index, number) not in self.annotated:
                self.hold([url_citation(a, self.starts.get((index, number))) for a in given.get("annotations") or ()])
        return []

    def end(self, response: dict[str, Any]) -> None:
        if response.get("status", "completed") == "completed":
            self.finish = STOP
        else:  # incomplete: cut off at max_output_tokens (as other wires' "length"), or filtered
            reason = str((response.get("incomplete_details") or {}).get("reason") or "incomplete")
            self.finish = FINISH.get(reason, reason)
        self.usage = response.get("usage") or {}

    def failure(self, error: Any) -> ProviderError:
        error = error if isinstance(error, dict) else {}
        code = error.get("code")
        status = ERROR_STATUS.get(code, 400) if isinstance(code, str) else 500
        return status_error(self.name, status, json.dumps({"error": error}))


def cited(sources: Sequence[Source | None]) -> list[Chunk | Cited]:
    found = tuple(s for s in sources if s is not None)
    return [Cited(found)] if found else []


async def attempt(
    voice: Voice, messages: list[Message], deadline: float
) -> AsyncGenerator[Chunk | Cited | Usage, None]:
    """One streamed call: text chunks and the sources cited as they come, then the Usage of the
    response it ends with (``output_tokens`` counts the reasoning tokens, billed as output)."""
    endpoint = voice.endpoint
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    url = f"{endpoint.base_url.rstrip('/')}/responses"
    reading = Reading(endpoint.name)
    body = request(voice, messages)
    while True:
        try:
            async for event in post_sse(endpoint, url, headers, body, deadline):
                data = decode_json(endpoint, event)
                for item in reading.read(str(data.get("type") or event.event), data):
                    yield item
                if reading.finish:
                    break
            break
        except ProviderError as refused:
            if "reasoning" not in body or reading.written or not refuses_summaries(refused):
                raise
            UNSUMMARISED.add(endpoint_key(endpoint))  # refused before a word: asked again at once, without
            body = request(voice, messages)
    if not reading.finish:
        raise ended_early(endpoint)
    if reading.finish == "content_filter" and not reading.written:
        raise ProviderError(Fault.BLOCKED, f"{endpoint.name} withheld the answer (content_filter)")
    usage = reading.usage
    thought = "\n\n".join(reading.thought)
    yield Usage(
        usage.get("input_tokens"), usage.get("output_tokens"), reading.finish, reading.searches, thought=thought
    )
