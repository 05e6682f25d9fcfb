"""What a chat completion asks, read and checked before any debate runs: the body's fields, the
question and its thread from the messages, the files of the last user message, and the request
as ``runs.once`` knows it (its Idempotency-Key, its digest, whether the client is asking again).

What a panel cannot do is refused in words, never ignored: tools, ``n`` above 1, a
``response_format`` the verdict cannot take (``structured``, which the view asks).
"""

import mimetypes
from dataclasses import replace
from typing import Any

from django.conf import settings
from django.http import HttpRequest

from debates import service
from debates.attachments import check as files
from debates.attachments.check import Upload
from debates.integrations.endpoint import Fields, json_body, type_errors
from debates.integrations.openai.transcript import MARKED
from debates.lib.readable import unreadable
from debates.models import Panel
from debates.refusal import Kind, Refused, json_type
from debates.runs import once

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
FIELDS: Fields = {
    "model": (str, "a string"),
    "messages": (list, "a list of messages"),
    "stream": (bool, "true or false"),
    "stream_options": (dict, "an object"),
    "reasoning_format": (str, "a string"),
    "response_format": (dict, "an object"),
    "tools": (list, "a list"),
    "functions": (list, "a list"),
    "teorema": (dict, "an object"),
    "n": (int, "a number"),
}
# Teorema's own options, under "teorema": the ask form's fields.
OPTIONS: Fields = {
    "criticality": (str, "a string"),
    "debate": (str, "a string"),
    "deadline": (int, "a whole number of seconds"),
    "max_cost": ((int, float, str), "a number of dollars"),
    "options": (list, "a list of strings"),
    "force_panel": (bool, "true or false"),
    "search": (bool, "true or false"),
    "context": (str, "a string"),
}
FORMAT_HEADER = "X-Teorema-Reasoning"  # the reasoning format, for a client that can set a header only
ROLES = {"system", "developer", "user", "assistant", "tool"}
# What makes one question: the same values again are the same request (``runs.once``); how the
# reply is sent (streamed or not, the reasoning's format) is not.
ASKING = ("model", "messages", "teorema", "response_format")
# How the openai package, and the clients built on it (LiteLLM, LangChain, ``llm``), number a retry.
RETRY_HEADER = "X-Stainless-Retry-Count"
NO_TOOLS = (
    "A panel answers in words and calls no tools: leave 'tools' out (for the verdict as JSON, ask with "
    'response_format {"type": "json_object"}).'
)


def refused_field(field: str, message: str, kind: Kind = Kind.INVALID) -> Refused:
    """A refusal about one field of the request (OpenAI's ``param``)."""
    return Refused(message, kind, {field: [message]})


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
    refuse_tools(payload)
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
            f"messages[{index}].content must be a string or a list of parts, not {json_type(content, 'that')}.",
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
    panel = service.panel_named("" if slug == "teorema" else slug)
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
    if ours and service.follows_up(user, ours[-1][1]):
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


def refuse_tools(payload: dict[str, Any]) -> None:
    """Tools (or the older functions) a client offers the model: a panel calls none, and says so."""
    for name in ("tools", "functions"):
        if payload.get(name):
            raise refused_field(name, f"'{name}': {NO_TOOLS}")
    for name in ("tool_choice", "function_call"):
        choice = payload.get(name)
        if choice not in (None, "none", "auto"):
            raise refused_field(name, f"'{name}': {NO_TOOLS}")


def asked_of(request: HttpRequest, payload: dict[str, Any]) -> once.Asked:
    """The request as ``runs.once`` knows it: the client's key, what it asks, and whether the client
    says it is asking again."""
    count = request.headers.get(RETRY_HEADER, "").strip()
    return once.Asked(
        key=request.headers.get("Idempotency-Key", "").strip(),
        digest=once.digest({name: payload.get(name) for name in ASKING}),
        retry=count.isdigit() and int(count) > 0,
    )
