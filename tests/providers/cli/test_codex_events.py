"""Codex's ``codex exec --json`` events, read as its documentation lists them (thread.started,
turn.started, item.started / updated / completed, turn.completed with usage, turn.failed, error).

Its end to end test, through the fake's Responses API, is in test_clis.py."""

import json
from pathlib import Path

import pytest

from debates.providers.base import Chunk, Fault, ProviderError, Usage
from debates.providers.cli import codex


def lines(*events: dict) -> bytes:
    return b"".join(json.dumps(event).encode() + b"\n" for event in events)


def read(data: bytes, status: int = 0) -> list:
    reader = codex.Stream("Codex")
    # Fed in two pieces cut mid-line, as a pipe may hand them over.
    middle = len(data) // 2
    return reader.feed(data[:middle]) + reader.feed(data[middle:]) + reader.end(status, "")


def test_an_agent_messages_text_is_streamed_as_it_grows_and_the_turns_usage_counted():
    items = read(
        lines(
            {"type": "thread.started", "thread_id": "th_1"},
            {"type": "turn.started"},
            {"type": "item.started", "item": {"id": "item_0", "type": "reasoning", "text": "**Thinking**"}},
            {"type": "item.started", "item": {"id": "item_1", "type": "agent_message", "text": ""}},
            {"type": "item.updated", "item": {"id": "item_1", "type": "agent_message", "text": "Seven is"}},
            {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "Seven is prime."}},
            {"type": "turn.completed", "usage": {"input_tokens": 120, "cached_input_tokens": 0, "output_tokens": 5}},
        )
    )
    assert [i.text for i in items if isinstance(i, Chunk)] == ["Seven is", " prime."]
    assert [i for i in items if isinstance(i, Usage)] == [Usage(120, 5, "stop")]


def test_a_second_agent_message_is_a_paragraph_of_its_own():
    items = read(
        lines(
            {"type": "item.completed", "item": {"id": "item_1", "type": "agent_message", "text": "First."}},
            {"type": "item.completed", "item": {"id": "item_2", "type": "agent_message", "text": "Second."}},
        )
    )
    assert "".join(i.text for i in items if isinstance(i, Chunk)) == "First.\n\nSecond."


def test_a_failed_turn_is_a_failure_in_its_words_a_usage_limit_told_as_such():
    said = "You've hit your usage limit. Try again at 3:05 PM."
    with pytest.raises(ProviderError) as failed:
        read(lines({"type": "turn.started"}, {"type": "turn.failed", "error": {"message": said}}), status=1)
    assert failed.value.fault == Fault.USAGE_LIMIT
    assert "it resets at 3:05 PM" in failed.value.message


def test_a_command_it_tried_is_no_answer():
    items = read(
        lines(
            {
                "type": "item.completed",
                "item": {"id": "i", "type": "command_execution", "command": "touch x", "status": "failed"},
            },
            {"type": "item.completed", "item": {"id": "j", "type": "agent_message", "text": "I cannot run commands."}},
        )
    )
    assert "".join(i.text for i in items if isinstance(i, Chunk)) == "I cannot run commands."


def test_the_invocation_disables_its_shell_and_points_it_at_a_responses_provider(tmp_path):
    from debates.providers.base import Endpoint, Voice
    from debates.providers.cli.base import Call
    from debates.providers.cli.sandbox import Scratch

    endpoint = Endpoint(name="Codex", wire="cli", cli="codex", base_url="http://127.0.0.1:9/v1")
    call = Call(Voice(name="c", model="gpt-5-codex", endpoint=endpoint), "You are a panelist.", "Is 7 prime?")
    argv = codex.invocation(call, Scratch(tmp_path)).argv
    assert "--disable=shell_tool" in argv
    assert argv[argv.index("--sandbox") : argv.index("--sandbox") + 2] == ("--sandbox", "read-only")
    assert 'model_providers.teorema.wire_api="responses"' in argv
    assert 'developer_instructions="You are a panelist."' in argv
    assert argv[-2:] == ("--", "Is 7 prime?")


# What Codex 0.169.0 printed here against the fake before the fake spoke the Responses API.
RECORDED = (Path(__file__).parent / "codex_failed_turn.jsonl").read_bytes()


def test_its_warnings_are_no_failure_and_its_failed_turn_is():
    with pytest.raises(ProviderError) as failed:
        read(RECORDED, status=1)
    assert failed.value.message == "Codex failed: unexpected status 404 Not Found: no route /v1/responses"
