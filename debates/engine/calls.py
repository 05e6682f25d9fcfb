"""One voice, one step: stream the call to the sink, gate the result, return a ContributionResult.

A call never raises for a provider failure: failing is a result (Outcome.FAILED), kept on
the contribution with every attempt, so the protocol's failure policy can decide what happens next.
"""

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from debates import providers
from debates.engine import traced
from debates.engine.events import (
    ContributionChunk,
    ContributionCited,
    ContributionFinished,
    ContributionQueued,
    ContributionResult,
    ContributionRetrying,
    ContributionStarted,
    Meter,
    Sink,
)
from debates.engine.reading import gates
from debates.engine.spec import Seat
from debates.engine.vocabulary import Outcome, StepKind
from debates.providers.base import (
    Attempt,
    Chunk,
    Cited,
    Completion,
    Message,
    ProviderError,
    Queued,
    Retrying,
    Source,
    Spent,
    Started,
)

# A gated answer is asked again once: two failures and the voice is out.
GATE_TRIES = 2
TRUNCATED = "truncated: cut off by the token limit ({limit} tokens), so the text is incomplete"


@dataclass
class Tally:
    """What every try of one contribution cost, summed over provider and gate retries, and the text
    of the try under way: a call stopped before it completes keeps both."""

    seat: Seat
    round: int
    kind: StepKind
    messages: list[Message]
    started: float = field(default_factory=time.monotonic)
    attempts: list[dict[str, Any]] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    estimated: bool = False
    cost: Decimal = Decimal("0")
    searches: int = 0  # web searches billed, every try's
    queued_ms: int = 0  # waiting for a shared model: not the voice's latency
    partial: str = ""  # what the try under way has streamed
    first_words: float | None = None  # when the first words of any try came (time.monotonic)
    cited: list[Source] = field(default_factory=list)  # the sources it has named so far

    def add(self, attempts: tuple[Attempt, ...], completion: Completion | None = None) -> None:
        self.attempts += [
            {"number": a.number, "latency_ms": a.latency_ms, "error": a.error, "fault": a.fault}
            | ({"queued_ms": a.queued_ms} if a.queued_ms else {})
            for a in attempts
        ]
        if completion is not None:
            self.spend(Spent(completion.tokens_in, completion.tokens_out, completion.tokens_estimated, completion.cost))
            self.searches += completion.searches

    def spend(self, spent: Spent) -> None:
        self.tokens_in += spent.tokens_in
        self.tokens_out += spent.tokens_out
        self.estimated = self.estimated or spent.estimated
        self.cost += spent.cost
        self.partial = ""
        self.cited = []

    @property
    def on_subscription(self) -> bool:
        """A CLI voice that spent tokens at no cost: its CLI's login (a plan) paid, not a price."""
        return self.seat.voice.endpoint.wire == "cli" and not self.cost and self.tokens_in + self.tokens_out > 0

    def result(self, status: Outcome, **fields: Any) -> ContributionResult:
        return ContributionResult(
            round=self.round,
            seat=self.seat.key,
            label=self.seat.label,
            kind=self.kind,
            status=status,
            attempts=tuple(self.attempts),
            tokens_in=self.tokens_in,
            tokens_out=self.tokens_out,
            tokens_estimated=self.estimated,
            cost=self.cost,
            on_subscription=self.on_subscription,
            searches=self.searches,
            latency_ms=max(int((time.monotonic() - self.started) * 1000) - self.queued_ms, 0),
            first_token_ms=None
            if self.first_words is None
            else max(int((self.first_words - self.started) * 1000) - self.queued_ms, 0),
            **fields,
        )

    def stopped(self, why: str) -> ContributionResult:
        """The call as it stood when it was stopped: its text so far, and what that text cost (estimated:
        usage comes at a stream's end)."""
        text, cited = self.partial, tuple(self.cited)
        if text:
            self.spend(providers.spend(self.seat.voice, self.messages, text, None))
        return self.result(Outcome.CANCELLED, text=text, error=why, sources=cited)


async def call(
    sink: Sink,
    tally: Tally,
    check: Callable[[str], str],
    ask_again: Callable[[str], str] = lambda _text: "",
) -> ContributionResult:
    """Run one contribution, keeping ``tally`` up to date; ``check(text)`` says why the text is not
    acceptable, or "". A span of its own (engine.traced), cancelled or not.

    ``ask_again(text)`` says why a text is worth asking for once more (a ballot naming none of the
    options): the voice is asked again, and what it says the second time is kept.
    """
    with traced.chat(tally.seat.voice, tally.kind, tally.messages) as span:
        result = await _called(sink, tally, check, ask_again)
        traced.answered(span, result)
        return result


async def _called(
    sink: Sink, tally: Tally, check: Callable[[str], str], ask_again: Callable[[str], str]
) -> ContributionResult:
    seat, round_index, kind = tally.seat, tally.round, tally.kind
    prompt = providers.estimate_tokens(sum(len(m.content) for m in tally.messages))
    meter = Meter(prompt, seat.voice.price_in, seat.voice.price_out)
    started = ContributionStarted(round_index, seat.key, seat.label, kind, meter, seat.voice.search)
    await sink.emit(started)
    for gate_try in range(1, GATE_TRIES + 1):
        streamed = False
        try:
            async for event in providers.stream(seat.voice, tally.messages):
                if isinstance(event, Chunk):
                    streamed = True
                    if tally.first_words is None:
                        tally.first_words = time.monotonic()
                    tally.partial += event.text
                    await sink.emit(ContributionChunk(round_index, seat.key, event.text))
                elif isinstance(event, Cited):
                    tally.cited += event.sources
                    await sink.emit(ContributionCited(round_index, seat.key, event.sources))
                elif isinstance(event, Retrying):
                    tally.spend(event.spent)
                    await sink.emit(
                        ContributionRetrying(round_index, seat.key, event.attempt, event.reason, event.discard)
                    )
                    streamed = streamed and not event.discard
                elif isinstance(event, Completion):
                    completion = event
                elif isinstance(event, Queued):
                    await sink.emit(ContributionQueued(round_index, seat.key, event.position, event.of))
                elif isinstance(event, Started):
                    tally.queued_ms += event.queued_ms
                    await sink.emit(started)
        except ProviderError as error:
            tally.add(error.attempts)
            tally.spend(error.spent)
            return tally.result(Outcome.FAILED, error=error.message)
        tally.add(completion.attempts, completion)
        reason = check(completion.text) or (ask_again(completion.text) if gate_try < GATE_TRIES else "")
        if not reason:
            cut = (TRUNCATED.format(limit=seat.voice.max_tokens),) if completion.finish_reason == "length" else ()
            return tally.result(
                Outcome.DONE,
                text=completion.text,
                sources=completion.sources,
                finish_reason=completion.finish_reason,
                flags=(*gates.flags(kind, completion.text), *cut),
                thought=completion.thought,
            )
        if gate_try < GATE_TRIES:
            await sink.emit(
                ContributionRetrying(round_index, seat.key, gate_try + 1, f"not an answer: {reason}", streamed)
            )
    return tally.result(Outcome.GATED, text=completion.text, error=f"gated out after {GATE_TRIES} tries: {reason}")


async def finish(sink: Sink, result: ContributionResult, replayed: bool = False) -> ContributionResult:
    """Hand a result to the sink (which stores it) and return it."""
    await sink.emit(ContributionFinished(result, replayed=replayed))
    return result
