"""Runs one question through its protocol: one engine, three protocols as configuration.

``run(spec, sink, prior)`` walks the plan (protocols.plan), calling every active voice of a
panel step in parallel. Each completed contribution goes to the sink, which stores it before
the run continues; ``prior`` holds what was stored before a crash, replayed without calling
anyone, so a resumed run never bills a completed vote twice.
"""

import asyncio
import json
import re
from collections.abc import Awaitable, Callable

from debates.engine import calls, consensus, dossier, gates, prompts
from debates.engine.events import (
    PanelChanged,
    PhaseChanged,
    RoundFinished,
    RoundStarted,
    RunFinished,
    Sink,
    VoteResult,
)
from debates.engine.policy import Panel, RunStopped
from debates.engine.protocols import Step, plan, planned_calls
from debates.engine.spec import RunSpec, Seat
from debates.engine.vote import VoteSteps

Prior = dict[tuple[int, str], VoteResult]
Grounder = Callable[[str, str], Awaitable[str]]

SECTION = re.compile(r"^#{1,3}\s*(.+?)\s*$", re.MULTILINE)


async def run(spec: RunSpec, sink: Sink, prior: Prior | None = None, grounder: Grounder | None = None) -> RunFinished:
    """Run (or resume) a question; returns the RunFinished it also emitted."""
    engine = Engine(spec, sink, prior or {}, grounder)
    try:
        finished = await engine.walk()
    except RunStopped as stop:
        finished = RunFinished("failed", error=str(stop), reveal=engine.panel.reveal())
    await sink.emit(finished)
    return finished


class Engine(VoteSteps):
    def __init__(self, spec: RunSpec, sink: Sink, prior: Prior, grounder: Grounder | None) -> None:
        self.spec = spec
        self.sink = sink
        self.prior = prior
        self.grounder = grounder
        self.panel = Panel(spec)
        self.steps = plan(spec)
        self.done: dict[str, dict[str, VoteResult]] = {}  # step kind -> seat key -> ok result
        self.grounding = spec.grounding
        self.consensus: consensus.Consensus | None = None

    # --- walking the plan --------------------------------------------------------------
    async def walk(self) -> RunFinished:
        calls_planned = planned_calls(
            self.spec.protocol, len(self.spec.seats), self.spec.rounds, self.spec.merge_critique, self.spec.force_panel
        )
        reported = self.panel.report(calls_planned)
        await self.sink.emit(PanelChanged(reported))
        for step in self.steps:
            await self.sink.emit(PhaseChanged(step.title, step.index + 1, len(self.steps)))
            outcome = await getattr(self, f"step_{step.kind}")(step)
            if isinstance(outcome, RunFinished):
                return outcome
            if (report := self.panel.report(calls_planned)) != reported:
                reported = report
                await self.sink.emit(PanelChanged(report))
        raise AssertionError("every protocol ends with a synthesis or a decision")  # pragma: no cover

    async def one(self, step: Step, seat: Seat, kind: str, messages, check=lambda _text: "") -> VoteResult:
        """A single call, or its stored result when resuming."""
        stored = self.prior.get((step.index, seat.key))
        if stored is not None:
            return await calls.finish(self.sink, stored, replayed=True)
        result = await calls.call(self.sink, step.index, seat, kind, messages, check)
        return await calls.finish(self.sink, self.enrich(result))

    async def solo(self, step: Step, seat: Seat, messages, check=lambda _text: "") -> VoteResult:
        """A step of one call (triage, synthesis, tie-break), shown as a round of its own."""
        await self.sink.emit(RoundStarted(step.index, step.kind, step.title, (seat.key,), (seat.label,)))
        result = await self.one(step, seat, step.kind, messages, check)
        await self.sink.emit(RoundFinished(step.index, "done" if result.ok else "failed"))
        return result

    async def panel_round(self, step: Step, build, check=lambda _text: "") -> dict[str, VoteResult]:
        """Every active voice in parallel; the failure policy decides about the failed ones."""
        seats = self.panel.active
        await self.sink.emit(
            RoundStarted(step.index, step.kind, step.title, tuple(s.key for s in seats), tuple(s.label for s in seats))
        )
        results = await asyncio.gather(*(self.one(step, s, step.kind, build(s), check) for s in seats))
        ok = {r.seat: r for r in results if r.ok}
        for failed in (r for r in results if not r.ok):
            seat = self.panel.by_key(failed.seat)
            substitute = self.panel.on_failure(seat, failed, step, ok)
            if substitute is not None:
                retry = await self.one(step, substitute, step.kind, build(substitute), check)
                if retry.ok:
                    ok[substitute.key] = retry
                    continue
                self.panel.drop(substitute, retry, step)
        self.panel.check_enough(step)
        await self.sink.emit(RoundFinished(step.index, "done"))
        self.done[step.kind] = ok
        return ok

    def entries(self, kind: str, exclude: str = "") -> list[tuple[str, str]]:
        """(label, text) of a step's accepted results — never a failed or gated one."""
        return [(r.label, r.text) for key, r in self.done.get(kind, {}).items() if key != exclude]

    def fenced(self, kind: str, exclude: str = "") -> str:
        return dossier.dossier(self.entries(kind, exclude), self.spec.all_names())

    def brief(self) -> str:
        return prompts.brief(self.spec.question, self.spec.context, self.grounding)

    def own(self, kind: str, seat: Seat) -> str:
        result = self.done.get(kind, {}).get(seat.key)
        return dossier.dossier([(seat.label, result.text)], self.spec.all_names()) if result else "(no answer)"

    # --- steps -------------------------------------------------------------------------
    async def step_grounding(self, step: Step) -> None:
        if self.grounder is None:
            return
        seat = Seat("sympy", "SymPy", self.spec.moderator.voice, "SymPy", "", "")
        stored = self.prior.get((step.index, seat.key))
        if stored is None:
            text = await self.grounder(self.spec.question, self.spec.context)
            if not text.strip():
                return  # no maths: the step is skipped cleanly
            stored = VoteResult(step.index, seat.key, seat.label, "grounding", "done", text=text)
        await self.sink.emit(RoundStarted(step.index, "grounding", step.title, (seat.key,), (seat.label,)))
        await calls.finish(self.sink, stored, replayed=(step.index, seat.key) in self.prior)
        await self.sink.emit(RoundFinished(step.index, "done"))
        self.grounding = stored.text

    async def step_answer(self, step: Step) -> None:
        brief = self.brief()
        await self.panel_round(
            step,
            lambda s: prompts.messages(s.method, "answer", brief=brief),
            check=lambda text: gates.gate(text, self.spec.question),
        )

    async def step_debate(self, step: Step) -> None:
        # The first debate reads the blind answers; a later one reads the previous debate.
        source = "answer" if "debate" not in self.done else "debate"
        entries = self.fenced(source)
        await self.panel_round(
            step,
            lambda s: prompts.messages(s.method, "debate", brief=self.brief(), label=s.label, dossier=entries),
            check=gates.phantom,
        )

    async def step_critique(self, step: Step) -> None:
        """Each voice attacks the others' blind answers (merged runs: and states its final position)."""
        await self.panel_round(
            step,
            lambda s: prompts.messages(
                s.method, step.kind, brief=self.brief(), label=s.label, dossier=self.fenced("answer", s.key)
            ),
            check=gates.phantom,
        )

    step_critique_final = step_critique

    async def step_final(self, step: Step) -> None:
        await self.panel_round(
            step,
            lambda s: prompts.messages(
                s.method,
                "final",
                brief=self.brief(),
                label=s.label,
                own=self.own("answer", s),
                dossier=self.fenced("critique", s.key),
            ),
            check=gates.phantom,
        )

    async def step_triage(self, step: Step) -> RunFinished | None:
        if self.spec.force_panel:
            return None  # the asker's explicit request always opens the panel
        moderator = self.spec.moderator
        calls_planned = planned_calls("adversarial", len(self.spec.seats), self.spec.rounds, self.spec.merge_critique)
        result = await self.solo(
            step, moderator, prompts.messages("none", "triage", brief=self.brief(), calls=str(calls_planned))
        )
        verdict = parse_triage(result.text) if result.ok else None
        if verdict is None or verdict.get("panel", True) or verdict.get("stakes") != "low":
            return None  # unclear or high stakes: the panel is worth its cost
        answer = str(verdict.get("direct_answer") or "").strip()
        if not answer:
            return None
        note = (
            f"Triage judged this question low-stakes ({verdict.get('reason', 'no reason given')}), so it "
            'got a direct answer. Ask again with "always run the full panel" for a debate.'
        )
        return RunFinished(
            "answered",
            verdict=answer[:500],
            synthesis=f"{answer}\n\n*{note}*",
            sections={"Answer": answer, "Triage": note},
            reveal=self.panel.reveal(),
        )

    async def step_synthesis(self, step: Step) -> RunFinished:
        record = "\n\n".join(
            f"### {s.title}\n\n{self.fenced(s.kind)}" for s in self.steps if s.panel and self.done.get(s.kind)
        )
        heterogeneity = self.panel.heterogeneity()
        note = f"\nEvidence strength: {heterogeneity.note}\n"
        template = "synthesis_teorema" if self.spec.protocol == "teorema" else "synthesis_adversarial"
        moderator = self.spec.moderator
        result = await self.solo(
            step,
            moderator,
            prompts.messages(
                "none",
                template,
                brief=self.brief(),
                dossier=record,
                evidence_note=note,
                contradictions=self.contradictions(),
            ),
            check=gates.phantom,
        )
        if not result.ok:
            raise RunStopped(f"The moderator failed: {result.error}")
        sections = split_sections(result.text)
        verdict_key = next((k for k in sections if k.casefold() in {"verdict", "conclusion"}), None)
        verdict = headline(sections[verdict_key] if verdict_key else result.text)
        return RunFinished(
            "done",
            verdict=verdict,
            synthesis=result.text,
            sections=sections,
            evidence_strength=heterogeneity.strength,
            reveal=self.panel.reveal(),
        )

    def contradictions(self) -> str:
        """Claims that contradict the verified facts, for the moderator."""
        checker = self.spec.extra.get("contradicts")
        if not (checker and self.grounding):
            return ""
        found = [
            f"- {label}: {claim}" for kind in self.done for label, text in self.entries(kind) for claim in checker(text)
        ]
        return ("\nClaims contradicting the verified facts:\n" + "\n".join(found) + "\n") if found else ""


def parse_triage(text: str) -> dict | None:
    try:
        return json.loads(text[text.index("{") : text.rindex("}") + 1])
    except ValueError:
        return None


def split_sections(text: str) -> dict[str, str]:
    """Markdown '## Heading' sections of the synthesis, in order."""
    marks = list(SECTION.finditer(text))
    return {
        m.group(1): text[m.end() : marks[i + 1].start() if i + 1 < len(marks) else len(text)].strip()
        for i, m in enumerate(marks)
    }


HEADING = re.compile(r"^\s*#{1,6}\s.*$", re.MULTILINE)
VERDICT_CHARS = 400


def headline(text: str) -> str:
    """The verdict as one line for lists: no headings, cut at a sentence near 400 characters."""
    plain = " ".join(HEADING.sub("", text).split())
    if len(plain) <= VERDICT_CHARS:
        return plain
    cut = plain[:VERDICT_CHARS]
    end = max(cut.rfind(". "), cut.rfind("! "), cut.rfind("? "))
    return cut[: end + 1] if end > VERDICT_CHARS // 2 else cut.rstrip() + "…"
