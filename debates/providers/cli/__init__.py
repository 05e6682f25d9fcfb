"""The CLI wire: a voice whose provider is a command on this machine (docs/providers.md).

One call is one run of the CLI in its own scratch directory (``sandbox``), our prompt whole (the
system prompt in the CLI's own flag where it has one), its words read from its own event stream as
they come (each flavour's reader), its process group gone when the call ends however it ends. A CLI
that is not installed or not logged in fails before it starts, in words that say what to do; one
that exits non-zero, or prints a status line instead of an answer, fails with what it said.
"""

import os
from collections.abc import AsyncGenerator
from dataclasses import replace

from debates.providers.base import Chunk, Cited, Endpoint, Fault, Message, ProviderError, Usage, Voice
from debates.providers.cli import claude, codex, command, gemini, qwen
from debates.providers.cli.base import Call, Flavour, Login, conversation, given_key
from debates.providers.cli.sandbox import Process, Scratch, program

FLAVOURS: dict[str, Flavour] = {f.key: f for f in (claude.FLAVOUR, gemini.FLAVOUR, qwen.FLAVOUR, codex.FLAVOUR)}
COMMAND = command.FLAVOUR


def flavour_of(endpoint: Endpoint) -> Flavour:
    """The CLI an endpoint runs: its preset's, else any command."""
    return FLAVOURS.get(endpoint.cli, COMMAND)


def label_of(endpoint: Endpoint) -> str:
    flavour = flavour_of(endpoint)
    return endpoint.name if flavour is COMMAND else flavour.label


def program_of(endpoint: Endpoint) -> str:
    """The program the endpoint runs, by the name it is called (the provider's command's first word, else its CLI's)."""
    return endpoint.command[0] if endpoint.command else flavour_of(endpoint).program


def installed(endpoint: Endpoint) -> str:
    """The path of the program; ProviderError (UNAVAILABLE) when it is not installed."""
    flavour = flavour_of(endpoint)
    if not program_of(endpoint):
        raise ProviderError(Fault.BAD_REQUEST, f"{endpoint.name} names no command to run")
    return program(program_of(endpoint), label_of(endpoint), flavour.install)


def logged_in(endpoint: Endpoint) -> Login:
    """Whether the CLI is installed and can answer, read without a call (None: only a call can tell)."""
    try:
        installed(endpoint)
    except ProviderError as error:
        return Login(False, error.message)
    if unable := flavour_of(endpoint).unable():
        return Login(False, unable)
    found = flavour_of(endpoint).login(endpoint)
    if found.ready is False:
        return Login(False, not_logged_in(endpoint))
    if found.ready is None:
        return Login(None, found.said or f"{label_of(endpoint)} is installed; a test call tells whether it answers")
    return found


def not_logged_in(endpoint: Endpoint) -> str:
    name = program_of(endpoint)
    return (
        f"{label_of(endpoint)} is installed but not logged in: run `{name}` once in a terminal "
        "(or give the provider an API key)"
    )


async def attempt(
    voice: Voice, messages: list[Message], deadline: float
) -> AsyncGenerator[Chunk | Cited | Usage, None]:
    """One run of the CLI: its words as it streams them, then its usage, or a ProviderError in words."""
    endpoint = voice.endpoint
    flavour, label = flavour_of(endpoint), label_of(endpoint)
    path = installed(endpoint)
    if flavour.login(endpoint).ready is False:
        raise ProviderError(Fault.AUTH, not_logged_in(endpoint))
    system, prompt, parts = conversation(messages)
    scratch = Scratch.make()
    try:
        files = tuple(scratch.place(part.name, part.data) for part in parts)
        invocation = flavour.invocation(Call(voice, system, prompt, files), scratch)
        passed = {name: os.environ[name] for name in flavour.passes if name in os.environ}
        own = passed | given_key(endpoint, flavour.key_variable) | dict(invocation.env)
        invocation = replace(invocation, argv=(path, *invocation.argv), env=own)
        reader = flavour.reader(label)
        async with Process(label, invocation, scratch) as process:
            async for data in process.output(deadline, endpoint.stall_timeout, endpoint.total_timeout):
                for item in reader.feed(data):
                    yield item
            status = await process.exit_status(deadline)
        for item in reader.end(status, process.stderr):
            yield item
    finally:
        scratch.remove()


__all__ = ["COMMAND", "FLAVOURS", "Flavour", "Login", "attempt", "flavour_of", "installed", "logged_in"]
