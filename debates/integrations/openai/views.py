"""An OpenAI-compatible endpoint: a chat front-end (Open WebUI, LibreChat), the ``llm`` command line
or the ``openai`` package asks the panel as it would ask a model.

``GET /v1/models`` lists each panel that can run as ``teorema/<slug>``; ``POST /v1/chat/completions``
(streamed and not) runs a debate on the last user message. The earlier turns are the question's
thread: a follow-up of our previous reply's question when the chat holds one, else its context.
The debate streams as ``reasoning_content`` (what reasoning servers send and front-ends fold), or
inside ``<think>`` in the content (``"reasoning_format": "think"``, or the header
``X-Teorema-Reasoning: think`` for a client that sets headers but not fields, for clients that read only
the content), or not at all (``"hidden"``); the synthesis streams as the content, then a line
with the cost and the page's link; ``usage`` is the whole run's. Errors have OpenAI's shape.

A client that goes away mid-debate stops reading, not the debate: it runs to its end, and History
and the page keep it (cancel it there).
"""

import asyncio
import json
import mimetypes
import time
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from debates import service
from debates.attachments import check as files
from debates.attachments.check import Upload
from debates.integrations.endpoint import JSON_TYPES, json_body, token_user, type_errors
from debates.integrations.openai.errors import error
from debates.integrations.openai.transcript import MARKED, Piece, Transcript
from debates.live.watch import Ended, watch
from debates.models import Panel, Question, Source, Status
from debates.readable import unreadable
from debates.readiness import panel_options
from debates.refusal import Kind, Refused
from debates.represent import public_url

PREFIX = "teorema/"
FORMATS = {
    "reasoning_content": "reasoning_content",
    "deepseek": "reasoning_content",  # llama.cpp's name for the same
    "auto": "reasoning_content",
    "think": "think",
    "none": "think",  # llama.cpp's name: the thinking left in the content
    "hidden": "hidden",
}
# What a request may carry, besides OpenAI's sampling settings (which a panel does not take: ignored).
FIELDS: dict[str, tuple[type, str]] = {
    "model": (str, "a string"),
    "messages": (list, "a list of messages"),
    "stream": (bool, "true or false"),
    "stream_options": (dict, "an object"),
    "reasoning_format": (str, "a string"),
    "teorema": (dict, "an object"),
    "n": (int, "a number"),
}
# Teorema's own options, under "teorema": the ask form's fields.
OPTIONS: dict[str, tuple[type, str]] = {
    "criticality": (str, "a string"),
    "debate": (str, "a string"),
    "deadline": (int, "a whole number of seconds"),
    "options": (list, "a list of strings"),
    "force_panel": (bool, "true or false"),
    "search": (bool, "true or false"),
    "context": (str, "a string"),
}
FORMAT_HEADER = "X-Teorema-Reasoning"  # the reasoning format, for a client that can set a header only
ROLES = {"system", "developer", "user", "assistant", "tool"}
KEEPALIVE = 10.0  # seconds of silence before a comment line keeps proxies from closing the stream


def refused_field(field: str, message: str, kind: Kind = Kind.INVALID) -> Refused:
    """A refusal about one field of the request (OpenAI's ``param``)."""
    return Refused(message, kind, {field: [message]})


def user_or_refuse(request: HttpRequest):
    user = token_user(request)
    if user is None:
        raise Refused(
            "No API key: send 'Authorization: Bearer <token>' with a token made in Teorema's admin.",
            Kind.UNAUTHENTICATED,
        )
    if not user.is_authenticated:
        raise Refused("The API key is not valid (revoked, mistyped, or its user is inactive).", Kind.UNAUTHENTICATED)
    return user


@csrf_exempt
def models(request: HttpRequest) -> HttpResponse:
    """The panels that can run now, as models."""
    if request.method != "GET":
        return error(Refused(f"{request.method} is not allowed here: use GET."), 405)
    try:
        user_or_refuse(request)
    except Refused as refused:
        return error(refused)
    data = [
        {"id": PREFIX + option.panel.slug, "object": "model", "created": 0, "owned_by": "teorema"}
        for option in panel_options()
        if option.runnable
    ]
    return JsonResponse({"object": "list", "data": data})


@csrf_exempt
async def chat_completions(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    if request.method != "POST":
        return error(Refused(f"{request.method} is not allowed here: use POST."), 405)
    try:
        user = await sync_to_async(user_or_refuse)(request)
        payload = read(request)
        fields = await sync_to_async(question_fields)(payload, user)
        question = await sync_to_async(lambda: service.ask(user, source=Source.OPENAI, **fields))()
    except Refused as refused:
        return error(refused)
    reply = Reply(question, payload, request.build_absolute_uri("/"))
    if payload.get("stream"):
        response = StreamingHttpResponse(reply.stream(), content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
        return response
    return await reply.whole()


def read(request: HttpRequest) -> dict[str, Any]:
    """The body, checked: a JSON object with a model and messages ending on the user's question."""
    payload = json_body(request)
    known = {name: value for name, value in payload.items() if name in FIELDS}
    if wrong := type_errors(known, FIELDS):
        name, words = next(iter(wrong.items()))
        raise refused_field(name, f"'{name}': {words[0]}")
    if wrong := type_errors(payload.get("teorema") or {}, OPTIONS):
        name, words = next(iter(wrong.items()))
        raise refused_field(f"teorema.{name}", f"'teorema.{name}': {words[0]}")
    if "model" not in payload:
        raise refused_field("model", "'model' is required: one of GET /v1/models (teorema/<panel>).")
    if why := unreadable(payload["model"]):
        raise refused_field("model", f"'model': {why}")
    if payload.get("n", 1) != 1:
        raise refused_field("n", "'n': a panel gives one answer per question; ask for n = 1.")
    fmt = payload.setdefault("reasoning_format", request.headers.get(FORMAT_HEADER, "reasoning_content"))
    if fmt not in FORMATS:
        raise refused_field(
            "reasoning_format", f"'reasoning_format' ({FORMAT_HEADER}) must be one of {', '.join(FORMATS)}."
        )
    messages = payload.get("messages") or []
    for index, message in enumerate(messages):
        if not isinstance(message, dict) or message.get("role") not in ROLES:
            raise refused_field(
                f"messages[{index}]", f"messages[{index}] must be an object with a role ({', '.join(sorted(ROLES))})."
            )
        text_of(message, index)  # refuses what is no text
    if not messages or messages[-1]["role"] != "user":
        raise refused_field("messages", "The last message must be the user's question.")
    return payload


FILE_PARTS = ("image_url", "file")  # what a user message may carry besides text: the question's files


def text_of(message: dict[str, Any], index: int) -> str:
    """A message's text: a string, or the text parts of a list (a user message's images and files are
    read by ``files_of``; any other part is refused)."""
    content = message.get("content")
    if content is None or isinstance(content, str):
        return content or ""
    if not isinstance(content, list):
        raise refused_field(
            f"messages[{index}].content",
            f"messages[{index}].content must be a string or a list of parts, not "
            f"{JSON_TYPES.get(type(content), 'that')}.",
        )
    texts = []
    for part in content:
        if isinstance(part, dict) and part.get("type") in FILE_PARTS and message.get("role") == "user":
            continue
        if not isinstance(part, dict) or part.get("type") != "text" or not isinstance(part.get("text"), str):
            kind = part.get("type") if isinstance(part, dict) else type(part).__name__
            raise refused_field(
                f"messages[{index}].content",
                f"messages[{index}]: the panel reads text, and a user's images (image_url) and files (file), "
                f"not a part of type {kind!r} here.",
            )
        texts.append(part["text"])
    return "\n".join(texts)


def files_of(message: dict[str, Any], index: int) -> list[Upload]:
    """A user message's images (``image_url`` data URIs) and files (``file`` parts with ``file_data``)."""
    content = message.get("content")
    uploads: list[Upload] = []
    for number, part in enumerate(content if isinstance(content, list) else []):
        field = f"messages[{index}].content[{number}]"
        if part.get("type") == "image_url":
            url = (part.get("image_url") or {}).get("url") if isinstance(part.get("image_url"), dict) else None
            upload = files.from_data_uri("", url if isinstance(url, str) else "", field)
            suffix = mimetypes.guess_extension(upload.media_type) or ""
            uploads.append(replace(upload, name=f"image-{len(uploads) + 1}{suffix}"))
        elif part.get("type") == "file":
            given = part.get("file") if isinstance(part.get("file"), dict) else {}
            if given.get("file_id"):
                raise refused_field(
                    field, f"{field}: send the file's content as file_data: this server keeps no files."
                )
            name = str(given.get("filename") or f"file-{len(uploads) + 1}")
            data = given.get("file_data")
            uploads.append(files.from_data_uri(name, data if isinstance(data, str) else "", field))
    return uploads


def panel_of(model: str) -> Panel:
    """``teorema/<slug>``, a bare slug, or ``teorema`` for the default panel."""
    slug = model.removeprefix(PREFIX)
    panel = Panel.objects.default() if slug in {"teorema", ""} else Panel.objects.filter(slug=slug).first()
    if panel is None:
        raise refused_field(
            "model",
            f"The model '{model}' does not exist: GET /v1/models lists the panels that can run.",
            Kind.NOT_FOUND,
        )
    return panel


def question_fields(payload: dict[str, Any], user) -> dict[str, Any]:
    """The ask form's fields: the last user message is the question; earlier turns its thread."""
    panel = panel_of(payload["model"])
    messages = payload["messages"]
    options = payload.get("teorema") or {}
    parent, earlier = thread(messages[:-1], user)
    context = "\n\n".join(part for part in (options.get("context", ""), earlier) if part)
    return {
        **options,
        "text": text_of(messages[-1], len(messages) - 1),
        "attachments": files_of(messages[-1], len(messages) - 1),
        "panel": panel.slug,
        "context": context,
        "follow_up_of": parent,
    }


def thread(earlier: list[dict[str, Any]], user) -> tuple[int | None, str]:
    """Our previous reply's question (a follow-up then), and the turns to give as context: the
    system's instructions, and the turns after our last reply (all of them when there is none)."""
    parent, start = None, 0
    ours = [
        (index, int(found.group(1)))
        for index, message in enumerate(earlier)
        if message["role"] == "assistant" and (found := MARKED.search(text_of(message, index)))
    ]
    if ours and Question.objects.visible_to(user).filter(pk=ours[-1][1]).exists():
        start, parent = ours[-1][0] + 1, ours[-1][1]
    instructions = [text_of(m, i) for i, m in enumerate(earlier[:start]) if m["role"] in {"system", "developer"}]
    turns = [f"{m['role'].title()}: {text_of(m, start + i)}" for i, m in enumerate(earlier[start:])]
    return parent, fitted(instructions, turns)


def fitted(instructions: list[str], turns: list[str]) -> str:
    """The context within the form's limit: the oldest turns go first, and that is said."""
    limit = settings.TEOREMA["MAX_CONTEXT_CHARS"]
    head = "\n\n".join(instructions)
    kept: list[str] = []
    for turn in reversed(turns):
        if len(head) + sum(len(t) + 2 for t in kept) + len(turn) + 80 > limit:
            kept.append("(earlier turns of the conversation left out)")
            break
        kept.append(turn)
    body = "\n\n".join(reversed(kept))
    conversation = f"The conversation so far:\n\n{body}" if body else ""
    return "\n\n".join(part for part in (head, conversation) if part)


class Reply:
    """One completion: the run followed, turned into chunks or one message."""

    def __init__(self, question: Question, payload: dict[str, Any], base: str) -> None:
        self.question = question
        self.model = payload["model"]
        self.format = FORMATS[payload["reasoning_format"]]
        self.usage_chunk = bool((payload.get("stream_options") or {}).get("include_usage"))
        self.id = f"chatcmpl-teorema-{question.pk}"
        self.created = int(time.time())
        self.transcript = Transcript(url=public_url(question.get_absolute_url(), base))
        self.thinking = False  # a <think> is open in the content

    async def pieces(self) -> AsyncIterator[Piece | Ended]:
        """The reply's pieces in order, then the run's end (always last)."""
        for piece in self.transcript.opening(self.question):
            yield piece
        async for happening in watch(self.question.pk):
            for piece in self.transcript.feed(happening):
                yield piece
            if isinstance(happening, Ended):
                if not failed(happening):
                    for piece in self.transcript.closing(happening):
                        yield piece
                yield happening
                return

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
            if item.question is None or failed(item):
                yield sse(failure(item.question, self.transcript.url))
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
        if ended.question is None or failed(ended):
            return JsonResponse(failure(ended.question, self.transcript.url), status=502)
        content, reasoning = "".join(parts["content"]), "".join(parts["reasoning"])
        if self.format == "think":
            content, reasoning = f"<think>\n{reasoning}\n</think>\n\n{content}", ""
        elif self.format == "hidden":
            reasoning = ""
        message = {"role": "assistant", "content": content} | ({"reasoning_content": reasoning} if reasoning else {})
        body = self.chunk(None) | {
            "object": "chat.completion",
            "choices": [{"index": 0, "message": message, "finish_reason": "stop", "logprobs": None}],
            "usage": usage(ended.question),
        }
        return JsonResponse(body)

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


def failed(ended: Ended) -> bool:
    return ended.question is None or ended.question.status in {Status.FAILED, Status.CANCELLED}


def failure(question: Question | None, url: str) -> dict[str, Any]:
    """A failed, cancelled or deleted run as an error: why, and that its voices' work is kept on its page."""
    if question is None:
        message, code = "The question was deleted while its debate ran.", "debate_deleted"
    else:
        why = (question.error or question.get_status_display()).rstrip(".")
        message, code = (
            f"The debate {question.status}: {why}. What its voices wrote is kept: {url}",
            f"debate_{question.status}",
        )
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
