"""The steps of the teorema and adversarial protocols: plain functions over a ``Run``.

Each takes the run and its step, calls voices through the run, and returns a RunFinished when
the run ends there (a direct answer, the synthesis) or None to go on.
"""

from decimal import Decimal
from typing import TYPE_CHECKING

from debates.engine import calls, consensus, prompts
from debates.engine import ledger as ledgers
from debates.engine.events import ContributionResult, RoundFinished, RoundStarted, RunFinished
from debates.engine.policy import RunStopped
from debates.engine.reading import gates
from debates.engine.reading import synthesis as reader
from debates.engine.reading import triage as triage_reading
from debates.engine.reading.ballot import Ballot
from debates.engine.vocabulary import Criticality, DebateMode, Outcome, Protocol, Status
from debates.providers.base import Message

if TYPE_CHECKING:
    from debates.engine.protocols import Step
    from debates.engine.run import Run

SYMPY = "sympy"
DEBATE_KINDS = frozenset({"debate", "critique", "final", "critique_final"})  # what debate = on_dissent may skip


async def grounding(run: "Run", step: "Step") -> None:
    """SymPy before the panel: verified facts the brief carries (skipped cleanly with no maths)."""
    stored = run.prior.get((step.index, SYMPY))
    if stored is None:
        if run.grounder is None:
            return
        text = await run.grounder.ground(run.spec.question, run.spec.context)
        if not text.strip():
            return
        stored = ContributionResult(step.index, SYMPY, "SymPy", "grounding", Outcome.DONE, text=text)
    await run.sink.emit(RoundStarted(step.index, "grounding", step.title, (SYMPY,), ("SymPy",)))
    await calls.finish(run.sink, stored, replayed=(step.index, SYMPY) in run.prior)
    await run.sink.emit(RoundFinished(step.index, "done"))
    run.grounding = stored.text


async def answer(run: "Run", step: "Step") -> None:
    """The blind round: the brief only, nobody else's answer."""
    brief = run.brief()
    await run.panel_round(
        step,
        lambda seat, _position: prompts.messages("answer", seat.method, brief=brief),
        check=lambda text: gates.gate(text, run.spec.question),
    )
    if run.spec.debate == DebateMode.ON_DISSENT:
        run.dissent = check_dissent(run, step)
        run.calls_planned -= run.dissent.calls_saved  # the page's "calls made / planned" stays true


def check_dissent(run: "Run", step: "Step") -> ledgers.DissentCheck:
    """After the blind round: does the panel agree (the criticality's threshold over every voice
    that answered), and which claims are contested? Skipping is reported with what it saved."""
    ledger = run.ledger()
    answered = run.results[step.index]
    decisions = ledger.decisions()
    ballots = [Ballot(label, decision, None, "") for label, decision in decisions.items()]
    groups, _ = consensus.group(ballots, run.spec.similarity) if ballots else ([], [])
    threshold = consensus.THRESHOLDS[run.spec.criticality]
    top = len(groups[0][1]) if groups else 0
    agreement, needed = f"{top}/{len(answered)}", f"{threshold.numerator}/{threshold.denominator}"
    agreed = len(answered) >= consensus.MIN_VOTES and top * threshold.denominator >= threshold.numerator * len(
        answered
    )  # exact fractions, over every voice that answered (one without an ANSWER line does not agree)
    check = ledgers.dissent(
        ledger, agreed, agreement, needed, run.lineup.heterogeneity().strength == "strong", run.contradictions()
    )
    if not check.skip:
        return check
    skipped = [s for s in run.steps if s.kind in DEBATE_KINDS]
    tokens, cost = 0, Decimal("0")
    written = sum(r.tokens_out for r in answered.values())
    for result in answered.values():  # each skipped call would have read every answer and written as much again
        voice = run.lineup.by_key(result.seat).voice
        tokens_in, tokens_out = result.tokens_in + written, result.tokens_out
        tokens += tokens_in + tokens_out
        cost += (tokens_in * voice.price_in + tokens_out * voice.price_out) / Decimal(1_000_000)
    return ledgers.DissentCheck(
        True, check.reason, agreement, needed, check.contested, check.shared,
        calls_saved=len(skipped) * len(answered), tokens_saved=tokens * len(skipped),
        cost_saved=(cost * len(skipped)).quantize(Decimal("0.000001")),
    )  # fmt: skip


def skipping(run: "Run") -> bool:
    """debate = on_dissent and the blind round agreed: no debate round runs."""
    return run.dissent is not None and run.dissent.skip


async def debate(run: "Run", step: "Step") -> None:
    """Teorema: each voice confirms, corrects or refutes the latest dossier (answers, then debates)."""
    if skipping(run):
        return
    await discuss(run, step, run.latest("answer", "debate", before=step))


async def discuss(run: "Run", step: "Step", source: "Step | None") -> None:
    """Every voice reads ``source``'s contributions (its own included) and confirms or refutes them."""
    await run.panel_round(
        step,
        lambda seat, position: prompts.messages(
            "debate",
            seat.method,
            brief=run.brief(),
            label=seat.label,
            dossier=run.fenced(source, rotation=position),
            contested=run.claims_note(source),
        ),
        check=gates.phantom,
    )


async def critique(run: "Run", step: "Step") -> None:
    """Each voice attacks the others' latest positions (merged runs: and states its final position)."""
    if skipping(run):
        return
    source = run.latest("answer", "critique", before=step)
    await run.panel_round(
        step,
        lambda seat, position: prompts.messages(
            step.kind,
            seat.method,
            brief=run.brief(),
            label=seat.label,
            dossier=run.fenced(source, seat.key, rotation=position),
            contested=run.claims_note(source),
        ),
        check=gates.phantom,
    )


async def final(run: "Run", step: "Step") -> None:
    """Each voice answers the critiques of the last cross-critique round, from its own blind answer."""
    if skipping(run):
        return
    blind, critiques = run.latest("answer", before=step), run.latest("critique", before=step)
    await run.panel_round(
        step,
        lambda seat, position: prompts.messages(
            "final",
            seat.method,
            brief=run.brief(),
            label=seat.label,
            own=run.own(blind, seat),
            dossier=run.fenced(critiques, seat.key, rotation=position),
        ),
        check=gates.phantom,
    )


async def triage(run: "Run", step: "Step") -> RunFinished | None:
    """Is a panel worth its cost? Judged by the stakes; a high criticality always opens it."""
    spec = run.spec
    if spec.force_panel or spec.criticality == Criticality.HIGH:
        return None  # the asker's explicit request, or stakes the asker called high
    result = await run.solo(
        step,
        spec.moderator,
        prompts.messages(
            "triage",
            role="facilitator",
            brief=run.brief(),
            calls=str(run.calls_planned),
            criticality=spec.criticality,
        ),
    )
    verdict = triage_reading.read(result.text) if result.ok else None
    if verdict is None or verdict.get("panel", True) or verdict.get("stakes") != "low":
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


async def synthesis(run: "Run", step: "Step") -> RunFinished:
    """The moderator reads every round once; if it fails, a disclosed stand-in writes it."""
    record = "\n\n".join(f"### {s.title}\n\n{run.fenced(s)}" for s in run.panel_steps())
    heterogeneity = run.lineup.heterogeneity()
    role = "moderator" if run.spec.protocol == Protocol.TEOREMA else "facilitator"

    def ask() -> list[Message]:
        weigh = block("What to weigh besides the text", run.notes())
        return prompts.messages(
            "synthesis_teorema" if run.spec.protocol == Protocol.TEOREMA else "synthesis_adversarial",
            role=role,
            brief=run.brief(),
            dossier=record,
            evidence_note=f"\nEvidence strength: {heterogeneity.note}\n{weigh}",
            contradictions=block("Claims contradicting the verified facts", run.contradictions()),
            ledger=ledger_block(run),
        )

    result = await run.solo(step, run.spec.moderator, ask(), check=gates.phantom)
    if not result.ok:
        stand_in = run.lineup.moderator_stand_in(result)
        if stand_in is None:
            raise RunStopped(f"The {role} failed: {result.error}. The panel's work is kept: retry the synthesis.")
        result = await run.one(step, stand_in, ask(), check=gates.phantom)
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
    )


def ledger_block(run: "Run") -> str:
    text = run.ledger().for_moderator()
    return (
        f"\nThe claim ledger (read by the program from the panelists' closing blocks; build the audit "
        f"trail of attacks accepted and rejected from it, and check it against the text):\n{text}\n"
        if text
        else ""
    )


def block(title: str, lines: list[str]) -> str:
    return f"\n{title}:\n" + "\n".join(f"- {line}" for line in lines) + "\n" if lines else ""
