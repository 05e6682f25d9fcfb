"""OpenAI chat completions, and every server that speaks it (DeepSeek, Mistral, xAI, Perplexity,
OpenRouter, Ollama, vLLM, LM Studio, llama.cpp server)."""

import base64
import json
import re
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field, replace
from typing import Any

from debates.providers import links
from debates.providers.base import (
    STOP,
    THINKING_ALLOWANCE,
    TRUNCATED,
    Chunk,
    Cited,
    Message,
    Part,
    SearchTool,
    Source,
    Usage,
    Voice,
)
from debates.providers.catalog import always_searches
from debates.providers.client import decode_json, ended_early, post_sse
from debates.providers.faults import status_error, status_of

# OpenAI's reasoning models refuse max_tokens and any temperature but the default.
REASONING_MODEL = re.compile(r"^(?:openai/)?(?:o\d|gpt-5)")
# OpenRouter's web plugin fetches this many results a search (it bills each one).
WEB_RESULTS = 5
# A Perplexity footnote in the text: "[2]" points to its second page (never an index, "a[2]", nor a link).
MARKER = re.compile(r"(?<!\w)\[(\d{1,3})\](?!\()")
# Compatible servers name the same ends differently (Mistral "model_length", TGI "eos_token").
FINISH = {"length": TRUNCATED, "max_tokens": TRUNCATED, "model_length": TRUNCATED, "eos": STOP, "eos_token": STOP}
# Servers that refuse {"type": "json_object"} (Perplexity takes only a JSON schema): the prompt asks instead.
NO_JSON_MODE = ("api.perplexity.ai",)
# Servers that take a JSON object but no JSON schema (DeepSeek): the prompt carries the shape instead.
NO_JSON_SCHEMA = ("api.deepseek.com",)


def sampling(voice: Voice) -> dict[str, int | float]:
    if REASONING_MODEL.match(voice.model):
        return {"max_completion_tokens": voice.max_tokens + THINKING_ALLOWANCE}
    if always_searches(voice.model):  # its search models refuse any temperature too
        return {"max_tokens": voice.max_tokens}
    return {"temperature": voice.temperature, "max_tokens": voice.max_tokens}


def search_fields(voice: Voice) -> dict[str, Any]:
    """The request's web search, as this server asks for it: OpenAI's ``web_search_options`` (its
    search models), OpenRouter's ``web`` plugin; Perplexity searches unless told not to."""
    match voice.endpoint.search:
        case SearchTool.PERPLEXITY if not voice.search:
            return {"disable_search": True}
        case SearchTool.OPENAI if voice.search:
            return {"web_search_options": {}}
        case SearchTool.OPENROUTER if voice.search:
            return {"plugins": [{"id": "web", "max_results": WEB_RESULTS}]}
    return {}


def url_citations(annotations: Any, text: str) -> list[Source]:
    """OpenAI's ``url_citation`` annotations (a message's, or a streamed delta's: the same shape;
    OpenRouter adds the page's ``content``), each supporting the claim it cites (``links.supported``)."""
    found = []
    for annotation in annotations if isinstance(annotations, list) else ():
        if not (isinstance(annotation, dict) and annotation.get("type") == "url_citation"):
            continue
        cited = annotation.get("url_citation")
        if isinstance(cited, dict) and cited.get("url"):
            url = str(cited["url"])
            start, end = links.supported(text, url, _index(cited.get("start_index")), _index(cited.get("end_index")))
            found.append(
                Source(
                    url=url,
                    title=str(cited.get("title") or ""),
                    quote=str(cited.get("content") or ""),
                    start=start,
                    end=end,
                )
            )
    return found


def perplexity_sources(citations: list[str], results: list[dict[str, Any]], text: str) -> list[Source]:
    """Perplexity's sources: its pages numbered as the text's "[1]" markers count them (its
    ``citations``, deprecated, else its ``search_results`` in order), with their titles and snippets.
    A page a marker names is cited, for the sentence the marker closes; every other page it found was
    looked up only (``citations`` lists them all)."""
    described = {str(r["url"]): r for r in results}
    numbered = citations or list(described)
    markers: dict[int, list[int]] = {}
    for found in MARKER.finditer(text):
        markers.setdefault(int(found[1]), []).append(found.start())
    sources = []
    for number, url in enumerate(numbered, 1):
        source = _result(described.get(url) or {"url": url})
        claims = [links.claimed(text, at) for at in markers.get(number, ())]
        sources += [replace(source, number=number, start=c[0], end=c[1]) if c else source for c in claims]
        sources += [] if claims else [replace(source, cited=False)]
    return sources + [replace(_result(r), cited=False) for url, r in described.items() if url not in numbered]


def _result(result: dict[str, Any]) -> Source:
    """A search result: its page, title and snippet."""
    return Source(url=str(result["url"]), title=str(result.get("title") or ""), quote=str(result.get("snippet") or ""))


def _index(value: Any) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None


def response_format(voice: Voice) -> dict[str, Any] | None:
    """A JSON Schema where the server takes one (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server,
    Perplexity), else a JSON object where it takes that (OpenAI wants "JSON" in the prompt: ours say it)."""
    url = voice.endpoint.base_url
    if voice.structure is not None and not any(host in url for host in NO_JSON_SCHEMA):
        schema = json.loads(voice.structure.schema)
        return {"type": "json_schema", "json_schema": {"name": voice.structure.name, "strict": True, "schema": schema}}
    if (voice.json_output or voice.structure is not None) and not any(host in url for host in NO_JSON_MODE):
        return {"type": "json_object"}
    return None


def part(given: Part) -> dict[str, Any]:
    """An image as an ``image_url`` data URI (OpenAI, Ollama, vLLM, LM Studio, llama.cpp server); a PDF
    as a ``file`` part with its name (OpenAI's models that read PDFs)."""
    uri = f"data:{given.media_type};base64,{base64.b64encode(given.data).decode()}"
    if given.kind == "image":
        return {"type": "image_url", "image_url": {"url": uri}}
    return {"type": "file", "file": {"filename": given.name, "file_data": uri}}


def content(message: Message) -> str | list[dict[str, Any]]:
    """Plain text, or the files' parts then the text."""
    if not message.parts:
        return message.content
    return [*(part(p) for p in message.parts), {"type": "text", "text": message.content}]


def request(voice: Voice, messages: list[Message]) -> dict[str, Any]:
    """The request's body: the sampling this model takes, its search, its JSON shape, usage streamed."""
    body: dict[str, Any] = {
        "model": voice.model,
        "messages": [{"role": m.role, "content": content(m)} for m in messages],
        **sampling(voice),
        **search_fields(voice),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if (found := response_format(voice)) is not None:
        body["response_format"] = found
    return body


async def attempt(
    voice: Voice, messages: list[Message], deadline: float
) -> AsyncGenerator[Chunk | Cited | Usage, None]:
    """One streamed call: text chunks and the sources cited as they come, then the Usage the server reported."""
    endpoint = voice.endpoint
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    url = f"{endpoint.base_url.rstrip('/')}/chat/completions"
    reader = Reader()
    async for event in post_sse(endpoint, url, headers, request(voice, messages), deadline):
        if event.data.strip() == "[DONE]":
            reader.done = True
            break
        data = decode_json(endpoint, event)
        if "error" in data:
            error = data["error"] if isinstance(data["error"], dict) else {}
            raise status_error(endpoint.name, status_of(error.get("code")), event.data)
        for chunk in reader.read(data):
            yield chunk
    if not (reader.done or reader.finish):
        raise ended_early(endpoint)
    if found := reader.sources():
        yield Cited(tuple(found))
    usage = reader.usage or {}
    yield Usage(
        tokens_in=usage.get("prompt_tokens"),
        tokens_out=usage.get("completion_tokens"),
        finish_reason=FINISH.get(reader.finish, reader.finish.lower()),
        searches=searches(voice),
    )


@dataclass
class Reader:
    """One streamed answer read chunk by chunk: its text, and what its sources are read from once
    the text is whole (annotations may come last)."""

    text: list[str] = field(default_factory=list)
    annotations: list[Any] = field(default_factory=list)
    citations: dict[str, None] = field(default_factory=dict)  # Perplexity's, ordered and unique
    results: dict[str, dict[str, Any]] = field(default_factory=dict)
    usage: dict[str, Any] | None = None
    finish: str = ""
    done: bool = False  # [DONE] came

    def read(self, data: dict[str, Any]) -> list[Chunk]:
        """One chunk's new text; its annotations, Perplexity's sources, its usage and finish kept."""
        # Perplexity sends its sources beside the answer: plain URLs and richer search results.
        self.citations.update(dict.fromkeys(str(url) for url in data.get("citations") or ()))
        found = data.get("search_results") or ()
        self.results |= {str(r["url"]): r for r in found if isinstance(r, dict) and r.get("url")}
        self.usage = data.get("usage") or self.usage
        said = []
        for choice in data.get("choices") or ():
            delta = choice.get("delta") or {}
            if delta.get("content"):
                self.text.append(delta["content"])
                said.append(Chunk(delta["content"]))
            if isinstance(delta.get("annotations"), list):
                self.annotations += delta["annotations"]
            self.finish = choice.get("finish_reason") or self.finish
        return said

    def sources(self) -> list[Source]:
        """The answer's URL citations, else Perplexity's (OpenRouter gives a Perplexity model's as annotations)."""
        text = "".join(self.text)
        if linked := url_citations(self.annotations, text):
            return linked
        if self.citations or self.results:
            return perplexity_sources(list(self.citations), list(self.results.values()), text)
        return []


def searches(voice: Voice) -> int:
    """The searches a call is billed for, one a request: every call of an OpenAI search model (it
    searches whether asked to or not, and is billed per call), a call with OpenRouter's web plugin, a
    Perplexity call that may search (its request fee is for the search: ``disable_search`` has none)."""
    if always_searches(voice.model):
        return 1
    return int(voice.search and voice.endpoint.search in (SearchTool.OPENROUTER, SearchTool.PERPLEXITY))
