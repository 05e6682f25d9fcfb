"""Small helpers for the provider tests: run a stream to its end and keep what it said."""

from debates.providers import stream
from debates.providers.base import Chunk, Completion, Message, ProviderError, Retrying, StreamEvent, Voice

QUESTION = [Message("system", "Answer in one line."), Message("user", "What is six times seven?")]
WIRES = ["openai", "responses", "anthropic", "gemini"]


async def collect(voice: Voice, messages: list[Message] = QUESTION) -> list[StreamEvent]:
    return [event async for event in stream(voice, messages)]


async def failure(voice: Voice, messages: list[Message] = QUESTION) -> tuple[ProviderError, list[StreamEvent]]:
    """The ProviderError a call ends with, and the events it yielded before."""
    events: list[StreamEvent] = []
    try:
        async for event in stream(voice, messages):
            events.append(event)
    except ProviderError as error:
        return error, events
    raise AssertionError(f"the call succeeded: {events[-1]}")


def text_of(events: list[StreamEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, Chunk))


def completion(events: list[StreamEvent]) -> Completion:
    (last,) = [e for e in events if isinstance(e, Completion)]
    assert events[-1] is last
    return last


def retries(events: list[StreamEvent]) -> list[Retrying]:
    return [e for e in events if isinstance(e, Retrying)]


class Context:
    """Stands in for a llama.cpp context (not for our code): records the threads it is told to use."""

    def __init__(self) -> None:
        self.threads: list[tuple[int, int]] = []  # (writing, reading a prompt), a pair per generation

    def set_n_threads(self, n_threads: int, n_threads_batch: int) -> None:
        self.threads.append((n_threads, n_threads_batch))
