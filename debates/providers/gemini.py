"""Google Gemini generateContent, streamed as SSE. The key goes in a header, never in the URL
(URLs end up in logs)."""

import base64
import json
import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from typing import Any

from debates.providers.base import (
    STOP,
    THINKING_ALLOWANCE,
    TRUNCATED,
    Chunk,
    Cited,
    Fault,
    Message,
    ProviderError,
    Source,
    Usage,
    Voice,
    split_system,
)
from debates.providers.client import decode_json, ended_early, post_sse
from debates.providers.faults import status_error, status_of

FINISH = {"STOP": STOP, "MAX_TOKENS": TRUNCATED}
BLOCKING = frozenset({"SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"})


# Gemini 2.5 and later think by default, and their thoughts count against maxOutputTokens. We do
# not send a thinkingConfig: it would switch thinking on for models shipped with it off.
THINKING_MODEL = re.compile(r"^(?:models/)?gemini-(?:2\.5|[3-9])")


def output_budget(model: str, max_tokens: int) -> int:
    return max_tokens + THINKING_ALLOWANCE if THINKING_MODEL.match(model) else max_tokens


def response_schema(schema: Any) -> Any:
    """A JSON Schema in the OpenAPI subset Gemini's ``responseSchema`` takes: types in capitals, and
    only the keywords it knows (it has no ``additionalProperties``)."""
    if isinstance(schema, list):
        return [response_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    converted: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "type":
            converted["type"] = str(value).upper()
        elif key == "properties":
            converted["properties"] = {name: response_schema(sub) for name, sub in value.items()}
            converted["propertyOrdering"] = list(value)
        elif key in ("items", "enum", "required", "description", "nullable", "maxItems", "minItems", "format"):
            converted[key] = response_schema(value)
    return converted


def parts(message: Message) -> list[dict[str, Any]]:
    """The files as ``inline_data`` (an image or a PDF, base64), then the text."""
    inline = [
        {"inline_data": {"mime_type": p.media_type, "data": base64.b64encode(p.data).decode()}} for p in message.parts
    ]
    return [*inline, {"text": message.content}]


def grounding_sources(metadata: dict[str, Any], text: str) -> list[Source]:
    """Google Search grounding (a candidate's ``groundingMetadata``, streamed or not): each support's
    chunks with the segment of the answer it supports; a chunk no support points to was looked up
    only. A chunk from a retrieval tool over attached files is a document, with its page."""
    chunks = [c for c in metadata.get("groundingChunks") or () if isinstance(c, dict)]
    found: list[Source] = []
    used: set[int] = set()
    for support in metadata.get("groundingSupports") or ():
        start, end = _segment(support.get("segment") or {}, text)
        for index in support.get("groundingChunkIndices") or ():
            if isinstance(index, int) and 0 <= index < len(chunks) and (source := _chunk(chunks[index])):
                found.append(replace(source, start=start, end=end))
                used.add(index)
    found += [replace(source, cited=False) for i, c in enumerate(chunks) if i not in used and (source := _chunk(c))]
    return found


def _chunk(chunk: dict[str, Any]) -> Source | None:
    if isinstance(web := chunk.get("web"), dict) and web.get("uri"):
        return Source(url=str(web["uri"]), title=str(web.get("title") or ""))
    if isinstance(found := chunk.get("retrievedContext"), dict):
        page = found.get("pageNumber")
        return Source(
            url=str(found.get("uri") or ""),
            document=str(found.get("title") or "") if not found.get("uri") else "",
            title=str(found.get("title") or ""),
            quote=str(found.get("text") or ""),
            page=page if isinstance(page, int) else None,
        )
    return None


def _segment(segment: dict[str, Any], text: str) -> tuple[int | None, int | None]:
    """The characters of the answer a segment covers: its byte offsets, checked against its text
    (found by its text where they disagree)."""
    encoded = text.encode()
    start, end = segment.get("startIndex", 0), segment.get("endIndex")
    said = segment.get("text") or ""
    if isinstance(start, int) and isinstance(end, int) and 0 <= start <= end <= len(encoded):
        first = len(encoded[:start].decode(errors="ignore"))
        last = len(encoded[:end].decode(errors="ignore"))
        if not said or text[first:last] == said:
            return first, last
    if said and (at := text.find(said)) >= 0:
        return at, at + len(said)
    return None, None


def request(voice: Voice, messages: list[Message]) -> dict[str, Any]:
    """The request's body: the system prompt apart, the output budget with room to think, the search
    tool for a voice that may search, else the JSON shape asked."""
    system, conversation = split_system(messages)
    body: dict[str, Any] = {
        "contents": [{"role": "model" if m.role == "assistant" else "user", "parts": parts(m)} for m in conversation],
        "generationConfig": {
            "temperature": voice.temperature,
            "maxOutputTokens": output_budget(voice.model, voice.max_tokens),
        },
    }
    if voice.search:
        body["tools"] = [{"google_search": {}}]
    elif voice.json_output or voice.structure is not None:
        body["generationConfig"]["responseMimeType"] = "application/json"
    if voice.structure is not None:
        body["generationConfig"]["responseSchema"] = response_schema(json.loads(voice.structure.schema))
    if system:
        body["systemInstruction"] = {"parts": [{"text": system}]}
    return body


async def attempt(
    voice: Voice, messages: list[Message], deadline: float
) -> AsyncGenerator[Chunk | Cited | Usage, None]:
    """One streamed call: text chunks, then the sources of its grounding and the Usage from the
    last usageMetadata.

    A voice that may search gets the ``google_search`` tool. Searching, a JSON reply is asked
    by the prompt alone: Gemini 2 refuses a JSON mime type beside a tool, and our reader of
    JSON is lenient."""
    endpoint = voice.endpoint
    model = voice.model.removeprefix("models/")
    url = f"{endpoint.base_url.rstrip('/')}/models/{model}:streamGenerateContent?alt=sse"
    headers = {"x-goog-api-key": endpoint.api_key}
    reader = Reader()
    async for event in post_sse(endpoint, url, headers, request(voice, messages), deadline):
        data = decode_json(endpoint, event)
        if "error" in data:
            error = data["error"] if isinstance(data["error"], dict) else {}
            raise status_error(endpoint.name, status_of(error.get("code")), event.data)
        if blocked := (data.get("promptFeedback") or {}).get("blockReason"):
            raise ProviderError(Fault.BLOCKED, f"{endpoint.name} blocked the prompt ({blocked})")
        for chunk in reader.read(data):
            yield chunk
    if reader.finish in BLOCKING and not reader.text:
        raise ProviderError(Fault.BLOCKED, f"{endpoint.name} withheld the answer ({reader.finish})")
    if not reader.finish:
        raise ended_early(endpoint)
    if found := grounding_sources(reader.grounding, "".join(reader.text)):
        yield Cited(tuple(found))
    yield reader.spent()


@dataclass
class Reader:
    """One streamed answer read chunk by chunk: its text (no thoughts), and the last usage, grounding
    and finish reason it gave (the last grounding covers the whole answer)."""

    text: list[str] = field(default_factory=list)
    usage: dict[str, Any] = field(default_factory=dict)
    grounding: dict[str, Any] = field(default_factory=dict)
    finish: str = ""

    def read(self, data: dict[str, Any]) -> list[Chunk]:
        """One chunk's new text, its usage, grounding and finish kept."""
        self.usage = data.get("usageMetadata") or self.usage
        said = []
        for candidate in data.get("candidates") or ():
            for part in (candidate.get("content") or {}).get("parts") or ():
                if part.get("text") and not part.get("thought"):
                    self.text.append(part["text"])
                    said.append(Chunk(part["text"]))
            self.grounding = candidate.get("groundingMetadata") or self.grounding
            self.finish = candidate.get("finishReason") or self.finish
        return said

    def spent(self) -> Usage:
        """What the answer cost: thinking tokens are billed as output; a search for each query grounded."""
        out = self.usage.get("candidatesTokenCount")
        tokens_out = None if out is None else out + self.usage.get("thoughtsTokenCount", 0)
        queries = self.grounding.get("webSearchQueries")
        searched = len(queries) if isinstance(queries, list) else 0
        return Usage(
            self.usage.get("promptTokenCount"), tokens_out, FINISH.get(self.finish, self.finish.lower()), searched
        )
