"""Runs one question through its protocol: one engine, three protocols as configuration.

``run(spec, sink, prior, grounder)`` walks the plan (engine.protocols): this module holds the one
table from a step's kind to the function that runs it (engine.steps, engine.vote), each a plain
function over the run's shared state (engine.context). Each completed contribution goes to the
sink, which stores it before the run continues; ``prior`` holds what was stored before a crash,
replayed without calling anyone, so a resumed run never bills a completed contribution twice.
"""

from collections.abc import Awaitable, Callable

from debates.engine import shaping, steps, vote
from debates.engine.context import Grounder, Prior, Run
from debates.engine.events import PanelChanged, PhaseChanged, RunFinished, Sink
from debates.engine.policy import RunStopped
from debates.engine.protocols import Step, planned_calls
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
# What a run past the panel's share of its deadline leaves out: the rounds that refine answers already given.
LATE_KINDS = DEBATE_KINDS | {StepKind.DISSENT, StepKind.REVOTE}


async def run(spec: RunSpec, sink: Sink, prior: Prior | None = None, grounder: Grounder | None = None) -> RunFinished:
    """Run (or resume) a question; returns the RunFinished it also emitted."""
    context = Run(spec, sink, prior or {}, grounder, enrich=vote.enrich)
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
        if step.kind in LATE_KINDS and context.clock.panel_over():
            skip_late(context, step)
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


def skip_late(context: Run, step: Step) -> None:
    """Leave a refining round out once the panel's time is up, and say so (once: a round on_dissent
    skipped already says why)."""
    if context.dissent is not None and context.dissent.skip and step.kind in DEBATE_KINDS:
        return
    context.calls_planned -= planned_calls([step], len(context.lineup.active), context.judging)
    context.lineup.degradations.append(
        f"{step.title} did not run: the panel's share of the {context.clock.seconds:g} s deadline was up."
    )
