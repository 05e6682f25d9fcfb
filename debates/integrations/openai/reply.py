"""One completion: the run followed (``live.watch``) and turned into chunks or one message.

The debate is the reasoning, the synthesis the content, then the panel's story from the question
in short (``represent.summary``, what MCP answers: how far the panel backs the verdict, who was
who, who dissents and why), the cost and the page's link. Asked for JSON, the synthesis joins the
reasoning and the content is the verdict object, or the verdict in the client's schema (``structured``).

A run that ends without a verdict is an error no client retries (``FAILED``, ``x-should-retry:
false``): asking again would start no new debate (``runs.once``) but costs the client its wait.
"""

import asyncio
import json
import time
from collections.abc import AsyncIterator
from typing import Any

from asgiref.sync import sync_to_async
from django.http import JsonResponse

from debates import service
from debates.engine.vocabulary import StepKind
from debates.integrations.openai.errors import NO_RETRY
from debates.integrations.openai.request import FORMATS
from debates.integrations.openai.structured import Shape, Unfit
from debates.integrations.openai.transcript import Piece, Transcript
from debates.live.watch import Ended, Spoken, watch
from debates.models import Question, Status
from debates.represent import public_url

KEEPALIVE = 10.0  # seconds of silence before a comment line keeps proxies from closing the stream
# Failed Dependency: the answer rested on the panel's run, which gave none. A 4xx, which no client
# retries by its own rules (they retry 408, 409, 429 and 5xx), beside the header that says so.
FAILED = 424


class Reply:
    """One completion for ``user``: the run followed, turned into chunks or one message."""

    def __init__(self, question: Question, payload: dict[str, Any], base: str, user: Any, shape: Shape | None) -> None:
        self.question = question
        self.user = user
        self.base = base
        self.shape = shape
        self.model = payload["model"]
        self.format = FORMATS[payload["reasoning_format"]]
        self.usage_chunk = bool((payload.get("stream_options") or {}).get("include_usage"))
        self.id = f"chatcmpl-teorema-{question.pk}"
        self.created = int(time.time())
        self.transcript = Transcript(url=public_url(question.get_absolute_url(), base))
        self.thinking = False  # a <think> is open in the content
        self.failure: dict[str, Any] | None = None  # the error the reply ends with, if it has no answer
        self.unshaped = ""  # why the moderator wrote no verdict in the schema asked for

    async def pieces(self) -> AsyncIterator[Piece | Ended]:
        """The reply's pieces in order, then the run's end (always last)."""
        for piece in self.transcript.opening(self.question):
            yield piece
        async for happening in watch(self.question.pk):
            if isinstance(happening, Spoken) and happening.kind == StepKind.SHAPED:
                self.unshaped = happening.error
            for piece in self.transcript.feed(happening):
                yield Piece("reasoning", piece.text) if self.shape else piece
            if isinstance(happening, Ended):
                for piece in await self.closing(happening):
                    yield piece
                yield happening
                return

    async def closing(self, ended: Ended) -> list[Piece]:
        """The content's end: the panel's story, or the JSON asked for. A run that gave no verdict, or
        a verdict that does not fit the schema, leaves ``failure`` instead."""
        if ended.question is None or ended.question.status in {Status.FAILED, Status.CANCELLED}:
            self.failure = failure(ended.question, self.transcript.url)
            return []
        found = await sync_to_async(service.summary)(self.user, ended.question.pk, self.base)
        if self.shape is None:
            return self.transcript.closing(ended, found)
        try:
            return [Piece("content", self.shape.content(ended.question, found, self.unshaped))]
        except Unfit as unfit:
            self.failure = body(f"{unfit}. The debate is kept: {self.transcript.url}", "verdict_does_not_fit")
            return []

    def delta(self, piece: Piece) -> dict[str, str]:
        """A piece as the message's delta, in the format asked for."""
        if piece.field == "content":
            closing = "\n</think>\n\n" if self.thinking else ""
            self.thinking = False
            return {"content": closing + piece.text}
        if self.format == "reasoning_content":
            return {"reasoning_content": piece.text}
        if self.format == "hidden":
            return {}
        opening = "" if self.thinking else "<think>\n"
        self.thinking = True
        return {"content": opening + piece.text}

    async def stream(self) -> AsyncIterator[bytes]:
        yield self.event({"role": "assistant", "content": ""})
        queue: asyncio.Queue[Piece | Ended | Exception] = asyncio.Queue()
        pump = asyncio.create_task(self.pump(queue))
        try:
            while True:
                try:
                    item = await asyncio.wait_for(queue.get(), KEEPALIVE)
                except TimeoutError:
                    yield b": the panel is at work\n\n"
                    continue
                if isinstance(item, Exception):
                    raise item
                if isinstance(item, Ended):
                    break
                if delta := self.delta(item):
                    yield self.event(delta)
            if self.failure or item.question is None:
                yield sse(self.failure or failure(None, self.transcript.url))
                return
            if self.thinking:
                yield self.event({"content": "\n</think>\n\n"})
            yield self.event({}, finish="stop")
            if self.usage_chunk:
                yield sse(self.chunk(None) | {"usage": usage(item.question)})
            yield b"data: [DONE]\n\n"
        finally:
            pump.cancel()  # the client went away, or the run ended: the watch lets the group go

    async def pump(self, queue: asyncio.Queue[Piece | Ended | Exception]) -> None:
        """The pieces into ``queue``, so that the stream can say it is alive while none comes."""
        try:
            async for item in self.pieces():
                queue.put_nowait(item)
        except Exception as error:  # raised to the stream, which ends the response
            queue.put_nowait(error)

    async def whole(self) -> JsonResponse:
        parts: dict[str, list[str]] = {"reasoning": [], "content": []}
        ended = Ended(None)
        async for item in self.pieces():
            if isinstance(item, Ended):
                ended = item
            else:
                parts[item.field].append(item.text)
        if self.failure or ended.question is None:
            return JsonResponse(self.failure or failure(None, self.transcript.url), status=FAILED, headers=NO_RETRY)
        content, reasoning = "".join(parts["content"]), "".join(parts["reasoning"])
        if self.format == "think":
            content, reasoning = f"<think>\n{reasoning}\n</think>\n\n{content}", ""
        elif self.format == "hidden":
            reasoning = ""
        message = {"role": "assistant", "content": content} | ({"reasoning_content": reasoning} if reasoning else {})
        return JsonResponse(
            self.chunk(None)
            | {
                "object": "chat.completion",
                "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
                "usage": usage(ended.question),
            }
        )

    def chunk(self, choice: dict | None) -> dict[str, Any]:
        return {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": None,
            "choices": [choice] if choice else [],
        }

    def event(self, delta: dict[str, str], finish: str | None = None) -> bytes:
        return sse(self.chunk({"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}))


def failure(question: Question | None, url: str) -> dict[str, Any]:
    """A failed, cancelled or deleted run as an error: why, and that its voices' work is kept on its page."""
    if question is None:
        return body("The question was deleted while its debate ran.", "debate_deleted")
    why = (question.error or question.get_status_display()).rstrip(".")
    message = f"The debate {question.status}: {why}. What its voices wrote is kept: {url}"
    return body(message, f"debate_{question.status}")


def body(message: str, code: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "server_error", "param": None, "code": code}}


def usage(question: Question) -> dict[str, int]:
    """The whole run's tokens: every voice's calls, the judge's and the moderator's."""
    return {
        "prompt_tokens": question.tokens_in,
        "completion_tokens": question.tokens_out,
        "total_tokens": question.tokens_in + question.tokens_out,
    }


def sse(data: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(data, ensure_ascii=False).encode() + b"\n\n"
