"""Anthropic Messages: the system prompt travels apart, the answer arrives as typed events."""

import base64
import json
from collections.abc import AsyncGenerator
from typing import Any

from debates.providers.base import STOP, TRUNCATED, Chunk, Message, Part, Usage, Voice, split_system
from debates.providers.client import decode_json, ended_early, post_sse
from debates.providers.faults import status_error

VERSION = "2023-06-01"
FINISH = {
    "end_turn": STOP,
    "stop_sequence": STOP,
    "tool_use": STOP,  # the reply was the structure asked for, as a forced tool call
    "max_tokens": TRUNCATED,
    "model_context_window_exceeded": TRUNCATED,
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


def block(given: Part) -> dict[str, Any]:
    """An ``image`` block, or a PDF as a ``document`` block titled with its name, each base64."""
    source = {"type": "base64", "media_type": given.media_type, "data": base64.b64encode(given.data).decode()}
    if given.kind == "image":
        return {"type": "image", "source": source}
    return {"type": "document", "source": source, "title": given.name}


def content(message: Message) -> str | list[dict[str, Any]]:
    """Plain text, or the files' blocks then the text (Anthropic advises files before the question)."""
    if not message.parts:
        return message.content
    return [*(block(p) for p in message.parts), {"type": "text", "text": message.content}]


async def attempt(voice: Voice, messages: list[Message], deadline: float) -> AsyncGenerator[Chunk | Usage, None]:
    """One streamed call: text chunks, then the Usage from message_start and message_delta.

    ``voice.json_output`` changes nothing here: the Messages API has no JSON mode (only tools or
    a prefilled "{", and a prefill breaks with thinking models), so the prompt alone asks. A
    ``voice.structure`` becomes the one tool the model must call: its input, streamed as JSON
    deltas, is the reply's text.
    """
    endpoint = voice.endpoint
    system, conversation = split_system(messages)
    headers = {"x-api-key": endpoint.api_key, "anthropic-version": VERSION}
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
    url = f"{endpoint.base_url.rstrip('/')}/v1/messages"
    tokens_in = tokens_out = None
    finish, done = "", False
    async for event in post_sse(endpoint, url, headers, body, deadline):
        data = decode_json(endpoint, event)
        kind = data.get("type", event.event)
        if kind == "content_block_delta":
            delta = data.get("delta") or {}
            if delta.get("type") == "text_delta" and delta.get("text"):
                yield Chunk(delta["text"])
            elif delta.get("type") == "input_json_delta" and delta.get("partial_json"):
                yield Chunk(delta["partial_json"])
        elif kind == "message_start":
            usage = (data.get("message") or {}).get("usage") or {}
            tokens_in = usage.get("input_tokens", tokens_in)
            tokens_out = usage.get("output_tokens", tokens_out)
        elif kind == "message_delta":
            tokens_out = (data.get("usage") or {}).get("output_tokens", tokens_out)
            finish = (data.get("delta") or {}).get("stop_reason") or finish
        elif kind == "message_stop":
            done = True
            break
        elif kind == "error":
            error: dict[str, Any] = data.get("error") or {}
            raise status_error(endpoint.name, ERROR_STATUS.get(error.get("type", ""), 500), event.data)
    if not (done or finish):
        raise ended_early(endpoint)
    yield Usage(tokens_in, tokens_out, FINISH.get(finish, finish))
