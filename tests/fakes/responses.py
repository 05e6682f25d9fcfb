"""OpenAI's Responses API (``POST /v1/responses``) as the fake provider server speaks it.

A request is read as the real API reads it: ``instructions`` and the ``input`` items (a string, or
messages whose content is a string or ``input_text``, ``input_image`` and ``input_file`` parts; a
coding agent's other items, its tool calls and their outputs, are no turn of the conversation).
The real API's refusals of a request are the fake's too (400: ``max_output_tokens`` under 16, a
temperature sent to a reasoning model).

A streamed answer is the real stream, event by event, each with its ``sequence_number`` and the
``item_id``/``output_index``/``content_index`` it belongs to: ``response.created``,
``response.in_progress``; for a reasoning model (o-series, GPT-5, Codex) a ``reasoning`` item, its
summary streamed (``response.reasoning_summary_*``) where the request asks ``reasoning.summary``;
where the request carries the ``web_search`` tool and the script cites, a ``web_search_call`` item
(``response.web_search_call.in_progress``, ``.searching``, ``.completed``; the pages looked up in
its ``action.sources`` where ``include`` asks for them); then the ``message`` item with one
``output_text`` part: a ``response.output_text.delta`` per piece, each ``url_citation`` as
``response.output_text.annotation.added`` once its span has streamed, the part and the item done
with their whole text and annotations; last ``response.completed``, or ``response.incomplete``
(``incomplete_details.reason`` ``max_output_tokens`` for a cut-off answer) with the whole
``response``: its ``output`` items and ``usage`` (input, output and reasoning tokens). Not streamed,
that ``response`` is the reply. A failure mid-stream is ``response.failed`` for a rate limit or a
server error, as a generation that fails ends, and an ``error`` event for any other status.

Tools the request carries that the answer does not need (a coding agent's shell and patch
functions) are echoed in the ``response`` and never called.
"""

import re
import time
import uuid
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

from tests.fakes.wire import OPENAI, Cite, Parsed, linked, sse

# The models the real API answers with a reasoning item first, and refuses a temperature for.
REASONING_MODEL = re.compile(r"^(?:o\d|gpt-5|codex-)")
REASONING_TOKENS = 64  # what a reasoning model thinks, in the fake: billed with the output
SUMMARY = "**Weighing the question**\n\nThe fake reasons about what is asked before it answers."
MIN_OUTPUT_TOKENS = 16
LOOKED_UP = "web_search_call.action.sources"  # the ``include`` that lists a search's pages
# A failure's ``error.code`` by status, as the real API names them.
CODES = {401: "invalid_api_key", 429: "rate_limit_exceeded", 503: "server_is_overloaded", 529: "server_is_overloaded"}


@dataclass
class _Stream:
    """One streamed response: its object so far and the next event's number."""

    response: dict
    number: int = 0
    annotations: list[dict] = field(default_factory=list)  # the message's, as they streamed

    def event(self, kind: str, **fields: Any) -> bytes:
        data = {"type": kind, **fields, "sequence_number": self.number}
        self.number += 1
        return sse(data, kind)

    def item(self, kind: str) -> str:
        return f"{kind}_{self.response['id'].removeprefix('resp_')}"

    @property
    def output(self) -> list[dict]:
        return self.response["output"]


# The response each request's handler streams: its own task's, so concurrent streams never mix.
_STREAM: ContextVar[_Stream] = ContextVar("responses_stream")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(str(p.get("text", "")) for p in content or () if isinstance(p, dict))


def _turns(body: dict) -> list[dict]:
    """The messages of ``input`` (a bare string is one user message); other items are no turn."""
    found = body.get("input")
    if isinstance(found, str):
        return [{"role": "user", "content": found}]
    return [i for i in found or () if isinstance(i, dict) and i.get("type", "message") == "message"]


# What the real API answers an organisation it has not verified that asks for a reasoning summary.
UNVERIFIED = (
    "Your organization must be verified to generate reasoning summaries. Please go to your organization's "
    "settings and click on Verify Organization. If you just verified, it can take up to 15 minutes for access "
    "to propagate."
)


class Responses:
    name = "responses"
    verified = True  # False: a reasoning summary asked for is refused, as OpenAI refuses an unverified org

    def parse(self, body: dict) -> Parsed:
        turns = _turns(body)
        instructions = [body["instructions"]] if isinstance(body.get("instructions"), str) else []
        said = [_text(t.get("content")) for t in turns if t.get("role") in ("system", "developer")]
        messages = [(t["role"], _text(t.get("content"))) for t in turns if t.get("role") in ("user", "assistant")]
        return Parsed(str(body.get("model", "")), "\n\n".join(instructions + said), messages, bool(body.get("stream")))

    def files(self, body: dict) -> list[dict]:
        """The user messages' parts that are no text: ``input_image`` and ``input_file``."""
        return [
            part
            for t in _turns(body)
            if t.get("role") == "user" and isinstance(t.get("content"), list)
            for part in t["content"]
            if isinstance(part, dict) and part.get("type") != "input_text"
        ]

    def format(self, body: dict) -> dict:
        return (body.get("text") or {}).get("format") or {}

    def json_output(self, body: dict) -> bool:
        return self.format(body).get("type") in ("json_object", "json_schema")

    def schema(self, body: dict) -> dict | None:
        """The JSON Schema asked for (``text.format`` json_schema), if any."""
        found = self.format(body)
        return found.get("schema") if found.get("type") == "json_schema" else None

    def invalid(self, body: dict) -> str:
        """Why the real API refuses the request with a 400, or ""."""
        limit = body.get("max_output_tokens")
        if isinstance(limit, int) and limit < MIN_OUTPUT_TOKENS:
            return (
                "Invalid 'max_output_tokens': integer below minimum value. "
                f"Expected a value >= {MIN_OUTPUT_TOKENS}, but got {limit} instead."
            )
        if "temperature" in body and REASONING_MODEL.match(str(body.get("model", ""))):
            return "Unsupported parameter: 'temperature' is not supported with this model."
        if not self.verified and (body.get("reasoning") or {}).get("summary"):
            return UNVERIFIED
        return ""

    def searching(self, body: dict) -> bool:
        """The request carries the ``web_search`` tool (or its preview)."""
        return any(str(t.get("type", "")).startswith("web_search") for t in body.get("tools") or ())

    # --- streamed -------------------------------------------------------------------------------
    def head(
        self, model: str, usage: tuple[int, int] | None, body: dict, sources: tuple[Cite, ...] = (), answer: str = ""
    ) -> list[bytes]:
        stream = _Stream(self._response(model, body))
        _STREAM.set(stream)
        events = [
            stream.event("response.created", response=stream.response),
            stream.event("response.in_progress", response=stream.response),
        ]
        if REASONING_MODEL.match(model):
            events += self._reasoned(stream, body)
        if sources and self.searching(body):
            events += self._searched(stream, body, sources)
        message = {"id": stream.item("msg"), "type": "message", "status": "in_progress", "role": "assistant"}
        at = len(stream.output)
        events.append(stream.event("response.output_item.added", output_index=at, item=message | {"content": []}))
        opened = {"item_id": message["id"], "output_index": at, "content_index": 0}
        return [*events, stream.event("response.content_part.added", **opened, part=self._part(""))]

    def piece(self, model: str, text: str, body: dict, at: int = 0, answer: str = "", sources: tuple = ()) -> bytes:
        stream = _STREAM.get()
        where = self._where(stream)
        events = [stream.event("response.output_text.delta", **where, delta=text, logprobs=[])]
        if self.searching(body):  # a citation once the words it supports have streamed
            for cited in self._annotations(answer, sources):
                if at < cited["end_index"] <= at + len(text):
                    number = len(stream.annotations)
                    stream.annotations.append(cited)
                    events.append(
                        stream.event(
                            "response.output_text.annotation.added",
                            **where,
                            annotation_index=number,
                            annotation=cited,
                        )
                    )
        return b"".join(events)

    def tail(
        self,
        model: str,
        usage: tuple[int, int] | None,
        sources: tuple[Cite, ...],
        finish: str,
        body: dict,
        answer: str = "",
    ) -> list[bytes]:
        stream = _STREAM.get()
        where = self._where(stream)
        part = self._part(answer, self._annotations(answer, sources) if self.searching(body) else [])
        message = self._message(stream, part, finish)
        events = [
            stream.event("response.output_text.done", **where, text=answer, logprobs=[]),
            stream.event("response.content_part.done", **where, part=part),
            stream.event("response.output_item.done", output_index=where["output_index"], item=message),
        ]
        stream.output.append(message)
        stream.response |= self._ending(model, usage, finish)
        kind = "response.completed" if finish == "stop" else "response.incomplete"
        return [*events, stream.event(kind, response=stream.response)]

    def error_event(self, status: int, message: str) -> bytes:
        """How a stream fails: ``response.failed`` for a rate limit or a server error, else an ``error`` event."""
        stream = _STREAM.get()
        code = CODES.get(status) or ("server_error" if status >= 500 else "invalid_prompt")
        if status == 429 or status >= 500:
            failed = stream.response | {"status": "failed", "error": {"code": code, "message": message}}
            return stream.event("response.failed", response=failed)
        return stream.event("error", code=code, message=message, param=None)

    # --- not streamed ---------------------------------------------------------------------------
    def full(
        self, model: str, text: str, usage: tuple[int, int] | None, sources: tuple[Cite, ...], finish: str, body: dict
    ) -> dict:
        stream = _Stream(self._response(model, body))
        if REASONING_MODEL.match(model):
            self._reasoned(stream, body)
        if sources and self.searching(body):
            self._searched(stream, body, sources)
        part = self._part(text, self._annotations(text, sources) if self.searching(body) else [])
        stream.output.append(self._message(stream, part, finish))
        return stream.response | self._ending(model, usage, finish)

    def error_body(self, status: int, message: str) -> dict:
        return OPENAI.error_body(status, message)  # the same error object as Chat Completions

    # --- the pieces of a response ---------------------------------------------------------------
    def _response(self, model: str, body: dict) -> dict:
        """The response object as created: its settings echo the request's."""
        return {
            "id": f"resp_{uuid.uuid4().hex}",
            "object": "response",
            "created_at": int(time.time()),
            "status": "in_progress",
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": body.get("instructions"),
            "max_output_tokens": body.get("max_output_tokens"),
            "model": model,
            "output": [],
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "previous_response_id": None,
            "reasoning": {"effort": None, "summary": None} | (body.get("reasoning") or {}),
            "store": body.get("store", True),
            "temperature": body.get("temperature", 1.0),
            "text": {"format": self.format(body) or {"type": "text"}},
            "tool_choice": body.get("tool_choice", "auto"),
            "tools": body.get("tools") or [],
            "top_p": 1.0,
            "truncation": "disabled",
            "usage": None,
            "user": None,
            "metadata": {},
        }

    def _ending(self, model: str, usage: tuple[int, int] | None, finish: str) -> dict:
        """What the response says once it ends: how, and what it used."""
        reason = {"length": "max_output_tokens"}.get(finish, finish)
        said: dict[str, Any] = {"status": "completed" if finish == "stop" else "incomplete"}
        if finish != "stop":
            said["incomplete_details"] = {"reason": reason}
        if usage:
            thought = REASONING_TOKENS if REASONING_MODEL.match(model) else 0
            said["usage"] = {
                "input_tokens": usage[0],
                "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
                "output_tokens": usage[1] + thought,
                "output_tokens_details": {"reasoning_tokens": thought},
                "total_tokens": usage[0] + usage[1] + thought,
            }
        return said

    def _reasoned(self, stream: _Stream, body: dict) -> list[bytes]:
        """A reasoning item, with its summary where the request asks for one."""
        item = {"id": stream.item("rs"), "type": "reasoning", "summary": []}
        at = len(stream.output)
        events = [stream.event("response.output_item.added", output_index=at, item=item)]
        if (body.get("reasoning") or {}).get("summary"):
            where = {"item_id": item["id"], "output_index": at, "summary_index": 0}
            events += [
                stream.event(
                    "response.reasoning_summary_part.added", **where, part={"type": "summary_text", "text": ""}
                ),
                *(stream.event("response.reasoning_summary_text.delta", **where, delta=w) for w in _words(SUMMARY)),
                stream.event("response.reasoning_summary_text.done", **where, text=SUMMARY),
                stream.event(
                    "response.reasoning_summary_part.done", **where, part={"type": "summary_text", "text": SUMMARY}
                ),
            ]
            item = item | {"summary": [{"type": "summary_text", "text": SUMMARY}]}
        stream.output.append(item)
        return [*events, stream.event("response.output_item.done", output_index=at, item=item)]

    def _searched(self, stream: _Stream, body: dict, sources: tuple[Cite, ...]) -> list[bytes]:
        """The search the server ran: its call's events, then the call with its query (and pages)."""
        query = (self.parse(body).messages or [("user", "")])[-1][1][:60]
        call = {"id": stream.item("ws"), "type": "web_search_call", "status": "in_progress"}
        call["action"] = {"type": "search", "query": query}
        at = len(stream.output)
        where = {"item_id": call["id"], "output_index": at}
        done = call | {"status": "completed"}
        if LOOKED_UP in (body.get("include") or ()):
            done["action"] = call["action"] | {"sources": [{"type": "url", "url": c.url} for c in sources]}
        stream.output.append(done)
        return [
            stream.event("response.output_item.added", output_index=at, item=call),
            stream.event("response.web_search_call.in_progress", **where),
            stream.event("response.web_search_call.searching", **where),
            stream.event("response.web_search_call.completed", **where),
            stream.event("response.output_item.done", output_index=at, item=done),
        ]

    def _annotations(self, answer: str, sources: tuple[Cite, ...]) -> list[dict]:
        """A ``url_citation`` per Markdown link the model wrote after what the page supports, its
        indices over that link (as OpenAI's search models give them), in characters of the text."""
        return [
            {"type": "url_citation", "url": url, "title": sources[i].title, "start_index": start, "end_index": end}
            for start, end, url, i in linked(answer, sources)
        ]

    def _part(self, text: str, annotations: list[dict] | None = None) -> dict:
        return {"type": "output_text", "text": text, "annotations": annotations or [], "logprobs": []}

    def _message(self, stream: _Stream, part: dict, finish: str) -> dict:
        status = "completed" if finish == "stop" else "incomplete"
        return {"id": stream.item("msg"), "type": "message", "status": status, "role": "assistant", "content": [part]}

    def _where(self, stream: _Stream) -> dict:
        """The message's one part: what its events name."""
        return {"item_id": stream.item("msg"), "output_index": len(stream.output), "content_index": 0}


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*", text)


RESPONSES = Responses()
