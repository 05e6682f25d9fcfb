"""The steps of the teorema and adversarial protocols: plain functions over a ``Run``.

Each takes the run and its step, calls voices through the run, and returns a RunFinished when
the run ends there (a direct answer, the synthesis) or None to go on.
"""

from dataclasses import replace
from decimal import Decimal

from debates.engine import calls, checks, prompts, traced
from debates.engine import ledger as ledgers
from debates.engine.context import Run
from debates.engine.events import ContributionResult, LedgerUpdated, RoundFinished, RoundStarted, RunFinished
from debates.engine.policy import RunStopped
from debates.engine.protocols import Step, planned_calls
from debates.engine.reading import gates
from debates.engine.reading import synthesis as reader
from debates.engine.reading import triage as triage_reading
from debates.engine.spec import Seat
from debates.engine.vocabulary import DEBATE_KINDS, Criticality, DebateMode, Outcome, Protocol, Status, StepKind
from debates.providers.base import Message

SYMPY = "sympy"
MAX_BRIEF = 2000


async def grounding(run: Run, step: Step) -> None:
    """SymPy before the panel: verified facts the brief carries (skipped cleanly with no maths)."""
    stored = run.prior.get((step.index, SYMPY))
    if stored is None:
        if run.grounder is None:
            return
        text = await run.grounder.ground(run.spec.question, run.spec.context)
        if not text.strip():
            return
        stored = ContributionResult(step.index, SYMPY, "SymPy", StepKind.GROUNDING, Outcome.DONE, text=text)
    await run.sink.emit(RoundStarted(step.index, StepKind.GROUNDING, step.title, (SYMPY,), ("SymPy",)))
    await calls.finish(run.sink, stored, replayed=(step.index, SYMPY) in run.prior)
    await run.sink.emit(RoundFinished(step.index, "done"))
    run.grounding = stored.text


async def check(run: Run, step: Step) -> None:
    """The computations the round before states, checked by SymPy (engine.checks); a round that
    states none shows no step."""
    stored = run.prior.get((step.index, checks.SEAT))
    if stored is None:
        source = run.steps[step.index - 1]
        if run.grounder is None or not run.results.get(source.index):
            return
        with traced.tool("sympy"):
            new = checks.unchecked(run.checks, await run.grounder.check(checks.said(run.accepted(source))))
        if not new:
            return
        text = checks.in_words(new)
        stored = ContributionResult(
            step.index, checks.SEAT, checks.LABEL, StepKind.CHECK, Outcome.DONE, text=text, ledger={"checks": new}
        )
    await run.sink.emit(RoundStarted(step.index, StepKind.CHECK, step.title, (checks.SEAT,), (checks.LABEL,)))
    await calls.finish(run.sink, stored, replayed=(step.index, checks.SEAT) in run.prior)
    await run.sink.emit(RoundFinished(step.index, "done"))
    run.checks += list(stored.ledger.get("checks", []))
    await run.sink.emit(LedgerUpdated(run.ledger().as_dict()))


async def triage(run: Run, step: Step) -> RunFinished | None:
    """The facilitator writes the brief and, on an adversarial panel, judges whether a panel is worth
    its cost: by the stakes, and never where the asker decided (an explicit request, a high criticality)."""
    spec = run.spec
    decide = spec.protocol == Protocol.ADVERSARIAL and not (spec.force_panel or spec.criticality == Criticality.HIGH)
    result = await run.solo(
        step, spec.moderator, prompts.triage(run.brief(spec.moderator), run.calls_planned, spec.criticality, decide)
    )
    verdict = triage_reading.read(result.text) if result.ok else None
    if verdict is None:
        return None  # no brief and no decision: the panel runs on the asker's words
    if isinstance(written := verdict.get("brief"), str) and written.strip():
        run.restated = written.strip()[:MAX_BRIEF]
    if not decide or verdict.get("panel", True) or verdict.get("stakes") != "low":
        return None  # unclear or high stakes: the panel is worth its cost
    direct = str(verdict.get("direct_answer") or "").strip()
    if not direct:
        return None
    note = (
        f"Triage judged this question low-stakes ({verdict.get('reason', 'no reason given')}), so it "
        'got a direct answer. Ask again with "always run the full panel" for a debate.'
    )
    return RunFinished(
        Status.ANSWERED,
        verdict=reader.headline(direct),
        synthesis=f"{direct}\n\n*{note}*",
        sections=[["Answer", direct], ["Triage", note]],
        reveal=run.lineup.reveal(),
    )


async def answer(run: Run, step: Step) -> None:
    """The blind round: the brief only, nobody else's answer."""
    await run.panel_round(step, lambda seat, _position: prompts.messages("answer", seat.method, brief=run.brief(seat)))
    if run.spec.debate == DebateMode.ON_DISSENT:
        run.dissent = check_dissent(run, step)
        if run.dissent.skip:  # the page's "calls made / planned" stays true
            skipped = [s for s in run.steps if s.kind in DEBATE_KINDS]
            run.calls_planned -= planned_calls(skipped, len(run.lineup.active), run.judging)


def check_dissent(run: Run, step: Step) -> ledgers.DissentCheck:
    """After the blind round: does every voice that answered give one answer, and which claims are
    contested? Skipping is reported with what it saved, net of the judge's call that decided it."""
    check = ledgers.dissent(
        run.ledger(),
        run.lineup.heterogeneity().strength == "strong",
        run.contradictions(),
        adversarial=run.spec.protocol == Protocol.ADVERSARIAL,
    )
    judge = run.judgements.get(step.index)
    spent = (1, judge.tokens_in + judge.tokens_out, judge.cost) if judge else (0, 0, Decimal("0"))
    if not check.skip:
        return replace(check, judge_calls=spent[0], judge_tokens=spent[1], judge_cost=spent[2])
    answered = run.results[step.index]
    skipped = [s for s in run.steps if s.kind in DEBATE_KINDS]
    tokens, cost = 0, Decimal("0")
    written = sum(r.tokens_out for r in answered.values())
    for result in answered.values():  # each skipped call would have read every answer and written as much again
        voice = run.lineup.by_key(result.seat).voice
        tokens_in, tokens_out = result.tokens_in + written, result.tokens_out
        tokens += tokens_in + tokens_out
        cost += (tokens_in * voice.price_in + tokens_out * voice.price_out) / Decimal(1_000_000)
    # A skipped round of answers would have had its judge's call too (the blind round's, as an estimate).
    judged = sum(s.judged for s in skipped) if judge else 0
    calls_skipped = len(skipped) * len(answered) + judged
    gross_tokens, gross_cost = tokens * len(skipped) + judged * spent[1], cost * len(skipped) + judged * spent[2]
    return replace(
        check,
        calls_skipped=calls_skipped,
        calls_saved=calls_skipped - spent[0],
        tokens_saved=gross_tokens - spent[1],
        cost_saved=(gross_cost - spent[2]).quantize(Decimal("0.000001")),
        judge_calls=spent[0],
        judge_tokens=spent[1],
        judge_cost=spent[2],
    )


def skipping(run: Run) -> bool:
    """debate = on_dissent and every voice gave one answer: no debate round runs."""
    return run.dissent is not None and run.dissent.skip


async def debate(run: Run, step: Step) -> None:
    """Teorema: each voice confirms, corrects or refutes the latest dossier (answers, then debates)."""
    if skipping(run):
        return
    await discuss(run, step, run.latest(StepKind.ANSWER, StepKind.DEBATE, before=step))


async def discuss(run: Run, step: Step, source: Step | None) -> None:
    """Every voice reads ``source``'s contributions (its own included) and confirms or refutes them."""
    await run.panel_round(
        step,
        lambda seat, position: prompts.messages(
            "debate",
            seat.method,
            brief=run.brief(seat),
            label=seat.label,
            dossier=run.fenced(source, rotation=position),
            checks=prompts.checks_block(run.checks),
            contested=prompts.claims_note(run.ledger(), run.dissent, source.kind if source else None, seat.label),
            **prompts.examples(seat.label, run.labels()),
        ),
    )


async def critique(run: Run, step: Step) -> None:
    """Each voice attacks the others' latest positions (merged runs: and states its final position).

    On an adversarial panel that agrees the critique still runs (agreement without new arguments is
    a failed round), narrowed to the contested claims."""
    source = run.latest(StepKind.ANSWER, StepKind.CRITIQUE, before=step)
    await run.panel_round(
        step,
        lambda seat, position: prompts.messages(
            step.kind,
            seat.method,
            brief=run.brief(seat),
            label=seat.label,
            dossier=run.fenced(source, seat.key, rotation=position),
            checks=prompts.checks_block(run.checks),
            contested=prompts.claims_note(
                run.ledger(), run.dissent, source.kind if source else None, seat.label, attacking=True
            ),
            **prompts.examples(seat.label, run.labels()),
        ),
    )


async def final(run: Run, step: Step) -> None:
    """Each voice answers the critiques of the last cross-critique round, from its own blind answer."""
    blind, critiques = run.latest(StepKind.ANSWER, before=step), run.latest(StepKind.CRITIQUE, before=step)
    await run.panel_round(
        step,
        lambda seat, position: prompts.messages(
            "final",
            seat.method,
            brief=run.brief(seat),
            label=seat.label,
            own=run.own(blind, seat),
            dossier=run.fenced(critiques, seat.key, rotation=position),
            checks=prompts.checks_block(run.checks),
            **prompts.examples(seat.label, run.labels()),
        ),
    )


async def synthesis(run: Run, step: Step) -> RunFinished:
    """The moderator reads every round once; if it fails, a disclosed stand-in writes it."""
    record = "\n\n".join(f"### {s.title}\n\n{run.fenced(s)}" for s in run.panel_steps())
    heterogeneity = run.lineup.heterogeneity()
    role = "moderator" if run.spec.protocol == Protocol.TEOREMA else "facilitator"

    def ask(seat: Seat) -> list[Message]:
        weigh = prompts.block("What to weigh besides the text", run.notes())
        return prompts.messages(
            "synthesis_teorema" if run.spec.protocol == Protocol.TEOREMA else "synthesis_adversarial",
            role=role,
            brief=run.brief(seat),
            dossier=record,
            evidence_note=f"\nEvidence strength: {heterogeneity.note}\n{weigh}",
            contradictions=prompts.block("Claims contradicting the verified facts", run.contradictions()),
            checks=prompts.checks_block(run.checks, moderator=True),
            ledger=prompts.ledger_block(run.ledger()),
            labels=", ".join(sorted(run.ledger().labels())),
        )

    result = await run.solo(step, run.spec.moderator, ask(run.spec.moderator), check=gates.gate)
    if result.status == Outcome.CANCELLED:  # the deadline: a stand-in would have no time either
        raise RunStopped(f"The {role} was {result.error}. The panel's work is kept: retry the synthesis.")
    if not result.ok:
        stand_in = run.lineup.moderator_stand_in(result)
        if stand_in is None:
            raise RunStopped(f"The {role} failed: {result.error}. The panel's work is kept: retry the synthesis.")
        result = await run.one(step, stand_in, ask(stand_in), check=gates.gate)
        await run.sink.emit(RoundFinished(step.index, "done" if result.ok else "failed"))
        if not result.ok:
            raise RunStopped(
                f"The {role} and its stand-in failed ({result.error}). The panel's work is kept: retry the synthesis."
            )
    reading = reader.read(result.text)
    return RunFinished(
        Status.DONE,
        verdict=reading.verdict,
        confidence=reading.confidence,
        synthesis=result.text,
        sections=[list(pair) for pair in reading.sections],
        evidence_strength=heterogeneity.strength,
        reveal=run.lineup.reveal(),
        stances=dict(reading.stances),
    )
