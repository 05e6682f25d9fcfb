"""Runs one question through its protocol: one engine, three protocols as configuration.

``run(spec, sink, prior, grounder)`` walks the plan (engine.protocols): this module holds the one
table from a step's kind to the function that runs it (engine.steps, engine.vote), each a plain
function over the run's shared state (engine.context). Each completed contribution goes to the
sink, which stores it before the run continues; ``prior`` holds what was stored before a crash,
replayed without calling anyone, so a resumed run never bills a completed contribution twice.
"""

from collections.abc import Awaitable, Callable
from decimal import Decimal

from debates.engine import shaping, steps, vote
from debates.engine.clock import FINAL_KINDS
from debates.engine.context import Grounder, Prior, Run
from debates.engine.events import PanelChanged, PhaseChanged, RunFinished, Sink
from debates.engine.policy import RunStopped
from debates.engine.protocols import Step, planned_calls
from debates.engine.purse import Purse, next_call
from debates.engine.spec import RunSpec
from debates.engine.vocabulary import DEBATE_KINDS, Status, StepKind

Action = Callable[[Run, Step], Awaitable[RunFinished | None]]
ACTIONS: dict[StepKind, Action] = {
    StepKind.GROUNDING: steps.grounding,
    StepKind.CHECK: steps.check,
    StepKind.TRIAGE: steps.triage,
    StepKind.ANSWER: steps.answer,
    StepKind.DEBATE: steps.debate,
    StepKind.CRITIQUE: steps.critique,
    StepKind.CRITIQUE_FINAL: steps.critique,
    StepKind.FINAL: steps.final,
    StepKind.SYNTHESIS: steps.synthesis,
    StepKind.VOTE: vote.vote,
    StepKind.DISSENT: vote.dissent,
    StepKind.REVOTE: vote.revote,
    StepKind.TIEBREAK: vote.tiebreak,
    StepKind.SHAPED: shaping.shaped,
}
# Steps after the run's end: they take the verdict another step gave (``Run.finished``).
AFTER_THE_END = frozenset({StepKind.SHAPED})
# What a run past the panel's share of its deadline, or past what it may spend, leaves out: the rounds
# that refine answers already given.
LATE_KINDS = DEBATE_KINDS | {StepKind.DISSENT, StepKind.REVOTE}


async def run(
    spec: RunSpec,
    sink: Sink,
    prior: Prior | None = None,
    grounder: Grounder | None = None,
    purse: Purse | None = None,
) -> RunFinished:
    """Run (or resume) a question; returns the RunFinished it also emitted. ``purse``: what it may spend."""
    context = Run(spec, sink, prior or {}, grounder, enrich=vote.enrich, purse=purse)
    try:
        finished = await walk(context)
    except RunStopped as stop:
        finished = RunFinished(Status.FAILED, error=str(stop), reveal=context.lineup.reveal())
    await sink.emit(finished)
    return finished


async def walk(context: Run) -> RunFinished:
    """Every step in order, each with its progress shown and the panel reported when it changed;
    once one ends the run, only the steps after the end."""
    reported = context.report()
    await context.sink.emit(PanelChanged(reported))
    for step in context.steps:
        if context.finished is not None and step.kind not in AFTER_THE_END:
            continue
        if step.kind in LATE_KINDS and (why := await late(context, step)):
            skip_late(context, step, why)
            continue
        await context.sink.emit(PhaseChanged(step.title, step.index + 1, len(context.steps)))
        outcome = await ACTIONS[step.kind](context, step)
        if (report := context.report()) != reported:
            reported = report
            await context.sink.emit(PanelChanged(report))
        if outcome is not None:
            context.finished = outcome
    assert context.finished is not None, "every protocol ends with a synthesis or a decision"
    return context.finished


async def late(context: Run, step: Step) -> str:
    """Why a refining round is left out, or "" to run it: the panel's time is up, or its calls would
    pass what the run may spend (the synthesis after it counted in, so a stopped run still gets one)."""
    if context.clock.panel_over():
        return f"the panel's share of the {context.clock.seconds:g} s deadline was up"
    if context.purse is None or (steps.skipping(context) and step.kind in DEBATE_KINDS):
        return ""
    ending = [s for s in context.steps[step.index + 1 :] if s.kind in FINAL_KINDS]
    total = context.spent + sum((expected(context, s) for s in [step, *ending]), Decimal(0))
    return await context.purse.holds(total)


def expected(context: Run, step: Step) -> Decimal:
    """What a step's calls are expected to cost: its moderator's (or tie-breaker's) call for a final
    step, else each active voice's and, for a round the judge groups, the judge's."""
    spec, last = context.spec, context.last_cost
    if step.kind in FINAL_KINDS:
        seat = spec.tie_breaker if step.kind == StepKind.TIEBREAK and spec.tie_breaker else spec.moderator
        return next_call(seat.voice, last.get(seat.key, Decimal(0)))
    judged = [context.judge] if step.judged and context.judging else []
    seats = [*context.lineup.active, *judged]
    return sum((next_call(s.voice, last.get(s.key, Decimal(0))) for s in seats), Decimal(0))


def skip_late(context: Run, step: Step, why: str) -> None:
    """Leave a refining round out, and say why (once: a round on_dissent skipped already says why)."""
    if context.dissent is not None and context.dissent.skip and step.kind in DEBATE_KINDS:
        return
    context.calls_planned -= planned_calls([step], len(context.lineup.active), context.judging)
    context.lineup.degradations.append(f"{step.title} did not run: {why}.")
