"""OpenAI chat completions, and every server that speaks it (DeepSeek, Mistral, xAI, Perplexity,
OpenRouter, Ollama, vLLM, LM Studio, llama.cpp server)."""

import base64
import json
import re
from collections.abc import AsyncGenerator
from typing import Any

from debates.providers.base import STOP, THINKING_ALLOWANCE, TRUNCATED, Chunk, Message, Part, Usage, Voice
from debates.providers.client import decode_json, ended_early, post_sse
from debates.providers.faults import status_error, status_of

# OpenAI's reasoning models refuse max_tokens and any temperature but the default.
REASONING_MODEL = re.compile(r"^(?:openai/)?(?:o\d|gpt-5)")
# Compatible servers name the same ends differently (Mistral "model_length", TGI "eos_token").
FINISH = {"length": TRUNCATED, "max_tokens": TRUNCATED, "model_length": TRUNCATED, "eos": STOP, "eos_token": STOP}
# Servers that refuse {"type": "json_object"} (Perplexity takes only a JSON schema): the prompt asks instead.
NO_JSON_MODE = ("api.perplexity.ai",)
# Servers that take a JSON object but no JSON schema (DeepSeek): the prompt carries the shape instead.
NO_JSON_SCHEMA = ("api.deepseek.com",)


def sampling(voice: Voice) -> dict[str, int | float]:
    if REASONING_MODEL.match(voice.model):
        return {"max_completion_tokens": voice.max_tokens + THINKING_ALLOWANCE}
    return {"temperature": voice.temperature, "max_tokens": voice.max_tokens}


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


async def attempt(voice: Voice, messages: list[Message], deadline: float) -> AsyncGenerator[Chunk | Usage, None]:
    """One streamed call: text chunks, then the Usage the server reported."""
    endpoint = voice.endpoint
    headers = {"Authorization": f"Bearer {endpoint.api_key}"} if endpoint.api_key else {}
    body: dict[str, Any] = {  # the request as JSON
        "model": voice.model,
        "messages": [{"role": m.role, "content": content(m)} for m in messages],
        **sampling(voice),
        "stream": True,
        "stream_options": {"include_usage": True},
    }
    if (found := response_format(voice)) is not None:
        body["response_format"] = found
    url = f"{endpoint.base_url.rstrip('/')}/chat/completions"
    finish, usage, done = "", None, False
    citations: dict[str, None] = {}  # ordered and unique
    async for event in post_sse(endpoint, url, headers, body, deadline):
        if event.data.strip() == "[DONE]":
            done = True
            break
        data = decode_json(endpoint, event)
        if "error" in data:
            error = data["error"] if isinstance(data["error"], dict) else {}
            raise status_error(endpoint.name, status_of(error.get("code")), event.data)
        # Perplexity sends its sources beside the answer: plain URLs and richer search results.
        citations.update(dict.fromkeys(str(url) for url in data.get("citations") or ()))
        citations.update(dict.fromkeys(r["url"] for r in data.get("search_results") or () if r.get("url")))
        usage = data.get("usage") or usage
        for choice in data.get("choices") or ():
            text = (choice.get("delta") or {}).get("content")
            if text:
                yield Chunk(text)
            finish = choice.get("finish_reason") or finish
    if not (done or finish):
        raise ended_early(endpoint)
    usage = usage or {}
    yield Usage(
        tokens_in=usage.get("prompt_tokens"),
        tokens_out=usage.get("completion_tokens"),
        finish_reason=FINISH.get(finish, finish.lower()),
        citations=tuple(citations),
    )
