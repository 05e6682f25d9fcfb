"""What the fake provider server says, in each of the three real wire formats.

One class per wire: how to read a request (model, system prompt, turns, streaming or not) and
how to write the stream's events, a whole non-streamed answer, and errors in the provider's own
shape, so our client is tested against the formats it meets in production.
"""

import json
import re
from dataclasses import dataclass
from typing import Any


def sse(data: Any, event: str | None = None) -> bytes:
    """One server-sent event; ``data`` is JSON-encoded unless it is already a string."""
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {event}\n" if event else "").encode() + f"data: {payload}\n\n".encode()


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

    def head(self, model: str, usage: tuple[int, int] | None, body: dict) -> list[bytes]:
        return [sse(self._chunk(model, {"role": "assistant", "content": ""}))]

    def piece(self, model: str, text: str, body: dict) -> bytes:
        return sse(self._chunk(model, {"content": text}))

    def tail(
        self, model: str, usage: tuple[int, int] | None, citations: tuple[str, ...], finish: str, body: dict
    ) -> list[bytes]:
        last = self._chunk(model, {}, finish=self.FINISH.get(finish, finish))
        if citations:
            last["citations"] = list(citations)
            last["search_results"] = [{"title": f"Source {i}", "url": u} for i, u in enumerate(citations)]
        events = [sse(last)]
        if usage:
            events.append(sse({"id": "chatcmpl-fake", "choices": [], "usage": self._usage(usage)}))
        return [*events, b"data: [DONE]\n\n"]

    def error_event(self, status: int, message: str) -> bytes:
        return sse({"error": {"message": message, "type": "server_error", "code": status}})

    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, citations: tuple[str, ...], finish: str, body: dict
    ) -> dict:
        message = {"role": "assistant", "content": text}
        body = {"id": "chatcmpl-fake", "object": "chat.completion", "model": model}
        body["choices"] = [{"index": 0, "message": message, "finish_reason": self.FINISH.get(finish, finish)}]
        if usage:
            body["usage"] = self._usage(usage)
        if citations:
            body["citations"] = list(citations)
        return body

    def error_body(self, status: int, message: str) -> dict:
        return {"error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}}

    def _chunk(self, model: str, delta: dict, finish: str | None = None) -> dict:
        choice = {"index": 0, "delta": delta, "finish_reason": finish}
        return {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "model": model, "choices": [choice]}

    def _usage(self, usage: tuple[int, int]) -> dict:
        return {"prompt_tokens": usage[0], "completion_tokens": usage[1], "total_tokens": sum(usage)}


class Anthropic:
    name = "anthropic"
    ERROR_TYPES = {400: "invalid_request_error", 401: "authentication_error", 403: "permission_error"}
    ERROR_TYPES |= {404: "not_found_error", 429: "rate_limit_error", 529: "overloaded_error"}
    FINISH = {"stop": "end_turn", "length": "max_tokens"}

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

    def head(self, model: str, usage: tuple[int, int] | None, body: dict) -> list[bytes]:
        message = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": []}
        if usage:
            message["usage"] = {"input_tokens": usage[0], "output_tokens": 1}
        tool = self.tool(body)
        opened = (
            {"type": "tool_use", "id": "toolu_fake", "name": tool["name"], "input": {}}
            if tool
            else {"type": "text", "text": ""}
        )
        block = {"type": "content_block_start", "index": 0, "content_block": opened}
        return [
            sse({"type": "message_start", "message": message}, "message_start"),
            sse(block, "content_block_start"),
            sse({"type": "ping"}, "ping"),
        ]

    def piece(self, model: str, text: str, body: dict) -> bytes:
        if self.tool(body):
            inner = {"type": "input_json_delta", "partial_json": text}
        else:
            inner = {"type": "text_delta", "text": text}
        return sse({"type": "content_block_delta", "index": 0, "delta": inner}, "content_block_delta")

    def json_output(self, body: dict) -> bool:
        return self.tool(body) is not None  # the Messages API has no JSON mode: a forced tool call is its way

    def tail(
        self, model: str, usage: tuple[int, int] | None, citations: tuple[str, ...], finish: str, body: dict
    ) -> list[bytes]:
        reason = "tool_use" if self.tool(body) and finish == "stop" else self.FINISH.get(finish, finish)
        delta: dict = {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}}
        if usage:
            delta["usage"] = {"output_tokens": usage[1]}
        return [
            sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            sse(delta, "message_delta"),
            sse({"type": "message_stop"}, "message_stop"),
        ]

    def error_event(self, status: int, message: str) -> bytes:
        return sse({"type": "error", "error": {"type": self._type(status), "message": message}}, "error")

    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, citations: tuple[str, ...], finish: str, body: dict
    ) -> dict:
        reply = {"id": "msg_fake", "type": "message", "role": "assistant", "model": model}
        reply |= {"content": [{"type": "text", "text": text}], "stop_reason": self.FINISH.get(finish, finish)}
        if usage:
            reply["usage"] = {"input_tokens": usage[0], "output_tokens": usage[1]}
        return reply

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

    def head(self, model: str, usage: tuple[int, int] | None, body: dict) -> list[bytes]:
        return []

    def piece(self, model: str, text: str, body: dict) -> bytes:
        return sse({"candidates": [self._candidate(text)], "modelVersion": model})

    def json_output(self, body: dict) -> bool:
        return (body.get("generationConfig") or {}).get("responseMimeType") == "application/json"

    def schema(self, body: dict) -> dict | None:
        return (body.get("generationConfig") or {}).get("responseSchema")

    def tail(
        self, model: str, usage: tuple[int, int] | None, citations: tuple[str, ...], finish: str, body: dict
    ) -> list[bytes]:
        last: dict = {"candidates": [self._candidate("", self.FINISH.get(finish, finish))], "modelVersion": model}
        if usage:
            last["usageMetadata"] = self._usage(usage)
        return [sse(last)]

    def blocked(self) -> bytes:
        return sse({"promptFeedback": {"blockReason": "SAFETY"}})

    def error_event(self, status: int, message: str) -> bytes:
        return sse(self.error_body(status, message))

    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, citations: tuple[str, ...], finish: str, body: dict
    ) -> dict:
        reply: dict = {"candidates": [self._candidate(text, self.FINISH.get(finish, finish))], "modelVersion": model}
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
