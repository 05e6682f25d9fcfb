"""Finished debates stored as the recorder stores them, without running one: the rows the track record reads."""

from dataclasses import dataclass, field

from debates.models import Contribution, Panel, Question, Round, VerdictOutcome

STANCES = {"agrees", "partly", "disagrees", "unknown"}


@dataclass
class Voice:
    """One voice's part in a debate: its stance on the verdict, what it stated, what happened to its calls."""

    stance: str = "agrees"
    confidences: tuple[float, ...] = (0.8,)  # its claims' (teorema) or its ballot's first (vote)
    claims: tuple[str, ...] = ()  # its claims' texts, one per confidence ("claim 1"… when left out)
    decision: str = ""  # vote: its ballot
    change: str = ""  # the debate round's CHANGE line: "partial", "total", or "" for no debate row
    reason: str = ""
    flags: tuple[str, ...] = ()
    latency_ms: int = 1000
    cost: str = "0.001"
    debate_status: str = "done"  # the debate round's contribution: done, failed or gated
    debate_error: str = ""
    text: str = "An answer."


@dataclass
class Debate:
    voices: dict[str, Voice]  # label -> voice, in seat order
    outcome: str = ""
    status: str = "done"
    consensus: dict = field(default_factory=dict)
    human_decision: str = ""
    grounding: str = ""  # the grounding brief (Grounding.as_brief) when SymPy verified facts


def store(panel: Panel, debate: Debate, owner=None, **fields) -> Question:
    """One finished question of ``panel`` (whose roster gives the seats, in order) as a run leaves it."""
    members = panel.roster()
    labels = list(debate.voices)
    assert len(labels) <= len(members), "more voices than the panel's roster"
    roster = [
        {"seat": f"p{i}", "label": label, "panelist_id": m.pk, "name": m.name, "model": m.model, "family": m.family}
        for i, (label, m) in enumerate(zip(labels, members, strict=False), 1)
    ]
    ledger = {}
    if panel.protocol != "vote":
        ledger = {"stances": {label: {"stance": v.stance, "why": ""} for label, v in debate.voices.items()}}
    question = Question.objects.create(
        owner=owner,
        panel=panel,
        text=fields.pop("text", "Read replicas or sharding?"),
        criticality="medium",
        status=debate.status,
        verdict=fields.pop("verdict", "Add read replicas"),
        roster=roster,
        ledger=ledger,
        consensus=debate.consensus,
        human_decision=debate.human_decision,
        panel_run={
            "heterogeneity": "families",
            "evidence": "strong",
            "note": f"the panel spans {len({m.family for m in members})} model families",
        },
        **fields,
    )
    index = 0
    if debate.grounding:
        grounding = Round.objects.create(question=question, index=0, kind="grounding", title="Verified maths")
        Contribution.objects.create(
            round=grounding, seat="sympy", label="SymPy", kind="grounding", status="done", text=debate.grounding
        )
    kind = "vote" if panel.protocol == "vote" else "answer"
    index += 1
    blind = Round.objects.create(question=question, index=index, kind=kind, title="Round 0")
    for (label, voice), entry in zip(debate.voices.items(), roster, strict=True):
        texts = voice.claims or tuple(f"claim {n}" for n in range(1, len(voice.confidences) + 1))
        claims = [
            {"id": f"{label[-1]}{n}", "text": text, "confidence": c}
            for n, (text, c) in enumerate(zip(texts, voice.confidences, strict=True), 1)
        ]
        Contribution.objects.create(
            round=blind,
            seat=entry["seat"],
            label=label,
            panelist_id=entry["panelist_id"],
            kind=kind,
            status="done",
            text=voice.text,
            decision=voice.decision,
            confidence=voice.confidences[0] if kind == "vote" else None,
            flags=list(voice.flags),
            ledger={"claims": claims} if kind == "answer" else {},
            latency_ms=voice.latency_ms,
            cost=voice.cost,
            tokens_in=1000,
            tokens_out=200,
        )
    debating = {label: v for label, v in debate.voices.items() if v.change or v.debate_status != "done"}
    if debating:
        index += 1
        later = Round.objects.create(question=question, index=index, kind="debate", title="Round 1")
        seats = {entry["label"]: entry for entry in roster}
        for label, voice in debating.items():
            change = {"change": {"degree": voice.change, "reason": voice.reason}} if voice.change else {}
            Contribution.objects.create(
                round=later,
                seat=seats[label]["seat"],
                label=label,
                panelist_id=seats[label]["panelist_id"],
                kind="debate",
                status=voice.debate_status,
                error=voice.debate_error,
                ledger=change,
                latency_ms=voice.latency_ms,
                cost=voice.cost,
            )
    if debate.outcome:
        VerdictOutcome.objects.create(question=question, value=debate.outcome)
    return question
