"""Each wire × each fault: the right Fault, words a user can act on, and retries only when they help."""

import asyncio
import base64
import socket
from urllib.parse import quote

import pytest

from debates.providers import check, stream
from debates.providers.base import TRANSIENT, Fault, ProviderError
from debates.providers.secrecy import Secret
from tests.fakes.provider_server import Script
from tests.providers.helpers import WIRES, collect, completion, failure, retries, text_of

STATUS_FAULTS = [
    (Script(status=401, error="invalid x-api-key"), Fault.AUTH, "rejected the key (401): invalid x-api-key"),
    (Script(status=403), Fault.AUTH, "rejected the key (403)"),
    (Script(status=400, error="model: nope-1 not found"), Fault.BAD_REQUEST, "(400): model: nope-1 not found"),
    (Script(status=404, error="The model does not exist"), Fault.BAD_REQUEST, "(404): The model does not exist"),
    (Script(status=429, retry_after="0.05"), Fault.RATE_LIMITED, "rate limiting us (429, retry after 0.05s)"),
    (Script(status=503), Fault.OVERLOADED, "is overloaded (503)"),
    (Script(status=529), Fault.OVERLOADED, "is overloaded (529)"),
    (Script(status=500), Fault.SERVER, "server error (500)"),
]
STREAM_FAULTS = [
    (Script(fault="hang"), Fault.STALL, "stalled: nothing for 0.3s before answering"),
    (Script(fault="stall", after_chunks=2), Fault.STALL, "stalled: nothing for 0.3s mid-answer"),
    (Script(fault="drop", after_chunks=2), Fault.DROPPED, "dropped mid-answer"),
    (Script(fault="malformed"), Fault.MALFORMED, "malformed stream (unexpected line"),
    (Script(fault="invalid_json"), Fault.MALFORMED, "malformed stream (invalid JSON"),
    (Script(fault="empty"), Fault.EMPTY, "returned an empty answer"),
    (Script(fault="error_event", after_chunks=2), Fault.OVERLOADED, "is overloaded (529): Overloaded"),
]


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(("script", "fault", "words"), STATUS_FAULTS + STREAM_FAULTS)
async def test_fault_is_named_and_retried_only_when_transient(fake_provider, wire, script, fault, words):
    fake_provider.script("m", script)
    voice = fake_provider.voice(wire, "m", max_retries=1, stall_timeout=0.3)
    error, events = await failure(voice)
    assert error.fault == fault
    if wire == "responses" and script.fault == "error_event":  # OpenAI names an overload by its code: a 503
        words = words.replace("overloaded (529)", "overloaded (503)")
    assert words in error.message
    assert error.message.startswith(f"Fake {wire}") or error.message.startswith("The connection to")
    tries = 2 if fault in TRANSIENT else 1
    assert len(fake_provider.requests) == tries
    assert [a.number for a in error.attempts] == list(range(1, tries + 1))
    assert all(a.fault == fault and a.error == error.message for a in error.attempts)
    assert len(retries(events)) == tries - 1


async def test_gemini_blocked_prompt_is_reported_and_not_retried(fake_provider):
    fake_provider.script("m", Script(fault="blocked", after_chunks=0))
    error, _ = await failure(fake_provider.voice("gemini", "m", max_retries=2))
    assert error.fault == Fault.BLOCKED
    assert error.message == "Fake gemini blocked the prompt (SAFETY)"
    assert len(fake_provider.requests) == 1


@pytest.mark.parametrize("wire", WIRES)
async def test_fail_twice_then_succeed_records_every_attempt(fake_provider, wire):
    fake_provider.script("m", Script(status=503), Script(status=500), "third time lucky")
    events = await collect(fake_provider.voice(wire, "m", max_retries=2))
    done = completion(events)
    assert done.text == "third time lucky"
    assert [(a.number, a.fault) for a in done.attempts] == [(1, "overloaded"), (2, "server"), (3, "")]
    assert [(r.attempt, r.discard) for r in retries(events)] == [(2, False), (3, False)]


@pytest.mark.parametrize("wire", WIRES)
async def test_retries_stop_at_max_retries(fake_provider, wire):
    fake_provider.script("m", Script(status=500))
    error, _ = await failure(fake_provider.voice(wire, "m", max_retries=3))
    assert len(error.attempts) == len(fake_provider.requests) == 4


@pytest.mark.parametrize("wire", WIRES)
async def test_retry_after_is_honoured(fake_provider, wire):
    fake_provider.script("m", Script(status=429, retry_after="0.3"), "after the wait")
    events = await collect(fake_provider.voice(wire, "m"))
    assert len(retries(events)) == 1
    first, second = fake_provider.requests
    assert second.at - first.at >= 0.3


async def test_retry_after_is_capped(fake_provider, fast_retries):
    fake_provider.script("m", Script(status=429, retry_after="3600"), "ok")
    events = await collect(fake_provider.voice("openai", "m"))  # an hour's wait would outlast the call
    assert completion(events).text == "ok"
    first, second = fake_provider.requests
    assert second.at - first.at >= fast_retries.retry_after_cap


@pytest.mark.parametrize("wire", WIRES)
async def test_a_retry_after_streamed_text_tells_the_consumer_to_discard_it(fake_provider, wire):
    fake_provider.script("m", Script(answer="half an answer that", fault="drop", after_chunks=2), "whole answer")
    events = await collect(fake_provider.voice(wire, "m"))
    (retry,) = retries(events)
    assert retry.discard is True
    before = events[: events.index(retry)]
    assert text_of(before) == "half an"
    assert completion(events).text == "whole answer"  # never "half an" + "whole answer"


@pytest.mark.parametrize("wire", WIRES)
async def test_total_timeout_ends_the_call_without_retrying(fake_provider, wire):
    fake_provider.script("m", Script(answer="slow " * 100, tokens_per_second=20))
    # Long enough for the request to reach the server on a loaded machine; far shorter than the answer.
    voice = fake_provider.voice(wire, "m", total_timeout=1.5, stall_timeout=5, max_retries=2)
    error, _ = await failure(voice)
    assert error.fault == Fault.TIMEOUT
    assert error.message == f"Fake {wire} did not finish within 1.5s"
    assert len(fake_provider.requests) == 1


async def test_connection_refused_is_reported_with_the_address(fake_provider):
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    voice = fake_provider.voice("anthropic", base_url=f"http://127.0.0.1:{port}", max_retries=1)
    error, _events = await failure(voice)
    assert error.fault == Fault.CONNECT
    assert error.message == f"Could not connect to Fake anthropic at http://127.0.0.1:{port} (connection refused)"
    assert len(error.attempts) == 2


async def test_connect_timeout_is_reported(fake_provider):
    error, _ = await failure(fake_provider.voice("openai", connect_timeout=1e-9, max_retries=0))
    assert error.fault == Fault.CONNECT_TIMEOUT
    assert error.message == "Could not connect to Fake openai within 1e-09s"


async def test_closing_the_stream_early_cancels_the_http_request(fake_provider):
    fake_provider.script("m", Script(answer="word " * 1000, tokens_per_second=50))
    events = stream(fake_provider.voice("openai", "m"), [])
    assert (await anext(events)).text == "word"
    assert fake_provider.in_flight == 1
    await events.aclose()
    for _ in range(200):
        if fake_provider.in_flight == 0:
            break
        await asyncio.sleep(0.01)
    assert fake_provider.in_flight == 0


KEY = "sk-proj-Zq8VtR2mXk41LpW9sYb7NcE3"
# The key as servers have echoed it encoded: in an Authorization header's value, or in a URL.
ENCODED = {
    "base64": base64.b64encode(KEY.encode()).decode(),
    "base64 of Bearer": base64.b64encode(f"Bearer {KEY}".encode()).decode(),
    "basic auth": base64.b64encode(f"user:{KEY}".encode()).decode(),
    "basic auth, no user": base64.b64encode(f":{KEY}".encode()).decode(),
    "url-safe base64": base64.urlsafe_b64encode(f"api:{KEY}".encode()).decode(),
    "percent-encoded": "".join(f"%{byte:02x}" for byte in KEY.encode()),
    "query string": quote(f"{KEY}/+=", safe=""),
    "hex": KEY.encode().hex(),
    "HEX": KEY.encode().hex().upper(),
    "in fours": " ".join(KEY[i : i + 4] for i in range(0, len(KEY), 4)),
    "reversed": KEY[::-1],
}


def echoes(text: str) -> list[Script]:
    """Each way a server can send an error that quotes the key: an HTTP error body or a mid-stream event."""
    return [Script(status=401, error=text), Script(status=500, error=text), Script(fault="error_event", error=text)]


@pytest.mark.parametrize("wire", WIRES)
@pytest.mark.parametrize(
    "echoed",
    [
        f"Incorrect API key provided: {KEY}.",  # the whole key
        f"Incorrect API key provided: {KEY[:14]}…",  # a truncated key
        f"key={KEY[5:]} is not valid for this project",  # a key without its prefix
        *(f"Invalid credentials {encoded}" for encoded in ENCODED.values()),
    ],
    ids=[*("whole", "truncated", "unprefixed"), *ENCODED],
)
async def test_the_key_never_leaks_through_an_error_message(fake_provider, wire, echoed):
    for script in echoes(echoed):
        fake_provider.reset()
        fake_provider.script("m", script)
        error, events = await failure(fake_provider.voice(wire, "m", api_key=KEY, max_retries=1))
        said = [error.message, str(error), *(a.error for a in error.attempts), *(r.reason for r in retries(events))]
        for text in said:
            assert "[key removed]" in text
            assert not any(KEY[i : i + 8] in text for i in range(len(KEY) - 7)), text
            assert not any(encoded[i : i + 16] in text for encoded in ENCODED.values() for i in range(6, 20)), text


@pytest.mark.parametrize("wire", WIRES)
async def test_a_failed_attempt_that_echoed_the_key_leaves_no_trace_in_a_successful_call(fake_provider, wire):
    fake_provider.script("m", Script(status=503, error=f"upstream rejected {KEY}"), "fine")
    events = await collect(fake_provider.voice(wire, "m", api_key=KEY))
    first = completion(events).attempts[0]
    assert first.error.endswith("upstream rejected [key removed]")
    assert KEY not in retries(events)[0].reason


async def test_the_connection_check_removes_the_key_too(fake_provider):
    fake_provider.script("m", Script(status=401, error=f"bad key {KEY}"))
    with pytest.raises(ProviderError) as caught:
        await check(fake_provider.voice("openai", "m", api_key=KEY))
    assert caught.value.message.endswith("bad key [key removed]")
    assert KEY not in caught.value.attempts[0].error


@pytest.mark.parametrize(
    ("text", "secret", "expected"),
    [
        ("key sk-abcdefghijkl here", "sk-abcdefghijkl", "key [key removed] here"),
        ("key abcdefgh… here", "sk-abcdefghijkl", "key [key removed]… here"),
        ("a 7-char piece abcdefg stays", "sk-abcdefghijkl", "a 7-char piece abcdefg stays"),
        ("twice: sk-abcdefghijkl and ghijkl-sk-abcd", "sk-abcdefghijkl", "twice: [key removed] and ghijkl-sk-abcd"),
        ("short key ollama stays visible? ollama", "ollama", "short key [key removed] stays visible? [key removed]"),
        ("no key at all", "", "no key at all"),
        ("a 3-char key abc is no secret", "abc", "a 3-char key abc is no secret"),
    ],
)
def test_redact_removes_the_key_and_every_long_piece_of_it(text, secret, expected):
    assert Secret(secret).redact(text) == expected
