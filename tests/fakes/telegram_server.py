"""A fake Telegram Bot API server on loopback that is as strict as the real one about formatting.

It serves ``/bot<token>/<method>`` in a background thread with its own event loop: ``getMe``,
``getUpdates`` (scripted updates, long-polled), ``sendMessage`` (recorded; rejected with the
real error texts for HTML Telegram cannot parse, bad entity offsets, or more than 4096 UTF-16
code units after parsing), ``setWebhook``/``deleteWebhook``, ``answerCallbackQuery``, and files:
``document(chat_id, name, data, caption)`` and ``photo(chat_id, data, caption)`` queue a message
carrying one, ``getFile`` answers its path and ``/file/bot<token>/<path>`` serves its bytes.
Requests with another token get 401. ``fail_next(method)`` makes the next call fail with a
500 so error paths can be exercised.

    with FakeTelegramServer(token) as server:
        server.message(chat_id=42, text="Is 91 prime?")   # queue an update
        server.taken()   # the queued updates, for a test that posts them to the webhook itself
        ... run the bot with TELEGRAM_API_BASE=server.url ...
        server.sent      # [{"chat_id": 42, "text": ..., "visible": ..., "parse_mode": ...}, ...]
"""

import asyncio
import contextlib
import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

from aiohttp import web

from tests.fakes.threaded import ThreadedServer

LIMIT = 4096
TAGS = {"b", "strong", "i", "em", "u", "ins", "s", "strike", "del", "code", "pre", "a", "blockquote", "tg-spoiler"}
MARKUP = re.compile(r"<(/?)([A-Za-z][\w-]*)((?:\s+[\w-]+(?:=\"[^\"]*\")?)*)\s*>|&(#\d+|#x[0-9a-fA-F]+|\w+);|[<>&]")
NAMED = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}


class BadRequest(Exception):
    """Telegram's 400: the message says what it could not accept."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_html(text: str) -> str:
    """The visible text of Telegram-HTML, or BadRequest the way Telegram words it."""
    visible: list[str] = []
    stack: list[str] = []
    pos = 0
    for match in MARKUP.finditer(text):
        visible.append(text[pos : match.start()])
        pos = match.end()
        offset = len(text[: match.start()].encode())
        closing, name, _attributes, entity = match.groups()
        if entity is not None:
            if entity.startswith("#"):
                visible.append(chr(int(entity[2:], 16) if entity[1] == "x" else int(entity[1:])))
            elif entity in NAMED:
                visible.append(NAMED[entity])
            else:
                raise BadRequest(f'Can\'t parse entities: unsupported HTML entity "&{entity};" at byte offset {offset}')
        elif name is None:
            raise BadRequest(f'Can\'t parse entities: unexpected "{match.group(0)}" at byte offset {offset}')
        elif closing:
            if not stack or stack[-1] != name.lower():
                raise BadRequest(f"Can't parse entities: unexpected end tag at byte offset {offset}")
            stack.pop()
        else:
            check_start_tag(name.lower(), stack, offset)
            stack.append(name.lower())
    if stack:
        raise BadRequest(f"Can't parse entities: can't find end tag corresponding to start tag \"{stack[-1]}\"")
    visible.append(text[pos:])
    return "".join(visible)


def check_start_tag(name: str, stack: list[str], offset: int) -> None:
    if name not in TAGS:
        raise BadRequest(f'Can\'t parse entities: unsupported start tag "{name}" at byte offset {offset}')
    inside_code = stack and stack[-1] in ("code", "pre")
    if inside_code and not (name == "code" and stack[-1] == "pre"):
        raise BadRequest(f"Can't parse entities: entities can't be nested in code at byte offset {offset}")
    if name in ("a", "code", "pre") and "a" in stack:
        raise BadRequest(f"Can't parse entities: {name} can't be nested in a link at byte offset {offset}")
    if name == "blockquote" and "blockquote" in stack:
        raise BadRequest(f"Can't parse entities: blockquotes can't be nested at byte offset {offset}")


def check_entities(text: str, entities: list[dict]) -> None:
    length = utf16_len(text)
    for entity in entities:
        offset, size = entity.get("offset", -1), entity.get("length", -1)
        if not (isinstance(offset, int) and isinstance(size, int) and offset >= 0 and size > 0):
            raise BadRequest("Can't parse entities: wrong entity offset or length")
        if offset + size > length:
            raise BadRequest(f"Can't parse entities: entity ends at {offset + size}, after the end of the text")


class FakeTelegramServer(ThreadedServer):
    """Start with ``start()`` or as a context manager; see the module docstring."""

    name = "fake-telegram"

    def __init__(self, token: str, host: str = "127.0.0.1") -> None:
        super().__init__(host)
        self.token = token
        self.sent: list[dict[str, Any]] = []
        self.rejected: list[dict[str, Any]] = []
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.webhook: dict[str, Any] = {}
        self._updates: list[dict[str, Any]] = []
        self._failures: dict[str, int] = {}
        self._next_update = 1
        self._lock = threading.Lock()
        self._new_update: asyncio.Event | None = None
        self.files: dict[str, bytes] = {}  # file_id -> its bytes
        self.on_send: Callable[[], None] | None = None  # called in the server's thread after each sendMessage

    # --- scripting (from any thread) ------------------------------------------------------
    def push(self, update: dict[str, Any]) -> int:
        with self._lock:
            update_id = self._next_update
            self._next_update += 1
            self._updates.append({"update_id": update_id, **update})
        if self._loop and self._new_update:
            self._loop.call_soon_threadsafe(self._new_update.set)
        return update_id

    def message(self, chat_id: int, text: str) -> int:
        chat = {"id": chat_id, "type": "private", "first_name": "Asker"}
        sender = {"id": chat_id, "is_bot": False, "first_name": "Asker"}
        message = {"message_id": self._next_update, "date": int(time.time()), "chat": chat, "from": sender}
        return self.push({"message": {**message, "text": text}})

    def document(self, chat_id: int, name: str, data: bytes, caption: str = "", mime_type: str = "") -> int:
        file_id = self._store(data)
        found = {"file_id": file_id, "file_unique_id": file_id, "file_name": name, "file_size": len(data)}
        return self._with_file("document", found | ({"mime_type": mime_type} if mime_type else {}), chat_id, caption)

    def photo(self, chat_id: int, data: bytes, caption: str = "") -> int:
        """A photo as Telegram sends one: its sizes, the largest last (here one size)."""
        file_id = self._store(data)
        size = {"file_id": file_id, "file_unique_id": file_id, "width": 64, "height": 48, "file_size": len(data)}
        return self._with_file("photo", [size], chat_id, caption)

    def _store(self, data: bytes) -> str:
        file_id = f"file{len(self.files) + 1}"
        self.files[file_id] = data
        return file_id

    def _with_file(self, kind: str, found: Any, chat_id: int, caption: str) -> int:
        chat = {"id": chat_id, "type": "private", "first_name": "Asker"}
        sender = {"id": chat_id, "is_bot": False, "first_name": "Asker"}
        message = {"message_id": self._next_update, "date": int(time.time()), "chat": chat, "from": sender}
        return self.push({"message": {**message, kind: found} | ({"caption": caption} if caption else {})})

    def callback(self, chat_id: int, data: str) -> int:
        sender = {"id": chat_id, "is_bot": False, "first_name": "Asker"}
        chat = {"id": chat_id, "type": "private", "first_name": "Asker"}
        message = {"message_id": 1, "date": int(time.time()), "chat": chat, "text": "…"}
        query = {"id": f"cb{self._next_update}", "from": sender, "chat_instance": "1", "data": data}
        return self.push({"callback_query": {**query, "message": message}})

    def taken(self) -> list[dict[str, Any]]:
        """The queued updates, removed: what Telegram would post to a webhook instead of serving getUpdates."""
        with self._lock:
            found, self._updates = self._updates, []
        return found

    def fail_next(self, method: str, times: int = 1) -> None:
        with self._lock:
            self._failures[method] = times

    def texts(self, chat_id: int) -> list[str]:
        return [call["visible"] for call in self.sent if call["chat_id"] == chat_id]

    def on_loop(self) -> None:
        self._new_update = asyncio.Event()

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/bot{token}/{method}", self._handle)
        app.router.add_get("/file/bot{token}/{path:.*}", self._download)

    async def _download(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.Response(status=401)
        found = self.files.get(request.match_info["path"].rsplit("/", 1)[-1])
        return web.Response(body=found) if found is not None else web.Response(status=404)

    # --- the API --------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.Response:
        if request.match_info["token"] != self.token:
            return web.json_response({"ok": False, "error_code": 401, "description": "Unauthorized"}, status=401)
        method = request.match_info["method"]
        params = await self._params(request)
        with self._lock:
            self.calls.append((method, params))
            failing = self._failures.get(method, 0)
            if failing:
                self._failures[method] = failing - 1
        if failing:
            return web.json_response(
                {"ok": False, "error_code": 500, "description": "Internal Server Error"}, status=500
            )
        handler = getattr(self, f"_api_{method}", None)
        if handler is None:
            return web.json_response({"ok": False, "error_code": 404, "description": "Not Found"}, status=404)
        try:
            result = await handler(params)
        except BadRequest as error:
            return web.json_response(
                {"ok": False, "error_code": 400, "description": f"Bad Request: {error}"}, status=400
            )
        return web.json_response({"ok": True, "result": result})

    async def _params(self, request: web.Request) -> dict[str, Any]:
        if request.content_type == "application/json":
            return await request.json()
        params: dict[str, Any] = {}
        for key, value in (await request.post()).items():
            try:  # python-telegram-bot sends non-string parameters JSON-encoded in a form
                params[key] = json.loads(value) if key != "text" else value
            except ValueError:
                params[key] = value
        return params

    async def _api_getMe(self, params: dict) -> dict:
        return {"id": 1, "is_bot": True, "first_name": "Teorema", "username": "teorema_bot"}

    async def _api_getUpdates(self, params: dict) -> list[dict]:
        offset = int(params.get("offset") or 0)
        deadline = time.monotonic() + min(float(params.get("timeout") or 0), 1.0)
        while True:
            with self._lock:
                self._updates = [u for u in self._updates if u["update_id"] >= offset]
                ready = list(self._updates)
                self._new_update.clear()
            if ready or time.monotonic() >= deadline:
                return ready
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._new_update.wait(), deadline - time.monotonic())

    async def _api_sendMessage(self, params: dict) -> dict:
        text = str(params.get("text", ""))
        try:
            if params.get("parse_mode") == "HTML":
                visible = parse_html(text)
            else:
                visible = text
                check_entities(text, params.get("entities") or [])
            if not visible.strip():
                raise BadRequest("message text is empty")
            if utf16_len(visible) > LIMIT:
                raise BadRequest("message is too long")
        except BadRequest:
            self.rejected.append(params)
            raise
        chat_id = int(params["chat_id"])
        call = {**params, "chat_id": chat_id, "visible": visible}
        with self._lock:
            self.sent.append(call)
            number = len(self.sent)
        if self.on_send:
            self.on_send()
        chat = {"id": chat_id, "type": "private", "first_name": "Asker"}
        return {"message_id": number, "date": int(time.time()), "chat": chat, "text": visible}

    async def _api_setWebhook(self, params: dict) -> bool:
        self.webhook = params
        return True

    async def _api_deleteWebhook(self, params: dict) -> bool:
        self.webhook = {}
        return True

    async def _api_answerCallbackQuery(self, params: dict) -> bool:
        return True

    async def _api_getFile(self, params: dict) -> dict:
        file_id = str(params.get("file_id"))
        if file_id not in self.files:
            raise BadRequest("invalid file_id")
        size = len(self.files[file_id])
        return {"file_id": file_id, "file_unique_id": file_id, "file_size": size, "file_path": f"documents/{file_id}"}
