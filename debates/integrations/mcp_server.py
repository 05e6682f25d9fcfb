"""Teorema as an MCP server (the official ``mcp`` SDK): a desktop assistant or an IDE agent asks the
panel, follows it up, reads a question, lists the panels, judges a verdict, checks the setup.

Two transports: stdio (``manage.py mcp --user NAME``, for a client's config file) and Streamable
HTTP at ``/mcp`` in the web server (``mcp_http``), where each request carries an API token and a
tool sees only what the token's user may see. While a debate runs, the client gets a progress
notification per phase and per voice; a client's cancel cancels the run, and each voice keeps
what it had written (the page's cancel).
"""

import contextvars
from typing import Annotated, Any, Literal

import anyio
from asgiref.sync import sync_to_async
from django.contrib.auth.models import AbstractBaseUser
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field

from debates.endpoint import bearer_user
from debates.engine.vocabulary import DebateMode, Held, StepKind
from debates.integrations import service
from debates.live.watch import Ended, Phase, RoundOpened, Spoken, watch
from debates.models import Criticality, Provider, Source
from debates.readiness import judges_of, panel_options
from debates.runs import execute, lease

INSTRUCTIONS = """Teorema puts a hard question to a panel of language models from different
providers: they answer blind, read each other's answers anonymised and attack them, and a
moderator returns the verdict with its confidence, the agreement and the dissent. Use ask_panel
for a question worth several minds (a design decision, a diagnosis, a claim to check); it takes
minutes, with progress. list_panels says which panels can run now."""

# The user a stdio server acts for (its command's --user); over HTTP, each request's token says.
stdio_user: contextvars.ContextVar[AbstractBaseUser | None] = contextvars.ContextVar("stdio_user", default=None)

CANCEL_PATIENCE = 5.0  # seconds a cancelled call waits for its run to keep what it wrote
server = MCPServer(name="teorema", title="Teorema", instructions=INSTRUCTIONS)

QuestionText = Annotated[str, Field(description="The question for the panel, as you would ask an expert.")]
QuestionId = Annotated[int, Field(description="A question's number (ask_panel returns it).")]
Wait = Annotated[
    bool,
    Field(description="Wait for the verdict (minutes, with progress); false returns at once with the question's id."),
]


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
    wait: Wait = True,
) -> CallToolResult:
    """Ask Teorema's panel a question: blind answers, an anonymised debate, a moderator's verdict.
    Returns the verdict, its confidence, the agreement, the dissent in short, the cost and the page's URL."""
    fields = {
        "text": question,
        "context": context,
        "panel": panel,
        "criticality": criticality,
        "debate": debate,
        "options": options,
        "deadline": deadline,
    }
    return await asked(ctx, fields, wait)


@server.tool(annotations=ToolAnnotations(read_only_hint=False, open_world_hint=True))
async def follow_up(
    question_id: QuestionId,
    question: QuestionText,
    ctx: Context,
    context: Annotated[str, Field(description="Anything new the panel should know.")] = "",
    wait: Wait = True,
) -> CallToolResult:
    """Ask a follow-up of an earlier question: the panel gets its verdict and the disputed points."""
    return await asked(ctx, {"text": question, "context": context, "follow_up_of": question_id}, wait)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def get_question(question_id: QuestionId, ctx: Context, wait: Wait = False) -> CallToolResult:
    """A question's verdict, confidence, agreement, dissent, cost and URL; with wait, once its run ends."""
    user = await user_of(ctx)
    await refusing(sync_to_async(service.visible), user, question_id)
    return await answered(ctx, question_id) if wait else await result(ctx, question_id)


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
async def list_panels(ctx: Context) -> CallToolResult:
    """The panels, whether each can run now (and why not), its voices, and the estimated cost and time of a run."""
    await user_of(ctx)
    found = await sync_to_async(service.panels)()
    lines = [
        f"- {p['slug']}{' (default)' if p['default'] else ''}: {p['name']} · {p['protocol']} · {p['voices']} voices "
        f"({', '.join(p['families'])}) · ~{p['estimated_seconds']} s, ~${p['estimated_cost']} · "
        + ("can run" if p["runnable"] else "cannot run: " + "; ".join(p["problems"]))
        for p in found
    ]
    return CallToolResult(
        content=[TextContent(text="\n".join(lines) or "No panels: run `manage.py bootstrap`.")],
        structured_content={"panels": found},
    )


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
    recorded = await refusing(sync_to_async(service.record_outcome), user, question_id, outcome, note)
    return CallToolResult(
        content=[TextContent(text=f"Recorded: question {question_id}'s verdict was {recorded['outcome']}.")],
        structured_content=recorded,
    )


@server.tool(annotations=ToolAnnotations(read_only_hint=True, open_world_hint=True))
async def health(
    ctx: Context,
    probe: Annotated[
        bool, Field(description="Also call each provider's cheapest endpoint (its model list or a one-token ping).")
    ] = True,
) -> CallToolResult:
    """Whether Teorema can answer now: the keys each provider has, whether a provider answers, and each panel's time."""
    await user_of(ctx)
    options = await sync_to_async(panel_options)()
    used = await sync_to_async(providers_of)(options)
    keyed = [p for p in used if p.has_usable_key]
    reached = await service.reach(keyed) if probe else []
    report: dict[str, Any] = {
        "providers": [
            {
                "name": p.name,
                "key": "present" if p.has_usable_key else "missing",
                **next(({"reachable": r.ok, "said": r.said} for r in reached if r.provider == p.name), {}),
            }
            for p in used
        ],
        "panels": [service.panel_entry(option) for option in options],
    }
    report["ok"] = any(p["runnable"] for p in report["panels"]) and (not probe or any(r.ok for r in reached))
    lines = ["Teorema can answer." if report["ok"] else "Teorema cannot answer now."]
    for entry in report["providers"]:
        state = "" if "reachable" not in entry else (" · answers" if entry["reachable"] else " · does not answer")
        lines.append(f"- {entry['name']}: key {entry['key']}{state}{': ' + entry['said'] if 'said' in entry else ''}")
    for p in report["panels"]:
        lines.append(f"- panel {p['slug']}: ~{p['estimated_seconds']} s" + ("" if p["runnable"] else " (cannot run)"))
    return CallToolResult(content=[TextContent(text="\n".join(lines))], structured_content=report)


def providers_of(options: list) -> list[Provider]:
    """The enabled providers the listed panels' voices and judges use, once each."""
    found: dict[int, Provider] = {}
    for option in options:
        for panelist in [*option.panel.roster(), *judges_of(option.panel)]:
            if panelist.provider.enabled:
                found.setdefault(panelist.provider.pk, panelist.provider)
    return list(found.values())


async def user_of(ctx: Context) -> AbstractBaseUser:
    """Who is asking: the stdio server's user, else the HTTP request's bearer token's (mcp_http
    refused the request without a valid one before any tool ran)."""
    headers = ctx.headers
    if headers is None:
        user = stdio_user.get()
    else:
        user = await sync_to_async(bearer_user)(headers.get("authorization", ""))
    if user is None or not user.is_authenticated:
        raise ToolError("Authentication required: send 'Authorization: Bearer <token>' (made in the admin).")
    return user


async def refusing(call, *args: Any) -> Any:
    """``call(*args)`` awaited; a refusal becomes the tool's error, in its words."""
    try:
        return await call(*args)
    except service.Refused as refused:
        raise ToolError(str(refused)) from None


async def asked(ctx: Context, fields: dict[str, Any], wait: bool) -> CallToolResult:
    user = await user_of(ctx)
    question = await refusing(sync_to_async(service.ask), user, fields, Source.MCP)
    return await answered(ctx, question.pk) if wait else await result(ctx, question.pk)


async def answered(ctx: Context, question_id: int) -> CallToolResult:
    """Follow the run to its end, telling the client each phase and each voice as progress; a
    client's cancel stops the run (its voices keep what they wrote) and is raised on."""
    told: list[str] = []
    try:
        async for happening in watch(question_id):
            match happening:
                case Phase(text=text) | RoundOpened(title=text):
                    message = text
                case Spoken(label=label, kind=kind, status=status, tokens=tokens):
                    message = f"{label} — {StepKind(kind).label.lower()}: {status} ({tokens} tokens)"
                case Ended():
                    break
                case _:
                    continue
            if message not in told:  # a round's title is often the phase's too
                told.append(message)
                await ctx.report_progress(len(told), None, message)
    except BaseException:
        with anyio.CancelScope(shield=True):  # a cancelled call still stops its run, and sees it kept
            await stopped(question_id)
        raise
    return await result(ctx, question_id)


async def stopped(question_id: int) -> None:
    """Cancel the run as the page's cancel does; a run of this process stops at once, and the call
    ends once its voices' words are kept (a stdio client may end this process right after)."""
    await sync_to_async(execute.cancel)(question_id)
    lease.stop_here(question_id)
    with anyio.move_on_after(CANCEL_PATIENCE):
        async for happening in watch(question_id):
            if isinstance(happening, Ended):
                return


async def result(ctx: Context, question_id: int) -> CallToolResult:
    found = await sync_to_async(service.summary)(question_id, base_of(ctx))
    return CallToolResult(content=[TextContent(text=service.in_words(found))], structured_content=found)


def base_of(ctx: Context) -> str:
    """The server's address as the HTTP client reached it ("" over stdio: the configured one)."""
    request = ctx.request_context.request
    return str(getattr(request, "base_url", "") or "")
