"""One voice, one step: stream the call to the sink, gate the result, return a VoteResult.

A call never raises for a provider failure: failing is a result (status "failed"), kept on
the vote with every attempt, so the protocol's failure policy can decide what happens next.
"""

import time
from collections.abc import Callable
from decimal import Decimal

from debates import providers
from debates.engine import gates
from debates.engine.events import Sink, VoteChunk, VoteFinished, VoteResult, VoteRetrying, VoteStarted
from debates.engine.spec import Seat
from debates.providers.base import Attempt, Chunk, Completion, Message, ProviderError, Retrying

# A gated answer is asked again once: two failures and the voice is out (seed 002).
GATE_TRIES = 2


def _attempt_dict(attempt: Attempt) -> dict:
    return {"number": attempt.number, "latency_ms": attempt.latency_ms, "error": attempt.error, "fault": attempt.fault}


async def call(
    sink: Sink,
    round_index: int,
    seat: Seat,
    kind: str,
    messages: list[Message],
    check: Callable[[str], str],
) -> VoteResult:
    """Run one contribution; ``check(text)`` returns why the text is not acceptable, or ""."""
    await sink.emit(VoteStarted(round_index, seat.key, seat.label, kind))
    attempts: list[dict] = []
    tokens_in = tokens_out = 0
    cost = Decimal("0")
    started = time.monotonic()
    reason = ""
    for gate_try in range(1, GATE_TRIES + 1):
        streamed = False
        try:
            async for event in providers.stream(seat.voice, messages):
                if isinstance(event, Chunk):
                    streamed = True
                    await sink.emit(VoteChunk(round_index, seat.key, event.text))
                elif isinstance(event, Retrying):
                    await sink.emit(VoteRetrying(round_index, seat.key, event.attempt, event.reason, event.discard))
                    streamed = streamed and not event.discard
                elif isinstance(event, Completion):
                    completion = event
        except ProviderError as error:
            attempts += [_attempt_dict(a) for a in error.attempts]
            return _result(
                seat,
                round_index,
                kind,
                "failed",
                error=error.message,
                attempts=attempts,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                cost=cost,
                started=started,
            )
        attempts += [_attempt_dict(a) for a in completion.attempts]
        tokens_in += completion.tokens_in
        tokens_out += completion.tokens_out
        cost += completion.cost
        reason = check(completion.text)
        if not reason:
            return _result(
                seat,
                round_index,
                kind,
                "done",
                text=completion.text,
                attempts=attempts,
                tokens_in=tokens_in,
                tokens_out=tokens_out,
                cost=cost,
                started=started,
                citations=completion.citations,
                estimated=completion.tokens_estimated,
                finish_reason=completion.finish_reason,
                flags=gates.flags(kind, completion.text),
            )
        if gate_try < GATE_TRIES:
            await sink.emit(VoteRetrying(round_index, seat.key, gate_try + 1, f"not an answer: {reason}", streamed))
    return _result(
        seat,
        round_index,
        kind,
        "gated",
        error=f"gated out after {GATE_TRIES} tries: {reason}",
        text=completion.text,
        attempts=attempts,
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        cost=cost,
        started=started,
    )


def _result(
    seat: Seat,
    round_index: int,
    kind: str,
    status: str,
    *,
    started: float,
    text: str = "",
    error: str = "",
    attempts: list[dict],
    tokens_in: int,
    tokens_out: int,
    cost: Decimal,
    citations: tuple[str, ...] = (),
    estimated: bool = False,
    finish_reason: str = "",
    flags: tuple[str, ...] = (),
) -> VoteResult:
    return VoteResult(
        round=round_index,
        seat=seat.key,
        label=seat.label,
        kind=kind,
        status=status,
        text=text,
        error=error,
        citations=tuple(citations),
        flags=flags,
        attempts=tuple(attempts),
        tokens_in=tokens_in,
        tokens_out=tokens_out,
        tokens_estimated=estimated,
        cost=cost,
        latency_ms=int((time.monotonic() - started) * 1000),
        finish_reason=finish_reason,
    )


async def finish(sink: Sink, result: VoteResult, replayed: bool = False) -> VoteResult:
    """Hand a result to the sink (which stores it) and return it."""
    await sink.emit(VoteFinished(result, replayed=replayed))
    return result
