"""Runs one question through its protocol: one engine, three protocols as configuration.

``run(spec, sink, prior, grounder)`` walks the plan (protocols.plan); each step is a plain
function over the ``Run`` context, which calls every active voice of a panel step in parallel.
Each completed contribution goes to the sink, which stores it before the run continues;
``prior`` holds what was stored before a crash, replayed without calling anyone, so a resumed
run never bills a completed contribution twice. Results are kept per step (by round index), so
two debate rounds never overwrite each other.
"""

import asyncio
from collections.abc import Callable
from dataclasses import replace
from typing import Any, Protocol

from debates.engine import calls, dossier, prompts, vote
from debates.engine import ledger as ledgers
from debates.engine.consensus import Consensus
from debates.engine.events import (
    BALLOT_KINDS,
    ContributionResult,
    LedgerUpdated,
    PanelChanged,
    PhaseChanged,
    RoundFinished,
    RoundStarted,
    RunFinished,
    Sink,
)
from debates.engine.policy import Lineup, RunStopped
from debates.engine.protocols import Step, plan, planned_calls
from debates.engine.reading import closing
from debates.engine.spec import RunSpec, Seat
from debates.engine.vocabulary import FailurePolicy, Outcome, Status
from debates.providers.base import Message

Prior = dict[tuple[int, str], ContributionResult]
Check = Callable[[str], str]
Build = Callable[[Seat, int], list[Message]]
# Contributions whose closing block feeds the claim ledger (a re-vote's ballot feeds it by its decision).
LEDGER_KINDS = frozenset({"answer", "critique", "final", "critique_final", "debate", "dissent", "vote"})


class Grounder(Protocol):
    """Verified facts before the panel, and the claims that contradict them afterwards."""

    async def ground(self, question: str, context: str) -> str: ...

    def contradicts(self, text: str) -> list[str]: ...


def no_check(_text: str) -> str:
    return ""


async def run(spec: RunSpec, sink: Sink, prior: Prior | None = None, grounder: Grounder | None = None) -> RunFinished:
    """Run (or resume) a question; returns the RunFinished it also emitted."""
    context = Run(spec, sink, prior or {}, grounder)
    try:
        finished = await context.walk()
    except RunStopped as stop:
        finished = RunFinished(Status.FAILED, error=str(stop), reveal=context.lineup.reveal())
    await sink.emit(finished)
    return finished


class Run:
    """What the steps of one run share: the spec, the lineup as it stands, the results so far."""

    def __init__(self, spec: RunSpec, sink: Sink, prior: Prior, grounder: Grounder | None) -> None:
        self.spec = spec
        self.sink = sink
        self.prior = prior
        self.grounder = grounder
        self.lineup = Lineup(spec)
        self.steps = plan(spec)
        self.results: dict[int, dict[str, ContributionResult]] = {}  # round index -> seat key -> accepted result
        self.grounding = spec.grounding
        self.consensus: Consensus | None = None
        self.dissent: ledgers.DissentCheck | None = None  # debate = on_dissent: what the blind round showed
        self.calls_planned = planned_calls(self.steps, len(spec.seats))
        self.storing: set[asyncio.Task[Any]] = set()  # calls whose result is being stored right now

    async def walk(self) -> RunFinished:
        reported = self.report()
        await self.sink.emit(PanelChanged(reported))
        for step in self.steps:
            await self.sink.emit(PhaseChanged(step.title, step.index + 1, len(self.steps)))
            outcome = await step.action(self, step)
            if (report := self.report()) != reported:
                reported = report
                await self.sink.emit(PanelChanged(report))
            if outcome is not None:
                return outcome
        raise AssertionError("every protocol ends with a synthesis or a decision")  # pragma: no cover

    def report(self) -> dict[str, Any]:
        """The panel running, and (debate = on_dissent) whether the debate ran and what skipping it saved."""
        report = self.lineup.report(self.calls_planned)
        return report | {"debate": self.dissent.as_dict()} if self.dissent else report

    # --- calls -------------------------------------------------------------------------
    async def one(self, step: Step, seat: Seat, messages: list[Message], check: Check = no_check) -> ContributionResult:
        """A single call, or its stored result when resuming."""
        stored = self.prior.get((step.index, seat.key))
        if stored is not None:
            return await calls.finish(self.sink, stored, replayed=True)
        voice = replace(seat.voice, json_output=True) if step.kind in BALLOT_KINDS else seat.voice
        result = await calls.call(self.sink, step.index, replace(seat, voice=voice), step.kind, messages, check)
        storing = asyncio.current_task()
        assert storing is not None, "a call always runs inside a task"
        self.storing.add(storing)  # a completed answer is stored even if the round is being stopped
        try:
            return await calls.finish(self.sink, self.polish(result))
        finally:
            self.storing.discard(storing)

    def polish(self, result: ContributionResult) -> ContributionResult:
        """Before storing: plumbing our prompts put in the text goes, ballots get their fields."""
        if result.text:
            result = replace(result, text=dossier.unquote(result.text, self.labels()))
        if result.ok and result.kind in BALLOT_KINDS:
            result = vote.enrich(self, result)
        if result.ok and result.kind in LEDGER_KINDS:
            result = replace(result, ledger=closing.read(result.kind, result.text, result.label))
        return result

    async def solo(
        self, step: Step, seat: Seat, messages: list[Message], check: Check = no_check
    ) -> ContributionResult:
        """A step of one call (triage, synthesis, tie-break), shown as a round of its own."""
        await self.sink.emit(RoundStarted(step.index, step.kind, step.title, (seat.key,), (seat.label,)))
        result = await self.one(step, seat, messages, check)
        await self.sink.emit(RoundFinished(step.index, "done" if result.ok else "failed"))
        return result

    async def panel_round(self, step: Step, build: Build, check: Check = no_check) -> dict[str, ContributionResult]:
        """Every active voice in parallel; the failure policy decides about the failed ones.

        ``build(seat, position)`` gives a voice its prompt; the position (its label's place on
        the whole panel) lets each reviewer read the dossier in its own order, a Latin square.
        Under ``strict`` the first failure stops the others at once: their answers could not be
        used anyway.
        """
        seats = list(self.lineup.active)
        await self.sink.emit(
            RoundStarted(step.index, step.kind, step.title, tuple(s.key for s in seats), tuple(s.label for s in seats))
        )
        results = await self.gather(step, [(s, build(s, self.position(s)), check) for s in seats])
        ok = {r.seat: r for r in results if r.ok}
        for failed in (r for r in results if not r.ok):
            seat = self.lineup.by_key(failed.seat)
            substitute = self.lineup.on_failure(seat, failed, step, ok)
            if substitute is not None:
                retry = await self.one(step, substitute, build(substitute, self.position(substitute)), check)
                if retry.ok:
                    ok[substitute.key] = retry
                    continue
                self.lineup.drop(substitute, retry, step)
        self.lineup.check_enough(step)
        await self.sink.emit(RoundFinished(step.index, "done"))
        self.results[step.index] = ok
        await self.sink.emit(LedgerUpdated(self.ledger().as_dict()))
        return ok

    async def gather(self, step: Step, jobs: list[tuple[Seat, list[Message], Check]]) -> list[ContributionResult]:
        """Run the calls of a round concurrently; under strict, a failure stops the rest."""
        tasks = {asyncio.ensure_future(self.one(step, seat, messages, check)): seat for seat, messages, check in jobs}
        results: dict[str, ContributionResult] = {}
        pending = set(tasks)
        try:
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                results.update((r.seat, r) for r in (task.result() for task in done))
                failed = next((r for r in results.values() if not r.ok), None)
                if pending and failed and self.spec.failure_policy == FailurePolicy.STRICT:
                    stopping, pending = pending, set()
                    await self.stop(stopping)
                    for task in stopping:
                        if task.cancelled():
                            seat = tasks[task]
                            why = f"cancelled: {failed.label} failed, and under the strict policy the run stops"
                            cancelled = ContributionResult(
                                step.index, seat.key, seat.label, step.kind, Outcome.FAILED, error=why
                            )
                            await calls.finish(self.sink, cancelled)
                        else:
                            results[task.result().seat] = task.result()
        finally:
            await self.stop(pending)
        return [results[seat.key] for seat, _, _ in jobs if seat.key in results]

    async def stop(self, tasks: set[asyncio.Task[ContributionResult]]) -> None:
        """Cancel calls still talking to a provider; let a completed one finish being stored."""
        for task in tasks:
            if task not in self.storing:
                task.cancel()
        if tasks:
            await asyncio.wait(tasks)
        for task in tasks:
            if not task.cancelled():
                task.exception()  # retrieved: the failure that matters is already on its way up

    # --- what later steps read ---------------------------------------------------------
    def labels(self) -> list[str]:
        return [seat.label for seat in self.spec.seats]

    def position(self, seat: Seat) -> int:
        """The seat's place in the panel's label order: reviewer i reads the dossier rotated by i."""
        return sorted(self.labels()).index(seat.label)

    def latest(self, *kinds: str, before: Step | None = None) -> Step | None:
        """The last completed panel step of one of ``kinds`` (before ``before``, if given)."""
        done = [
            s
            for s in self.steps
            if s.kind in kinds and s.index in self.results and (before is None or s.index < before.index)
        ]
        return done[-1] if done else None

    def entries(self, step: Step | None, exclude: str = "") -> list[tuple[str, str]]:
        """(label, text) of a step's accepted results — never a failed or gated one."""
        if step is None:
            return []
        return [
            (r.label, closing.with_claims(r.text, r.ledger))
            for key, r in self.results.get(step.index, {}).items()
            if key != exclude
        ]

    def fenced(self, step: Step | None, exclude: str = "", rotation: int = 0) -> str:
        """A step's accepted results as a dossier, scrubbed, in this reader's order."""
        return dossier.dossier(self.entries(step, exclude), self.spec.all_names(), rotation=rotation)

    def own(self, step: Step | None, seat: Seat) -> str:
        result = self.results.get(step.index, {}).get(seat.key) if step else None
        if result is None:
            return "(no answer)"
        return dossier.dossier([(seat.label, closing.with_claims(result.text, result.ledger))], self.spec.all_names())

    def brief(self) -> str:
        return prompts.brief(self.spec.question, self.spec.context, self.grounding)

    def panel_steps(self) -> list[Step]:
        """Every panel step that produced accepted results, in order: what the moderator reads."""
        return [s for s in self.steps if s.panel and self.results.get(s.index)]

    def ledger(self) -> ledgers.Ledger:
        """The claim ledger of every panel round so far, in round order."""
        entries = [
            ledgers.Entry(step.index, r.label, r.kind, r.ledger, r.decision if r.kind in BALLOT_KINDS else "",
                          r.reasoning)
            for step in self.panel_steps()
            for r in self.results[step.index].values()
        ]  # fmt: skip
        return ledgers.Ledger(entries, self.spec.similarity)

    def claims_note(self, source: Step | None) -> str:
        """The claims a debate works on: only the contested ones when the blind round split the
        panel (debate = on_dissent), else those of the blind answers when the dossier no longer
        shows them (a later debate round)."""
        claims = self.ledger().claims
        if self.dissent is not None and self.dissent.contested:
            listed = "\n".join(f"- {c}: {claims[c]['text']}" for c in self.dissent.contested if c in claims)
            settled = f"The blind answers agree on {', '.join(self.dissent.shared)}: do not relitigate them. " if (
                self.dissent.shared) else ""  # fmt: skip
            return f"\n{settled}Debate only these contested claims:\n{listed}\n"
        if source is not None and source.kind != "answer" and claims:
            listed = "\n".join(f"- {c}: {claim['text']}" for c, claim in claims.items())
            return f"\nThe claims of the blind answers:\n{listed}\n"
        return ""

    def notes(self) -> list[str]:
        """What the moderator must weigh besides the text: stand-ins, drops, flags (truncation included)."""
        found = list(self.lineup.degradations)
        if self.dissent is not None and self.dissent.skip:
            found.append(f"No debate ran: {self.dissent.reason}. Only the blind answers are in the record.")
        for step in self.panel_steps():
            for result in self.results[step.index].values():
                where = f"{result.label} ({step.title.split(' — ')[0]})"
                found += [f"{where}: {flag}" for flag in result.flags]
        return found

    def contradictions(self) -> list[str]:
        """Claims of any round that contradict the verified facts."""
        if not (self.grounder and self.grounding):
            return []
        return [
            f"{label} ({step.title.split(' — ')[0]}): {claim}"
            for step in self.panel_steps()
            for label, text in self.entries(step)
            for claim in self.grounder.contradicts(text)
        ]
