"""A fake LLM provider server that speaks the OpenAI (Chat Completions and Responses), Anthropic and
Gemini wire formats.

It runs on 127.0.0.1 in a background thread with its own event loop, so the same server serves
in-process async tests, a Daphne subprocess and a browser. Paths are the real providers':
``/v1/chat/completions`` (OpenAI), ``/v1/responses`` (OpenAI's Responses API, tests/fakes/responses.py),
``/v1/messages`` (Anthropic) and
``/v1beta/models/{model}:streamGenerateContent?alt=sse`` (Gemini); non-streamed requests
(``"stream": false``, ``:generateContent``) get a whole answer. ``GET …/models`` lists
``server.models`` in each wire's shape, as Ollama, LM Studio and the providers do: Gemini lists a
model whose name has "embedding" in it as embedContent-only, as Google lists its embedding models;
``server.models_page = n`` pages Anthropic's list (``after_id``) and Gemini's (``pageToken``) n at
a time; ``server.models_failure = Script(status=401)`` (or ``fault="hang"``, ``"invalid_json"``)
answers every listing that way instead.

Scripting, per model name (any other model gets ``server.default``)::

    server.script("m", "fixed answer")                        # every request to model "m"
    server.script("m", lambda req: f"round says {req.prompt[:20]}")   # answer from the request
    server.script("m", Script(status=503), Script(status=503), "ok")  # fail twice, then succeed
    server.script("m", Script(fault="drop", after_chunks=3))
    server.script("m", Script(first_token_delay=0.5, tokens_per_second=20, usage=False))

Each request takes the next step; the last step repeats. Whatever the model, a request that asks
the agreement judge's question (tests/fakes/judge.py) is answered by ``server.judge``'s steps
instead, by default a judge that groups answers whose words are the same::

    server.script_judge(judge.grouping({"No: keep it": "no", "Stay a monolith": "no"}))
    server.script_judge(Script(status=500))                    # the judge's call fails

A ``Script`` has:
  answer: str, or a callable receiving the ``FakeRequest`` (``.prompt`` is the last user turn,
    ``.system``, ``.messages``, ``.number`` the request count for that model) and returning a str;
    the answer streams as word-sized chunks, or in pieces of ``chunk_chars`` characters (a word
    split across chunks).
  status / error / retry_after: answer with that HTTP status, a provider-shaped error body
    carrying ``error`` and a ``Retry-After`` header.
  fault: "hang" (never answer), "stall" (stop sending after ``after_chunks`` chunks),
    "drop" (close the connection after ``after_chunks``), "malformed" (a line that is not SSE),
    "invalid_json" (a data line that is not JSON), "empty" (no text), "error_event"
    (the provider's mid-stream error event, status ``status or 529``), "blocked" (Gemini
    promptFeedback block).
  first_token_delay, tokens_per_second: pacing (a non-streamed answer comes whole after both).
  hold: a callable; while it returns True a streamed answer's first word waits (a test lets the
    words go once its viewers are connected).
    usage: True (counted by words), False (absent)
    or a fixed (tokens_in, tokens_out).
  sources: ``Cite``s (a URL, its title, the words quoted, the words of the answer each supports),
    sent in the format of the wire and of what the request asked for (tests/fakes/wire.py):
    OpenAI's url_citation annotations, OpenRouter's, Perplexity's citations, Anthropic's search
    blocks and citations, Gemini's grounding metadata; streamed and not.
  tool_call: a ``ToolCall`` the model asks for instead of answering, in the wire's streamed shape
    (tests/fakes/tool_calls.py): how a test tells a CLI voice to run a command or write a file.
  finish: how the answer ends: "stop", or "length" for a cut-off answer, sent as each wire's own
    marker (OpenAI finish_reason "length", Anthropic stop_reason "max_tokens", Gemini
    finishReason "MAX_TOKENS"); any other string is sent as it is ("pause_turn": an Anthropic
    turn paused by the server before its search, which the next step continues).
  omit: top-level fields every JSON reply and event leaves out (``("citations",)``: Perplexity
    without its deprecated list).

Every request is recorded in ``server.requests`` (method, path, query, headers, JSON body, model,
time, ``json_output``: whether it asked for the wire's JSON mode, and ``files``: the user turns' parts
that are no text, exactly as the wire sent them: OpenAI ``image_url`` and ``file``, the Responses API's
``input_image`` and ``input_file``, Anthropic ``image`` and ``document``, Gemini ``inline_data``), every listing in
``server.listings`` (no body, no model); ``server.in_flight`` and ``server.max_in_flight`` count
concurrent requests.

Run alone for manual trials and benchmarks: ``python -m tests.fakes.provider_server --port 8765``.
"""

import argparse
import asyncio
import contextlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from aiohttp import web

from debates.providers.base import Endpoint, Voice
from tests.fakes import judge, tool_calls
from tests.fakes.responses import RESPONSES
from tests.fakes.threaded import ThreadedServer
from tests.fakes.tool_calls import ToolCall
from tests.fakes.wire import ANTHROPIC, GEMINI, OPENAI, Cite, bounds

FOREVER = 3600.0
JUDGE = "(the agreement judge)"  # the request counter of judge requests, whatever their model
WORD = re.compile(r"\s*\S+\s*$|\s*\S+")


@dataclass
class FakeRequest:
    wire: str
    method: str
    path: str
    query: str
    headers: dict[str, str]  # lower-case names
    body: dict
    model: str
    system: str
    messages: list[tuple[str, str]]
    stream: bool
    number: int  # 1 for the first request to this model
    json_output: bool = False  # asked for a JSON object (OpenAI response_format, Gemini responseMimeType)
    schema: dict | None = None  # the JSON Schema asked for (OpenAI json_schema, Gemini responseSchema, Anthropic tool)
    files: list[dict] = field(default_factory=list)  # the user turns' parts that are no text, exactly as received
    at: float = field(default_factory=time.monotonic)

    @property
    def prompt(self) -> str:
        """The last user turn: what most responders answer."""
        return next((text for role, text in reversed(self.messages) if role == "user"), "")


Answer = str | Callable[[FakeRequest], str]
MODELS = ("model-alpha", "model-beta", "model-gamma")


@dataclass(frozen=True)
class Script:
    answer: Answer = "The fake provider answers: forty-two."
    status: int | None = None
    error: str = ""
    retry_after: str | None = None
    fault: str | None = None
    after_chunks: int = 1
    first_token_delay: float = 0.0
    tokens_per_second: float | None = None
    hold: Callable[[], bool] | None = None
    usage: bool | tuple[int, int] = True
    sources: tuple[Cite, ...] = ()
    finish: str = "stop"
    chunk_chars: int | None = None  # streamed in pieces of this many characters, not word by word
    tool_call: ToolCall | None = None  # instead of an answer, the model asks to call this tool (streamed)
    omit: tuple[str, ...] = ()  # top-level fields the replies leave out


class FakeProviderServer(ThreadedServer):
    """Start with ``start()`` (or as a context manager); see the module docstring."""

    name = "fake-provider"

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        super().__init__(host, port)
        self.default = Script()
        self.models: list[str] = list(MODELS)  # what GET …/models lists
        self.models_page: int | None = None
        self.models_failure: Script | None = None
        self.requests: list[FakeRequest] = []
        self.listings: list[FakeRequest] = []
        self.in_flight = self.max_in_flight = 0
        self._scripts: dict[str, list[Script]] = {}
        self._counts: dict[str, int] = {}
        self._judge: list[Script] = [Script(answer=judge.grouping())]
        self._lock = threading.Lock()

    # --- scripting and inspection (from any thread) -------------------------------------
    def script(self, model: str, *steps: Script | Answer) -> None:
        with self._lock:
            self._scripts[model] = [s if isinstance(s, Script) else Script(answer=s) for s in steps]

    def script_judge(self, *steps: Script | Answer) -> None:
        """How the agreement judge answers, whichever model it runs on (one step per judge request)."""
        with self._lock:
            self._judge = [s if isinstance(s, Script) else Script(answer=s) for s in steps]
            self._counts.pop(JUDGE, None)

    def reset(self) -> None:
        with self._lock:
            self._judge = [Script(answer=judge.grouping())]
            self._scripts.clear()
            self._counts.clear()
            self.requests.clear()
            self.listings.clear()
            self.default = Script()
            self.models = list(MODELS)
            self.models_page = None
            self.models_failure = None
            self.max_in_flight = self.in_flight

    def requests_for(self, model: str) -> list[FakeRequest]:
        """The requests its script answered (the judge's requests, answered by ``script_judge``, are apart)."""
        return [r for r in self.requests if r.model == model and not judge.is_judge(r)]

    @property
    def judge_requests(self) -> list[FakeRequest]:
        return [r for r in self.requests if judge.is_judge(r)]

    def base_url(self, wire: str) -> str:
        """The base URL a Provider row would hold for this wire."""
        v1 = f"{self.url}/v1"
        return {"openai": v1, "responses": v1, "anthropic": self.url, "gemini": f"{self.url}/v1beta"}[wire]

    def endpoint(self, wire: str, **fields: Any) -> Endpoint:
        # A key like a real one: random-looking, sharing no 8 characters with any message (it gets removed).
        key = {
            "openai": "sk-fake-4Gq9Lx2V",
            "responses": "sk-fake-9Tb6Wd3J",
            "anthropic": "sk-ant-fake-7Rw3Nc8T",
            "gemini": "AIza-fake-5Hm1Pz6K",
        }
        defaults = {"name": f"Fake {wire}", "base_url": self.base_url(wire), "api_key": key.get(wire, "")}
        return Endpoint(wire=wire, **(defaults | {"stall_timeout": 5.0} | fields))

    def voice(self, wire: str, model: str = "fake-model", **fields: Any) -> Voice:
        endpoint_fields = {k: fields.pop(k) for k in list(fields) if k in Endpoint.__dataclass_fields__}
        return Voice(
            name=f"{wire}/{model}",
            model=model,
            endpoint=self.endpoint(wire, **endpoint_fields),
            **fields,
        )

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/{tail:.*}", self._handle)
        app.router.add_get("/{tail:.*}", self._models)

    async def _models(self, request: web.Request) -> web.Response:
        """The model list, as each wire lists it (``/v1/models``; Gemini's ``/v1beta/models``)."""
        gemini = request.path.endswith("/v1beta/models")
        if not (gemini or request.path.endswith("/v1/models")):
            return web.json_response({"error": {"message": f"no route {request.path}"}}, status=404)
        wire = GEMINI if gemini else ANTHROPIC if "anthropic-version" in request.headers else OPENAI
        headers = {k.lower(): v for k, v in request.headers.items()}
        number = len(self.listings) + 1
        self.listings.append(
            FakeRequest(wire.name, "GET", request.path, request.query_string, headers, {}, "", "", [], False, number)
        )
        failure = self.models_failure
        if failure and failure.fault == "hang":
            await asyncio.sleep(FOREVER)
        if failure and failure.fault == "invalid_json":
            return web.Response(text="{not json", content_type="application/json")
        if failure and failure.status:
            return web.json_response(
                wire.error_body(failure.status, failure.error or "fake failure"), status=failure.status
            )
        if wire is OPENAI:
            return web.json_response({"object": "list", "data": [{"id": m, "object": "model"} for m in self.models]})
        if wire is ANTHROPIC:
            start = self.models.index(request.query["after_id"]) + 1 if "after_id" in request.query else 0
            page = self._page(start)
            listed = [{"id": m, "type": "model", "display_name": m} for m in page]
            has_more = start + len(page) < len(self.models)
            return web.json_response({"data": listed, "has_more": has_more, "last_id": page[-1] if page else None})
        start = int(request.query.get("pageToken", 0))
        page = self._page(start)
        listed = [{"name": f"models/{m}", "supportedGenerationMethods": self._methods(m)} for m in page]
        more = start + len(page) < len(self.models)
        return web.json_response({"models": listed} | ({"nextPageToken": str(start + len(page))} if more else {}))

    def _page(self, start: int) -> list[str]:
        return self.models[start : start + self.models_page if self.models_page else None]

    def _methods(self, model: str) -> list[str]:
        return ["embedContent"] if "embedding" in model else ["generateContent", "countTokens"]

    # --- answering ------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        try:
            body = json.loads(await request.read() or b"{}")
        except ValueError:
            return web.json_response({"error": {"message": "body is not JSON"}}, status=400)
        wire, parsed = self._route(request.path, body)
        if wire is None:
            return web.json_response({"error": {"message": f"no route {request.path}"}}, status=404)
        asks_judge = judge.is_judge_prompt(parsed.messages)
        with self._lock:
            key = JUDGE if asks_judge else parsed.model
            number = self._counts[key] = self._counts.get(key, 0) + 1
            steps = self._judge if asks_judge else self._scripts.get(parsed.model) or [self.default]
            step = steps[min(number, len(steps)) - 1]
        fake = FakeRequest(
            wire.name,
            request.method,
            request.path,
            request.query_string,
            {k.lower(): v for k, v in request.headers.items()},
            body,
            parsed.model,
            parsed.system,
            parsed.messages,
            parsed.stream,
            number,
            wire.json_output(body),
            wire.schema(body),
            wire.files(body),
        )
        self.requests.append(fake)
        self.in_flight += 1
        self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return await self._respond(request, wire, fake, step)
        finally:
            self.in_flight -= 1

    def _route(self, path: str, body: dict) -> tuple[Any, Any]:
        if path.endswith("/chat/completions"):
            return OPENAI, OPENAI.parse(body)
        if path.endswith("/responses"):
            return RESPONSES, RESPONSES.parse(body)
        if path.endswith("/v1/messages"):
            return ANTHROPIC, ANTHROPIC.parse(body)
        if match := GEMINI.PATH.search(path):
            return GEMINI, GEMINI.parse(body, match["model"], match["method"])
        return None, None

    async def _respond(self, request: web.Request, wire: Any, fake: FakeRequest, step: Script) -> web.StreamResponse:
        checks = getattr(wire, "invalid", None)  # a wire whose API refuses some requests outright
        if checks is not None and (refused := checks(fake.body)):
            return web.json_response(wire.error_body(400, refused), status=400)
        if step.fault == "hang":
            await asyncio.sleep(FOREVER)
        if step.status and step.fault != "error_event":
            headers = {"Retry-After": step.retry_after} if step.retry_after else {}
            message = step.error or f"fake failure {step.status}"
            return web.json_response(wire.error_body(step.status, message), status=step.status, headers=headers)
        if step.tool_call is not None and fake.stream:
            return await self._tool_call(request, wire, fake, step.tool_call)
        answer = "" if step.fault == "empty" else step.answer(fake) if callable(step.answer) else step.answer
        if step.chunk_chars:
            pieces = [answer[i : i + step.chunk_chars] for i in range(0, len(answer), step.chunk_chars)]
        else:
            pieces = _pieces(answer, bounds(answer, step.sources) if step.sources else [])
        usage = self._usage(step, fake, pieces)
        if not fake.stream:  # generated as a stream would be, then sent whole
            await asyncio.sleep(step.first_token_delay + len(pieces) / (step.tokens_per_second or float("inf")))
            whole = wire.full(fake.model, answer, usage, step.sources, step.finish, fake.body)
            return web.json_response({k: v for k, v in whole.items() if k not in step.omit})
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        for event in wire.head(fake.model, usage, fake.body, step.sources, answer):
            await response.write(_omitting(event, step.omit))
        await asyncio.sleep(step.first_token_delay)
        while step.hold is not None and step.hold():  # noqa: ASYNC110 (another thread's or process's word)
            await asyncio.sleep(0.01)
        at = 0
        for index, piece in enumerate([*pieces, None]):
            at_fault = step.fault and index == min(step.after_chunks, len(pieces))
            if at_fault and await self._fault(request, response, wire, step):
                return response
            if piece is None:
                break
            await response.write(
                _omitting(wire.piece(fake.model, piece, fake.body, at, answer, step.sources), step.omit)
            )
            at += len(piece)
            if step.tokens_per_second:
                await asyncio.sleep(1 / step.tokens_per_second)
        for event in wire.tail(fake.model, usage, step.sources, step.finish, fake.body, answer):
            await response.write(_omitting(event, step.omit))
        await response.write_eof()
        return response

    async def _tool_call(
        self, request: web.Request, wire: Any, fake: FakeRequest, call: ToolCall
    ) -> web.StreamResponse:
        response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        await response.prepare(request)
        for event in tool_calls.events(wire.name, fake.model, call):
            await response.write(event)
        await response.write_eof()
        return response

    async def _fault(self, request: web.Request, response: web.StreamResponse, wire: Any, step: Script) -> bool:
        """Misbehave mid-stream; True when the response is over."""
        match step.fault:
            case "stall":
                await asyncio.sleep(FOREVER)
            case "drop":
                request.transport.abort()
                return True
            case "malformed":
                await response.write(b"this is not an event stream\n\n")
            case "invalid_json":
                await response.write(b"data: {not json\n\n")
            case "error_event" | "blocked":
                event = (
                    GEMINI.blocked()
                    if step.fault == "blocked"
                    else wire.error_event(step.status or 529, step.error or "Overloaded")
                )
                await response.write(event)
                await response.write_eof()
                return True
        return False

    def _usage(self, step: Script, fake: FakeRequest, pieces: list[str]) -> tuple[int, int] | None:
        if isinstance(step.usage, tuple):
            return step.usage
        if not step.usage:
            return None
        words = len(fake.system.split()) + sum(len(text.split()) for _, text in fake.messages)
        return words, len(pieces)


def _omitting(events: bytes, omit: tuple[str, ...]) -> bytes:
    """Server-sent events with the given top-level fields left out of their JSON data."""
    if not omit:
        return events
    lines = events.decode().split("\n")
    for number, line in enumerate(lines):
        if line.startswith("data: {"):
            data = json.loads(line.removeprefix("data: "))
            lines[number] = f"data: {json.dumps({k: v for k, v in data.items() if k not in omit})}"
    return "\n".join(lines).encode()


def _pieces(answer: str, cuts: list[int]) -> list[str]:
    """The answer in word-sized chunks, split also where a cited span begins or ends (a wire that
    cites by blocks starts a new one there)."""
    pieces: list[str] = []
    for start, end in itertools.pairwise([0, *cuts, len(answer)]):
        part = answer[start:end]
        pieces += WORD.findall(part) or ([part] if part else [])  # whitespace alone between two spans
    return pieces


def main() -> None:
    parser = argparse.ArgumentParser(description="Serve the fake LLM provider for manual trials.")
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--tokens-per-second", type=float, default=20.0, help="0: as fast as possible")
    parser.add_argument("--first-token-delay", type=float, default=0.4)
    parser.add_argument("--words", type=int, default=60, help="length of the answer after its header")
    args = parser.parse_args()
    server = FakeProviderServer(port=args.port)
    filler = ("Here is a slow, steady answer so you can watch it stream. " * (args.words // 11 + 1)).split()
    server.default = replace(
        server.default,
        answer=lambda req: (
            f"(fake {req.model}, request {req.number}) You asked: {req.prompt[:200]} " + " ".join(filler[: args.words])
        ),
        first_token_delay=args.first_token_delay,
        tokens_per_second=args.tokens_per_second or None,
    )
    with server:
        print(f"Fake provider on {server.url}")
        for wire in ("openai", "responses", "anthropic", "gemini"):
            print(f"  {wire:9} base URL {server.base_url(wire)}")
        with contextlib.suppress(KeyboardInterrupt):
            threading.Event().wait()


if __name__ == "__main__":
    main()
