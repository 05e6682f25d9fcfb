"""Teorema as an MCP server (the official ``mcp`` SDK): a desktop assistant or an IDE agent asks the
panel, follows it up, reads or cancels a question, lists the panels, judges a verdict, checks the
setup. Every tool is the service's; this module only words it for MCP.

Two transports: stdio (``manage.py mcp --user NAME``, for a client's config file) and Streamable
HTTP at ``/mcp`` in the web server (``http``), where each request carries an API token and a tool
sees only what the token's user may see. While a debate runs, a client that sent a progress token
gets a notification per phase and per voice; one that sent none is answered within
MCP_WAIT_SECONDS, still running, with how to follow. Over stdio a file may be named by its path
(the server's disk is the asker's own). A call that ends early (the client's timeout, its cancel,
a dropped connection) stops the waiting, never the debate: ``cancel_question`` cancels, as the
page's button does, for the asker alone.

Arguments are checked here before the SDK reads them: an unknown one, or one of the wrong JSON
type, is refused in Teorema's words (the SDK would ignore the first and word the second in
pydantic's).
"""

import asyncio
import contextlib
import contextvars
from collections.abc import Callable
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from debates import represent, service
from debates.attachments import check as files
from debates.engine.vocabulary import DebateMode, Held, StepKind
from debates.live import story
from debates.live.watch import Ended, Phase, RoundOpened, Spoken, watch
from debates.models import FINISHED, Criticality, Source
from debates.refusal import Refused

INSTRUCTIONS = """Teorema puts a hard question to a panel of language models from different
providers: they answer blind, read each other's answers anonymised and attack them, and a
moderator returns the verdict with its confidence, the agreement and the dissent. Use ask_panel
for a question worth several minds (a design decision, a diagnosis, a claim to check); it takes
minutes, with progress. list_panels says which panels can run now."""

# The user a stdio server acts for (its command's --user); over HTTP, each request's token says.
stdio_user: contextvars.ContextVar[AbstractBaseUser | None] = contextvars.ContextVar("stdio_user", default=None)

QuestionText = Annotated[str, Field(description="The question for the panel, as you would ask an expert.")]
QuestionId = Annotated[int, Field(description="A question's number (ask_panel returns it).")]
Files = Annotated[
    list[dict[str, str]],
    Field(
        description='Files for the panel to read, each {"name": "report.pdf", "media_type": "application/pdf", '
        '"data": "<base64>"}, the data base64 or a data: URI ("data:application/pdf;base64,..."); over stdio '
        'also {"path": "/abs/path/report.pdf"}, read from this machine\'s disk. PDF, DOCX, text, Markdown, '
        "code, CSV/TSV, JSON, PNG, JPEG, WebP or GIF. Each voice reads them natively where its model can, "
        "else as text."
    ),
]
Wait = Annotated[
    bool,
    Field(
        description="Wait for the verdict (minutes, with progress). A call that asks for no progress returns "
        "within a bound (45 s by default) with the question's id while the run goes on: then call get_question "
        "with wait. False: returns at once with the question's id."
    ),
]


class Teorema(MCPServer):
    """The SDK's server, with each tool's arguments checked in Teorema's words first."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context | None = None
    ) -> Any:  # the SDK's own result type
        tool = self._tool_manager.get_tool(name)
        if tool is not None and (wrong := argument_errors(name, tool.parameters, arguments)):
            raise ToolError(wrong)
        return await super().call_tool(name, arguments, context)


server = Teorema(name="teorema", title="Teorema", instructions=INSTRUCTIONS)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
async def ask_panel(
    question: QuestionText,
    ctx: Context,
    context: Annotated[str, Field(description="What the panel should know: code, figures, constraints.")] = "",
    panel: Annotated[str, Field(description="A panel's slug (list_panels); empty: the default panel.")] = "",
    criticality: Annotated[
        Literal["", *Criticality],  # type: ignore[valid-type]
        Field(description="How much is at stake: more voices and rounds when higher; empty: the panel's."),
    ] = "",
    debate: Annotated[
        Literal["", *DebateMode],  # type: ignore[valid-type]
        Field(description="on_dissent skips the debate when the blind answers agree; empty: the panel's."),
    ] = "",
    options: Annotated[
        list[str], Field(description="For a decision: the options the voices must choose from (two or more).")
    ] = [],  # noqa: B006 (the SDK copies a default into each call's arguments)
    deadline: Annotated[
        int | None, Field(description="Answer within this many seconds (20-3600); late voices are cut, and said so.")
    ] = None,
    max_cost: Annotated[
        float | None,
        Field(
            description="Spend at most this many dollars (0.01-1000): refused when the run is expected to cost "
            "more; a run that spends faster stops before the round that would pass it, and says so."
        ),
    ] = None,
    search: Annotated[
        bool,
        Field(
            description="Voices whose panelist may search the web do so, and cite what they found (billed per "
            "search); false: every answer rests on what the models know."
        ),
    ] = True,
    attachments: Files = [],  # noqa: B006 (the SDK copies a default into each call's arguments)
    wait: Wait = True,
) -> CallToolResult:
    """Ask Teorema's panel a question: blind answers, an anonymised debate, a moderator's verdict.
    Returns the verdict, its confidence, the agreement, the dissent in short, the cost and the page's URL."""
    fields = {"text": question, "context": context, "panel": panel, "criticality": criticality}
    fields |= {"debate": debate, "options": options, "deadline": deadline, "max_cost": max_cost, "search": search}
    user = await user_of(ctx)
    asked = await refusing(
        lambda: service.ask(user, source=Source.MCP, attachments=uploads(ctx, attachments), **fields)
    )
    return await answered(ctx, user, asked.pk) if wait else await result(ctx, user, asked.pk)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
async def follow_up(
    question_id: QuestionId,
    question: QuestionText,
    ctx: Context,
    context: Annotated[str, Field(description="Anything new the panel should know.")] = "",
    attachments: Files = [],  # noqa: B006
    wait: Wait = True,
) -> CallToolResult:
    """Ask a follow-up of an earlier question: the panel gets its verdict and the disputed points, and
    reads the earlier question's files beside any new ones."""
    user = await user_of(ctx)
    asked = await refusing(
        lambda: service.follow_up(
            user,
            question_id,
            source=Source.MCP,
            text=question,
            context=context,
            attachments=uploads(ctx, attachments),
        )
    )
    return await answered(ctx, user, asked.pk) if wait else await result(ctx, user, asked.pk)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def get_question(question_id: QuestionId, ctx: Context, wait: Wait = False) -> CallToolResult:
    """A question's verdict, confidence, agreement, dissent, cost and URL; with wait, once its run ends."""
    user = await user_of(ctx)
    await refusing(service.visible, user, question_id)
    return await answered(ctx, user, question_id) if wait else await result(ctx, user, question_id)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, destructive_hint=True, idempotent_hint=True))
async def cancel_question(question_id: QuestionId, ctx: Context) -> CallToolResult:
    """Stop a running debate (its asker only); each voice keeps what it had written. A call that
    ends early never stops a debate: this is the one way to."""
    user = await user_of(ctx)
    stopped = await refusing(service.cancel, user, question_id)
    said = "Cancelling: the panel stops after the calls in flight." if stopped else "It had already finished."
    found = await refusing(service.summary, user, question_id, base_of(ctx))
    return CallToolResult(content=[TextContent(text=f"{said}\n\n{in_words(found)}")], structured_content=found)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def list_panels(ctx: Context) -> CallToolResult:
    """The panels, whether each can run now (and why not), its voices, and a run's time and cost as
    estimated before it starts: low (fewest calls), expected, high (every escalation)."""
    await user_of(ctx)
    found = await sync_to_async(service.panels)()
    lines = [
        f"- {p['slug']}{' (default)' if p['default'] else ''}: {p['name']} · {p['protocol']} · {p['voices']} voices "
        f"({', '.join(p['families'])}) · ~{p['estimated_seconds']} s, {cost_range(p['estimate'])} · "
        + ("can run" if p["runnable"] else "cannot run: " + "; ".join(p["problems"]))
        for p in found
    ]
    return CallToolResult(
        content=[TextContent(text="\n".join(lines) or "No panels: run `manage.py bootstrap`.")],
        structured_content={"panels": found},
    )


def cost_range(estimate: dict) -> str:
    """A run's estimate in a line: the expected, and the fewest calls' to every escalation's."""
    return f"~${estimate['expected']} (${estimate['low']}–${estimate['high']})"


@server.tool(annotations=ToolAnnotations(read_only_hint=False, idempotent_hint=True))
async def record_outcome(
    question_id: QuestionId,
    outcome: Annotated[
        Literal[*Held],  # type: ignore[valid-type]
        Field(description="Whether the verdict turned out right, wrong or partly right."),
    ],
    ctx: Context,
    note: Annotated[str, Field(description="What happened, for the track record.")] = "",
) -> CallToolResult:
    """Record whether a finished question's verdict turned out right (it feeds each model's track record)."""
    user = await user_of(ctx)
    recorded = await refusing(service.outcome, user, question_id, value=outcome, note=note)
    return CallToolResult(
        content=[TextContent(text=f"Recorded: question {question_id}'s verdict was {recorded['outcome']}.")],
        structured_content=recorded,
    )


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True))
async def health(
    ctx: Context,
    probe: Annotated[
        bool,
        Field(
            description="Also ask each provider whether it answers (staff only; the answer is kept a minute "
            "and costs at most a one-token ping)."
        ),
    ] = True,
) -> CallToolResult:
    """Whether Teorema can answer now: the keys each provider has, whether a provider answers, and each panel's time."""
    user = await user_of(ctx)
    report = await service.health(user, probe=probe)
    lines = ["Teorema can answer." if report["ok"] else "Teorema cannot answer now."]
    if report["note"]:
        lines.append(report["note"])
    for entry in report["providers"]:
        state = "" if "reachable" not in entry else (" · answers" if entry["reachable"] else " · does not answer")
        lines.append(f"- {entry['name']}: key {entry['key']}{state}{': ' + entry['said'] if entry.get('said') else ''}")
    for p in report["panels"]:
        lines.append(f"- panel {p['slug']}: ~{p['estimated_seconds']} s" + ("" if p["runnable"] else " (cannot run)"))
    return CallToolResult(content=[TextContent(text="\n".join(lines))], structured_content=report)


async def user_of(ctx: Context) -> AbstractBaseUser:
    """Who is asking: the stdio server's user, else the one ``http`` found for the request's bearer
    (an API token's or an OAuth access token's; it refused the request without one before any tool ran)."""
    scope = getattr(ctx.request_context.request, "scope", None)
    user = stdio_user.get() if scope is None else scope.get("user")
    if not isinstance(user, AbstractBaseUser) or not user.is_authenticated:
        raise ToolError("Authentication required: send 'Authorization: Bearer <token>' (made in the admin).")
    return user


def uploads(ctx: Context, attachments: list[dict[str, str]]) -> list[files.Upload]:
    """The files as sent; by path only over stdio, where this server's disk is the asker's own."""
    return files.from_json(attachments, paths=ctx.headers is None)


async def refusing[T](call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """The service's ``call`` (on a thread: it reads the database); its refusal becomes the tool's
    error, in its words."""
    try:
        return await sync_to_async(call)(*args, **kwargs)
    except Refused as refused:
        raise ToolError(str(refused)) from None


async def answered(ctx: Context, user: AbstractBaseUser, question_id: int) -> CallToolResult:
    """Follow the run to its end, telling the client each phase and each voice as progress, each
    line once. A call that asked for no progress is answered within MCP_WAIT_SECONDS, still running
    if it is (a client gives up on a silent call at 60 s). A call that ends first stops only this
    waiting: the run goes on, and the page and History keep it."""
    progress = (ctx.request_context.meta or {}).get("progress_token") is not None
    told: list[str] = []
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(None if progress else settings.TEOREMA["MCP_WAIT_SECONDS"]):
            async for happening in watch(question_id):
                match happening:
                    case Phase(text=text) | RoundOpened(title=text):
                        message = text
                    case Spoken(label=label, kind=kind, status=status, tokens=tokens):
                        message = f"{label} — {StepKind(kind).label.lower()}: {status} ({tokens} tokens out)"
                    case Ended():
                        break
                    case _:
                        continue
                if message not in told:  # a round's title is often the phase's too
                    told.append(message)
                    await ctx.report_progress(len(told), None, message)
    return await result(ctx, user, question_id)


async def result(ctx: Context, user: AbstractBaseUser, question_id: int) -> CallToolResult:
    found = await refusing(service.summary, user, question_id, base_of(ctx))
    return CallToolResult(content=[TextContent(text=in_words(found))], structured_content=found)


def in_words(found: dict[str, Any]) -> str:
    """A question's summary as Markdown a model or a person reads in a tool's reply."""
    link = f": {found['url']}" if found["url"] else ""
    lines = [f"**Question {found['id']}** ({found['status']}, panel {found['panel']}){link}"]
    if found["verdict"]:
        lines.append(f"**Verdict:** {found['verdict']}")
    if found["status"] not in FINISHED:
        lines.append(
            f"Still running: {found['phase'] or 'queued'}. For the verdict, call get_question with "
            f"question_id {found['id']} and wait true."
        )
    support = story.support(found["agreement"], found["confidence"])  # as the page's chip says it
    figures = [
        support.words if support else "",
        represent.cost_line(
            found["calls"], found["tokens_in"] + found["tokens_out"], found["cost"], found["voices_on_subscription"]
        ),
    ]
    lines.append(" · ".join(part for part in figures if part))
    for entry in found["dissent"]:
        model = f" ({entry['model']})" if entry.get("model") else ""
        lines.append(f"- Dissent: {entry['voice']}{model} {entry['stance']}: {entry['why']}")
    if found["error"]:
        lines.append(f"**Error:** {found['error']}")
    lines += [f"- Degraded: {line}" for line in found["degraded"]]  # which voice was dropped, and why
    if found["synthesis"]:
        lines += ["", found["synthesis"].strip()]
    if cited := story.panel_sources_lines(found["sources"], found["searched"]):
        lines += ["", *cited]
    return "\n".join(lines)


def base_of(ctx: Context) -> str:
    """The server's address as the HTTP client reached it ("" over stdio: the configured one)."""
    request = ctx.request_context.request
    return str(getattr(request, "base_url", "") or "")


# --- the arguments, checked in Teorema's words ------------------------------------------------

JSON_NAMES = {
    "string": "a string",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "array": "a list",
    "object": "an object",
    "null": "null",
}


def argument_errors(tool: str, schema: dict[str, Any], arguments: dict[str, Any]) -> str:
    """What is wrong with a tool's arguments, in words ("" when nothing): an argument the tool does
    not take, a required one missing, or a value of another JSON type than the tool's schema says."""
    properties: dict[str, Any] = schema.get("properties", {})
    for name in arguments:
        if name not in properties:
            return f"{tool} takes no argument '{name}': its arguments are {', '.join(properties)}."
    for name in schema.get("required", []):
        if name not in arguments:
            return f"{tool} needs '{name}'."
    for name, value in arguments.items():
        if not fits(properties[name], value):
            return f"'{name}' must be {expected(properties[name])}, not {shown(value)}."
    return ""


def fits(spec: dict[str, Any], value: Any) -> bool:
    """Whether a JSON value has one of the types (or enumerated values) a schema property allows."""
    if "anyOf" in spec:
        return any(fits(option, value) for option in spec["anyOf"])
    if "enum" in spec:
        return value in spec["enum"]
    match spec.get("type"):
        case "string":
            return isinstance(value, str)
        case "integer":
            return type(value) is int or (type(value) is float and value.is_integer())
        case "number":
            return type(value) in (int, float)
        case "boolean":
            return isinstance(value, bool)
        case "array":
            items = spec.get("items", {})
            return isinstance(value, list) and all(fits(items, item) for item in value)
        case "object":
            return isinstance(value, dict)
        case "null":
            return value is None
    return True


def expected(spec: dict[str, Any]) -> str:
    if "anyOf" in spec:
        return " or ".join(expected(option) for option in spec["anyOf"])
    if "enum" in spec:
        return "one of " + ", ".join(repr(value) for value in spec["enum"])
    if spec.get("type") == "array" and spec.get("items"):
        return f"a list of {expected(spec['items']).removeprefix('a ')}s"
    return JSON_NAMES.get(spec.get("type", ""), "a value")


def shown(value: Any) -> str:
    """A wrong value as the refusal names it: its JSON type, and the value itself when short."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the string {value!r}" if len(value) <= 40 else "a string"
    return "a list" if isinstance(value, list) else "an object"
