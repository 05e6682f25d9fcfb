"""What the steps of one run share: the spec, the lineup as it stands, the results and agreements so far.

Steps (engine.steps, engine.vote) are plain functions over a ``Run``; engine.run walks the plan
and calls them. A ``Run`` calls voices (one, a solo step, a whole panel round in parallel), keeps
each round's accepted results by round index (two debate rounds never mix), and after a round of
answers asks the panel's judge who gives the same answer (engine.judging), so every later reader
takes agreement from one place (``agreement``).
"""

import asyncio
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from typing import Any, Protocol

from debates.engine import agreement as agreements
from debates.engine import attachments, calls, checks, dossier, judging, prompts, sourcing
from debates.engine import ledger as ledgers
from debates.engine.clock import Clock
from debates.engine.consensus import Consensus
from debates.engine.events import (
    ContributionResult,
    LedgerUpdated,
    RoundFinished,
    RoundStarted,
    RunFinished,
    Sink,
)
from debates.engine.policy import Lineup, small_model
from debates.engine.protocols import Step, plan, planned_calls
from debates.engine.purse import Purse
from debates.engine.reading import closing, gates
from debates.engine.reading import judgement as judgements
from debates.engine.spec import RunSpec, Seat
from debates.engine.vocabulary import BALLOT_KINDS, LEDGER_KINDS, SEARCH_KINDS, FailurePolicy, Outcome, StepKind
from debates.providers.base import Message

Prior = dict[tuple[int, str], ContributionResult]
Check = Callable[[str], str]
Build = Callable[[Seat, int], list[Message]]
Enrich = Callable[["Run", ContributionResult], ContributionResult]
JUDGE_SEAT = "judge"
BASIS = ":basis"  # a seat's key + this: the call asking it for the basis of a change, in the same round


class Grounder(Protocol):
    """Verified facts before the panel, the claims that contradict them afterwards, and the
    computations each round states, checked between rounds."""

    async def ground(self, question: str, context: str) -> str: ...

    def contradicts(self, text: str) -> list[str]: ...

    async def check(self, said: list[checks.Said]) -> list[dict[str, Any]]:
        """One JSON record per computation found: label, round, claim, quote, kind, holds, computation."""
        ...


def stopped_by(cancel: asyncio.CancelledError) -> str:
    """Why a run was cancelled on purpose (its message: the asker's cancel), else ""."""
    return cancel.args[0] if cancel.args and isinstance(cancel.args[0], str) else ""


def no_check(_text: str) -> str:
    return ""


def keep(_run: "Run", result: ContributionResult) -> ContributionResult:
    return result


class Run:
    """One run's shared state; ``enrich`` gives a ballot its fields before it is stored (engine.vote)."""

    def __init__(
        self,
        spec: RunSpec,
        sink: Sink,
        prior: Prior,
        grounder: Grounder | None,
        enrich: Enrich = keep,
        purse: Purse | None = None,
    ) -> None:
        self.spec = spec
        self.sink = sink
        self.prior = prior
        self.grounder = grounder
        self.enrich = enrich
        self.lineup = Lineup(spec)
        self.steps = plan(spec)
        self.results: dict[int, dict[str, ContributionResult]] = {}  # round index -> seat key -> accepted result
        self.agreements: dict[int, agreements.Agreement] = {}  # round index -> its answers grouped
        self.judgements: dict[int, ContributionResult] = {}  # round index -> the judge's call, when made
        self.grounding = spec.grounding
        self.checks: list[dict[str, Any]] = []  # the computations checked between rounds, in order
        self.restated = ""  # the facilitator's brief, when it wrote one
        self.consensus: Consensus | None = None
        self.dissent: ledgers.DissentCheck | None = None  # debate = on_dissent: what the blind round showed
        self.judge = spec.judging_seat
        self.judging = not small_model(self.judge)
        self.calls_planned = planned_calls(self.steps, len(spec.seats), self.judging)
        self.storing: set[asyncio.Task[Any]] = set()  # calls whose result is being stored right now
        self.stopping = ""  # why the calls cancelled now are stopped; "" while nobody stopped them on purpose
        self.clock = Clock(spec.deadline, spec.synthesis_time)
        self.finished: RunFinished | None = None  # the run's end, once a step gave it
        self.purse = purse  # what the run may spend (engine.purse); None: nothing limits it
        self.spent = sum((r.cost for r in prior.values()), Decimal(0))  # every call's cost so far, stored ones too
        self.last_cost: dict[str, Decimal] = {}  # seat key -> what its latest call in this process cost

    def report(self) -> dict[str, Any]:
        """The panel running, the facilitator's brief, and (debate = on_dissent) whether the debate ran."""
        report = self.lineup.report(self.calls_planned)
        if self.restated:
            report["brief"] = self.restated
        if not self.judging:
            report["judge"] = "the judge runs a small model: answers are grouped by wording"
        return report | {"debate": self.dissent.as_dict()} if self.dissent else report

    # --- calls -------------------------------------------------------------------------
    async def one(
        self, step: Step, seat: Seat, messages: list[Message], check: Check = no_check, ask_again: Check = no_check
    ) -> ContributionResult:
        """A single call, or its stored result when resuming."""
        stored = self.prior.get((step.index, seat.key))
        if stored is not None:
            return await calls.finish(self.sink, stored, replayed=True)
        voice = replace(
            seat.voice,
            json_output=seat.voice.json_output or step.kind in BALLOT_KINDS,
            search=seat.voice.search and step.kind in SEARCH_KINDS,
        )
        if voice.search:
            messages = prompts.searching(messages)
        messages = prompts.with_parts(messages, attachments.parts(self.spec.attachments, voice))
        tally = calls.Tally(replace(seat, voice=voice), step.index, step.kind, messages)
        try:
            async with asyncio.timeout_at(self.clock.until(step.kind)):
                result = await calls.call(self.sink, tally, check, ask_again)
        except TimeoutError:
            result = tally.stopped(self.clock.why(step.kind))
        except asyncio.CancelledError as stop:
            # Stopped on purpose (the asker, a strict stop): what it streamed is kept, and paid for. A
            # process shutting down or a lost lease says nothing: the resumed run makes the call again.
            if why := self.stopping or stopped_by(stop):
                await calls.finish(self.sink, tally.stopped(why))
            raise
        self.spent += result.cost
        self.last_cost[seat.key] = result.cost
        result = await self.with_basis(step, seat, self.polish(result))
        storing = asyncio.current_task()
        assert storing is not None, "a call always runs inside a task"
        self.storing.add(storing)  # a completed answer is stored even if the round is being stopped
        try:
            return await calls.finish(self.sink, result)
        finally:
            self.storing.discard(storing)

    def polish(self, result: ContributionResult) -> ContributionResult:
        """Before storing: plumbing our prompts put in the text goes, ballots get their fields, the
        closing block is read, and what it shows (a change without a reason, an answer off topic) is flagged."""
        if result.text:
            result = replace(result, text=dossier.unquote(result.text, self.labels()))
        if result.ok and result.kind in BALLOT_KINDS:
            result = self.enrich(self, result)
        if result.ok and result.kind in LEDGER_KINDS:  # beside what a ballot's enrichment recorded
            record = {**closing.read(result.kind, result.text, result.label), **result.ledger}
            result = replace(result, ledger=sourcing.attach(record, result.text, result.sources))
        if not result.ok:
            return result
        change = result.ledger.get("change") or {}
        found = [gates.change_flag(change.get("degree", ""), change.get("reason", ""))]
        if result.kind == StepKind.ANSWER:
            found.append(gates.off_topic(result.text, self.spec.question))
        if result.kind == StepKind.SYNTHESIS:
            found += checks.unreasoned(self.checks, result.text)
        return replace(result, flags=(*result.flags, *(f for f in found if f and f not in result.flags)))

    async def with_basis(self, step: Step, seat: Seat, result: ContributionResult) -> ContributionResult:
        """A total change of position without a reason of substance is questioned before it is accepted
        (seed 002): the voice is asked once for its basis. Still none, the change is unexplained and
        weighs nothing toward agreement; a basis of substance becomes the change's reason."""
        change = result.ledger.get("change") or {}
        if not (result.ok and change.get("degree") == "total" and not gates.substantive(change.get("reason", ""))):
            return result
        asked = replace(seat, key=f"{seat.key}{BASIS}", label=seat.label)
        earlier = self.ledger(judged=False).decisions().get(seat.label, "")  # this round is not in it yet
        before, after = change.get("before") or earlier, change.get("after") or result.ledger.get("answer", "")
        basis = await self.one(
            replace(step, kind=StepKind.BASIS),
            asked,
            prompts.messages(
                "basis",
                seat.method,
                brief=self.brief(seat),
                label=seat.label,
                before=before or "(your earlier answer)",
                after=after or "(your new answer)",
            ),
        )
        reason = closing.basis(basis.text) if basis.ok else ""
        if gates.substantive(reason):
            change = change | {"reason": reason, "basis": "asked"}
        else:
            change = change | {"unexplained": True, "basis": "asked" if basis.ok else "failed"}
        flags = tuple(f for f in result.flags if f != gates.SYCOPHANCY_TOTAL or change.get("unexplained"))
        return replace(result, ledger={**result.ledger, "change": change}, flags=flags)

    async def solo(
        self, step: Step, seat: Seat, messages: list[Message], check: Check = no_check
    ) -> ContributionResult:
        """A step of one call (triage, synthesis, tie-break), shown as a round of its own."""
        await self.sink.emit(RoundStarted(step.index, step.kind, step.title, (seat.key,), (seat.label,)))
        result = await self.one(step, seat, messages, check)
        await self.sink.emit(RoundFinished(step.index, "done" if result.ok else "failed"))
        return result

    async def panel_round(
        self, step: Step, build: Build, check: Check = gates.gate, ask_again: Check = no_check
    ) -> dict[str, ContributionResult]:
        """Every active voice in parallel; the failure policy decides about the failed ones; then,
        for a round of answers, the judge groups them.

        ``build(seat, position)`` gives a voice its prompt; the position (its label's place on
        the whole panel) lets each reviewer read the dossier in its own order, a Latin square.
        Under ``strict`` the first failure stops the others at once: their answers could not be
        used anyway.
        """
        seats = list(self.lineup.active)
        await self.sink.emit(
            RoundStarted(step.index, step.kind, step.title, tuple(s.key for s in seats), tuple(s.label for s in seats))
        )
        results = await self.gather(step, [(s, build(s, self.position(s)), check, ask_again) for s in seats])
        ok = {r.seat: r for r in results if r.ok}
        for failed in (r for r in results if not r.ok):
            seat = self.lineup.by_key(failed.seat)
            if failed.status == Outcome.CANCELLED:  # stopped at the deadline: not a failure, whatever the policy
                self.lineup.cut(seat, failed, step)
                continue
            substitute = self.lineup.on_failure(seat, failed, step, ok)
            if substitute is not None:
                retry = await self.one(step, substitute, build(substitute, self.position(substitute)), check, ask_again)
                if retry.ok:
                    ok[substitute.key] = retry
                    continue
                self.lineup.drop(substitute, retry, step)
        self.lineup.check_enough(step)
        self.results[step.index] = ok
        if step.judged:
            self.agreements[step.index] = await self.agree(step)
        await self.sink.emit(RoundFinished(step.index, "done"))
        await self.sink.emit(LedgerUpdated(self.ledger().as_dict()))
        return ok

    async def gather(
        self, step: Step, jobs: list[tuple[Seat, list[Message], Check, Check]]
    ) -> list[ContributionResult]:
        """Run the calls of a round concurrently; under strict, a failure stops the rest."""
        pending = {
            asyncio.ensure_future(self.one(step, seat, messages, check, ask_again))
            for seat, messages, check, ask_again in jobs
        }
        results: dict[str, ContributionResult] = {}
        try:
            while pending:
                done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
                results.update((r.seat, r) for r in (task.result() for task in done))
                failed = next((r for r in results.values() if r.status in (Outcome.FAILED, Outcome.GATED)), None)
                if pending and failed and self.spec.failure_policy == FailurePolicy.STRICT:
                    stopping, pending = pending, set()
                    self.stopping = f"stopped when {failed.label} failed: under the strict policy the run stops"
                    try:
                        await self.stop(stopping)
                    finally:
                        self.stopping = ""
                    results.update((t.result().seat, t.result()) for t in stopping if not t.cancelled())
        except asyncio.CancelledError as stop:
            self.stopping = self.stopping or stopped_by(stop)  # the calls still running stop for the same reason
            raise
        finally:
            await self.stop(pending)
        return [results[seat.key] for seat, *_job in jobs if seat.key in results]

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

    # --- agreement ---------------------------------------------------------------------
    async def agree(self, step: Step) -> agreements.Agreement:
        """The latest answers grouped by meaning: the judge's grouping where it can and did make one,
        else the wording's, saying why."""
        ledger = self.ledger(judged=False)
        latest = ledger.positions()
        unexplained = ledger.unexplained()
        answers = {label: entry.answer for label, entry in latest.items()}
        if self.spec.options and step.kind in BALLOT_KINDS:
            return agreements.by_wording(answers, self.spec.similarity, unexplained=unexplained)  # grouped exactly
        voices = [judging.Voice(label, answers[label], self.text_of(entry)) for label, entry in latest.items()]
        claims = ledger.claim_texts() if step.kind in (StepKind.ANSWER, StepKind.VOTE) else {}
        if not self.judging:
            why = "the judge runs a small model: grouped by wording only"
            return agreements.by_wording(answers, self.spec.similarity, unexplained=unexplained, notes=[why])
        if not judging.needed(voices, self.spec.similarity):
            self.calls_planned -= step.planned  # the judge's planned call is not made: "made / planned" stays true
            return agreements.by_wording(answers, self.spec.similarity, unexplained=unexplained)
        judge = replace(self.judge, voice=replace(self.judge.voice, structure=judging.structure(list(latest))))
        result = await self.one(
            replace(step, kind=StepKind.AGREEMENT),
            judge,
            judging.messages(self.brief(judge), voices, claims, self.spec.all_names()),
        )
        self.judgements[step.index] = result
        reading = judgements.read(result.text, list(latest)) if result.ok else f"its call failed ({result.error})"
        if isinstance(reading, str):
            why = f"The judge's grouping could not be used ({reading}): grouped by wording only."
            return agreements.by_wording(answers, self.spec.similarity, unexplained=unexplained, notes=[why])
        return agreements.from_judge(reading, answers, self.spec.similarity, unexplained, claims)

    def agreement(self) -> agreements.Agreement | None:
        """The agreement of the latest round of answers, if one was judged."""
        return self.agreements[max(self.agreements)] if self.agreements else None

    def text_of(self, entry: ledgers.Entry) -> str:
        result = self.results.get(entry.round, {}).get(entry.seat)
        return result.text if result else ""

    # --- what later steps read ---------------------------------------------------------
    def labels(self) -> list[str]:
        return [seat.label for seat in self.spec.seats]

    def position(self, seat: Seat) -> int:
        """The seat's place in the panel's label order: reviewer i reads the dossier rotated by i."""
        return sorted(self.labels()).index(seat.label)

    def latest(self, *kinds: StepKind, before: Step | None = None) -> Step | None:
        """The last completed panel step of one of ``kinds`` (before ``before``, if given)."""
        done = [
            s
            for s in self.steps
            if s.kind in kinds and s.index in self.results and (before is None or s.index < before.index)
        ]
        return done[-1] if done else None

    def accepted(self, step: Step | None) -> list[ContributionResult]:
        """A step's accepted results — never a failed or gated one."""
        return list(self.results.get(step.index, {}).values()) if step else []

    def fenced(self, step: Step | None, exclude: str = "", rotation: int = 0) -> str:
        """A step's accepted results as a dossier, scrubbed, in this reader's order."""
        return prompts.dossier_of(self.accepted(step), self.spec.all_names(), exclude, rotation)

    def own(self, step: Step | None, seat: Seat) -> str:
        result = self.results.get(step.index, {}).get(seat.key) if step else None
        return prompts.dossier_of([result], self.spec.all_names()) if result else "(no answer)"

    def brief(self, seat: Seat) -> str:
        """The brief as ``seat``'s voice reads it: the question's files natively where its model reads
        them, else as their text (``Run.one`` sends the native parts)."""
        spec = self.spec
        files = prompts.attachments_block(spec.attachments, seat.voice)
        return prompts.brief(spec.question, spec.context, self.grounding, self.restated, files)

    def panel_steps(self) -> list[Step]:
        """Every panel step that produced accepted results, in order: what the moderator reads."""
        return [s for s in self.steps if s.panel and self.results.get(s.index)]

    def ledger(self, judged: bool = True) -> ledgers.Ledger:
        """The claim ledger of every panel round so far, in round order, with the latest agreement."""
        entries = [
            ledgers.Entry(
                step.index,
                r.label,
                r.kind,
                r.ledger,
                r.decision if r.kind in BALLOT_KINDS else "",
                r.reasoning,
                r.seat,
                tuple(note.as_dict() for note in sourcing.footnotes(r.sources, r.text)),
                r.searches,
            )
            for step in self.panel_steps()
            for r in self.results[step.index].values()
        ]
        return ledgers.Ledger(entries, self.spec.similarity, self.agreement() if judged else None, checks=self.checks)

    def notes(self) -> list[str]:
        """What the moderator must weigh besides the text: stand-ins, drops, the agreement, flags."""
        found = list(self.lineup.degradations)
        if self.dissent is not None and self.dissent.skip:
            found.append(f"No debate ran: {self.dissent.reason}. Only the blind answers are in the record.")
        if (latest := self.agreement()) is not None:
            found += latest.in_words()
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
            f"{result.label} ({step.title.split(' — ')[0]}): {claim}"
            for step in self.panel_steps()
            for result in self.accepted(step)
            for claim in self.grounder.contradicts(closing.with_claims(result.text, result.ledger))
        ]
