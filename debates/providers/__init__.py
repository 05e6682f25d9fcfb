"""The provider layer: one way to call any model, whatever wire it speaks.

``stream(voice, messages)`` yields ``Chunk``s, a ``Retrying`` between attempts (with
``discard=True`` when the failed attempt had already shown text, which the consumer must then
drop, with the sources it had read) and exactly one ``Completion``; a call that fails for good
raises ``ProviderError``. ``Cited`` carries the sources the wire names as they are read (URL
citations, search results, grounding), each wire's own shape read into one (``base.Source``).
A call to a model that runs one generation at a time (the embedded one) first yields ``Queued``
while it waits and ``Started`` when it gets the model; every other call starts at once. Latencies
count from the start of generation: the time in line is kept apart (``Attempt.queued_ms``).
"""

import asyncio
import importlib
import itertools
import math
import time
from collections.abc import AsyncGenerator, AsyncIterator, Callable
from contextlib import aclosing
from dataclasses import replace
from decimal import Decimal

from debates.providers import retry
from debates.providers.base import (
    TRUNCATED,
    Attempt,
    Chunk,
    Cited,
    Completion,
    Fault,
    Message,
    ProviderError,
    Queued,
    Retrying,
    Source,
    Spent,
    Started,
    StreamEvent,
    Usage,
    Voice,
)
from debates.providers.faults import without_key
from debates.providers.secrecy import Secret

__all__ = ["check", "spend", "stream"]

AttemptFn = Callable[[Voice, list[Message], float], AsyncGenerator[Queued | Started | Chunk | Cited | Usage, None]]
# Each wire's module (its ``attempt``), imported at its first call: a process that never calls a
# model (a management command, a page) does not load the HTTP client nor the embedded model's runtime.
PROTOCOLS = frozenset({"openai", "responses", "anthropic", "gemini", "local", "cli"})
MILLION = Decimal(1_000_000)
THOUSAND = Decimal(1_000)  # search prices are per 1,000 searches, as providers quote them


async def stream(voice: Voice, messages: list[Message]) -> AsyncIterator[StreamEvent]:
    """Stream one call, retrying transient faults within ``voice.endpoint``'s limits."""
    attempt = _protocol(voice)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + voice.endpoint.total_timeout
    started = time.perf_counter()
    attempts: list[Attempt] = []
    secret = Secret(voice.endpoint.api_key)  # a model may quote the key: no rendering of it is shown
    for number in itertools.count(1):
        began = time.perf_counter()
        parts: list[str] = []
        sources: list[Source] = []
        usage = None
        queued_ms = 0
        text = secret.stream()
        try:
            async with aclosing(attempt(voice, messages, deadline)) as items:
                async for item in items:
                    if isinstance(item, Chunk):
                        if shown := text.feed(item.text):
                            parts.append(shown)
                            yield Chunk(shown)
                    elif isinstance(item, Cited):
                        sources += item.sources
                        yield item
                    elif isinstance(item, Usage):
                        usage = item
                    else:
                        if isinstance(item, Started):
                            queued_ms = item.queued_ms
                        yield item
            if rest := text.rest():
                parts.append(rest)
                yield Chunk(rest)
            if not "".join(parts).strip():
                raise ProviderError(Fault.EMPTY, _empty(voice, usage))
        except ProviderError as failed:
            if rest := text.rest():  # what streamed before the failure, whole
                parts.append(rest)
                yield Chunk(rest)
            # The one exit of every failure: some servers echo the key in their error message.
            error = without_key(failed, voice.endpoint.api_key)
            attempts.append(Attempt(number, _ms_since(began) - queued_ms, error.message, error.fault, queued_ms))
            error.attempts = tuple(attempts)
            # An error before any output is not billed; one after text or usage came is.
            error.spent = spend(voice, messages, "".join(parts), usage) if parts or usage else Spent()
            delay = retry.delay_before_retry(error, number, voice.endpoint.max_retries, deadline - loop.time())
            if delay is None:
                raise
            yield Retrying(number + 1, error.message, discard=bool(parts or sources), spent=error.spent)
            await asyncio.sleep(delay)
        else:
            attempts.append(Attempt(number, _ms_since(began) - queued_ms, queued_ms=queued_ms))
            in_line = sum(a.queued_ms for a in attempts)
            latency = _ms_since(started) - in_line
            yield _completion(voice, messages, "".join(parts), usage, latency, attempts, tuple(sources))
            return


async def check(voice: Voice) -> str:
    """One cheap real call, for the admin's "test connection": a one-token "ping" to the voice's
    model or, when it names none (a provider with no panelist yet), the model list, which is free
    (a CLI's login, read without a call)."""
    from debates.providers import catalog, cli  # at call time, as the wires are (``PROTOCOLS``)

    if voice.endpoint.wire == "cli" and not voice.model:  # whether it is logged in, read without a call
        found = cli.logged_in(voice.endpoint)
        if found.ready is False:
            raise ProviderError(Fault.AUTH, found.said)
        return f"{found.said}: a panelist's test call asks it for one word."
    if not voice.model:
        began = time.perf_counter()
        listed = await catalog.models(voice.endpoint)
        models = "1 model" if len(listed) == 1 else f"{len(listed)} models"
        return f"{voice.endpoint.name} answered in {_ms_since(began)} ms: it lists {models}."
    attempt = _protocol(voice)
    probe = replace(voice, max_tokens=1, temperature=0.0, search=False)  # a ping is worth no search
    deadline = asyncio.get_running_loop().time() + min(voice.endpoint.total_timeout, 60.0)
    began = time.perf_counter()
    try:
        async with aclosing(attempt(probe, [Message("user", "ping")], deadline)) as items:
            async for _ in items:
                pass
    except ProviderError as failed:
        error = without_key(failed, voice.endpoint.api_key)
        error.attempts = (Attempt(1, _ms_since(began), error.message, error.fault),)
        raise
    return f"{voice.endpoint.name} answered as {voice.model} in {_ms_since(began)} ms."


def estimate_tokens(chars: int) -> int:
    """About four characters a token: only for providers that report no usage."""
    return math.ceil(chars / 4)


def _protocol(voice: Voice) -> AttemptFn:
    if voice.endpoint.wire not in PROTOCOLS:
        raise ProviderError(
            Fault.BAD_REQUEST, f"{voice.endpoint.name} uses an unknown protocol {voice.endpoint.wire!r}"
        )
    attempt: AttemptFn = importlib.import_module(f"debates.providers.{voice.endpoint.wire}").attempt
    return attempt


def spend(voice: Voice, messages: list[Message], text: str, usage: Usage | None) -> Spent:
    """What a call cost so far: the provider's usage where it reported it, else estimated from the
    text, at the cost the provider itself reported (a CLI's) or else the voice's prices, and the web
    searches it made at the voice's price per 1,000."""
    usage = usage or Usage(None, None, "")
    tokens_in = usage.tokens_in
    if tokens_in is None:
        tokens_in = estimate_tokens(sum(len(m.content) for m in messages))
    tokens_out = usage.tokens_out if usage.tokens_out is not None else estimate_tokens(len(text))
    priced = (tokens_in * voice.price_in + tokens_out * voice.price_out) / MILLION
    return Spent(
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        estimated=usage.tokens_in is None or usage.tokens_out is None,
        cost=(priced if usage.cost is None else usage.cost) + usage.searches * voice.price_search / THOUSAND,
    )


def _completion(
    voice: Voice,
    messages: list[Message],
    text: str,
    usage: Usage | None,
    latency_ms: int,
    attempts: list[Attempt],
    sources: tuple[Source, ...],
) -> Completion:
    spent = spend(voice, messages, text, usage)
    return Completion(
        text=text,
        tokens_in=spent.tokens_in,
        tokens_out=spent.tokens_out,
        tokens_estimated=spent.estimated,
        finish_reason=usage.finish_reason if usage else "",
        cost=spent.cost,
        latency_ms=latency_ms,
        attempts=tuple(attempts),
        sources=sources,
        searches=usage.searches if usage else 0,
        thought=usage.thought if usage else "",
    )


def _empty(voice: Voice, usage: Usage | None) -> str:
    said = f"{voice.endpoint.name} returned an empty answer"
    if usage is not None and usage.finish_reason == TRUNCATED:
        return (
            f"{said}: it reached its limit of {voice.max_tokens} tokens before writing any text "
            "(a reasoning model can spend it all on thinking: raise the panelist's max tokens)"
        )
    return said


def _ms_since(began: float) -> int:
    return round((time.perf_counter() - began) * 1000)
