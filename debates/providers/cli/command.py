"""Any command that reads a prompt and prints an answer (``llm``, ``ollama run llama3``, ``aichat``…).

The provider's command is split as a shell would (no shell runs it); ``{prompt}`` and ``{system}`` in
its arguments become the step's prompt and our system prompt. Without ``{prompt}``, the prompt (after
the system prompt, when no ``{system}`` takes it) goes on standard input, which is then closed. What
it prints on standard output is the answer, as it comes; its tokens are estimated from the text.
"""

import codecs
import shlex

from debates.providers.base import Endpoint, Fault, ProviderError
from debates.providers.cli.base import Call, Flavour, Item, Login, Reader, notes_file
from debates.providers.cli.sandbox import Invocation, Scratch

PROMPT, SYSTEM = "{prompt}", "{system}"


def argv(endpoint: Endpoint) -> tuple[str, ...]:
    """The provider's command as arguments, or a ProviderError when it names none."""
    if not endpoint.command:
        raise ProviderError(Fault.BAD_REQUEST, f"{endpoint.name} names no command to run")
    return endpoint.command


def split(command: str) -> tuple[str, ...]:
    """A command line as its arguments (quotes as a shell reads them); ValueError when they do not close."""
    return tuple(shlex.split(command))


def invocation(call: Call, scratch: Scratch) -> Invocation:
    words = argv(call.endpoint)[1:]  # the program itself is resolved apart (sandbox.program)
    prompt = call.prompt + notes_file(call)
    placed = [w.replace(PROMPT, prompt).replace(SYSTEM, call.system) for w in words]
    if any(PROMPT in w for w in words):
        return Invocation(tuple(placed))
    told = prompt if any(SYSTEM in w for w in words) or not call.system else f"{call.system}\n\n{prompt}"
    return Invocation(tuple(placed), stdin=told)


class Text(Reader):
    """Standard output, decoded as it comes (a character split between two reads waits for its end)."""

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def feed(self, data: bytes) -> list[Item]:
        return self.chunk(self._decoder.decode(data))

    def end(self, status: int, stderr: str) -> list[Item]:
        rest = self.chunk(self._decoder.decode(b"", final=True))
        return rest + super().end(status, stderr)


def login(endpoint: Endpoint) -> Login:
    return Login(None, "")


FLAVOUR = Flavour(
    key="command",
    label="The command",
    program="",
    install="",
    family="",
    model="default",
    models=("default",),
    invocation=invocation,
    reader=Text,
    login=login,
)
