"""A model that asks to call a tool, in each wire's own streamed shape: how a test tells a CLI voice
to run a shell command or write a file (``Script(tool_call=ToolCall("Bash", {"command": …}))``).

Anthropic: a ``tool_use`` content block and its ``input_json_delta``, stop reason ``tool_use``;
OpenAI: a ``tool_calls`` delta, finish reason ``tool_calls``; Gemini: a ``functionCall`` part.
"""

import json
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.wire import sse


@dataclass(frozen=True)
class ToolCall:
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


def events(wire: str, model: str, call: ToolCall) -> list[bytes]:
    """The whole streamed answer that is only this tool call."""
    arguments = json.dumps(call.arguments)
    if wire == "anthropic":
        usage = {"input_tokens": 10, "output_tokens": 1}
        message = {"id": "msg_tool", "type": "message", "role": "assistant", "model": model, "content": []}
        block = {"type": "tool_use", "id": "toolu_fake_1", "name": call.name, "input": {}}
        return [
            sse({"type": "message_start", "message": message | {"stop_reason": None, "usage": usage}}, "message_start"),
            sse({"type": "content_block_start", "index": 0, "content_block": block}, "content_block_start"),
            sse(
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": arguments},
                },
                "content_block_delta",
            ),
            sse({"type": "content_block_stop", "index": 0}, "content_block_stop"),
            sse(
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                    "usage": {"output_tokens": 9},
                },
                "message_delta",
            ),
            sse({"type": "message_stop"}, "message_stop"),
        ]
    if wire == "openai":
        head = {"id": "chatcmpl-tool", "object": "chat.completion.chunk", "created": 0, "model": model}
        function = {"name": call.name, "arguments": arguments}
        delta = {
            "role": "assistant",
            "tool_calls": [{"index": 0, "id": "call_fake_1", "type": "function", "function": function}],
        }
        usage = {"prompt_tokens": 10, "completion_tokens": 9, "total_tokens": 19}
        return [
            sse(head | {"choices": [{"index": 0, "delta": delta, "finish_reason": None}]}),
            sse(head | {"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}], "usage": usage}),
            sse("[DONE]"),
        ]
    part = {"functionCall": {"name": call.name, "args": call.arguments}}
    candidate = {"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}
    usage = {"promptTokenCount": 10, "candidatesTokenCount": 9, "totalTokenCount": 19}
    return [sse({"candidates": [candidate], "usageMetadata": usage, "modelVersion": model})]
