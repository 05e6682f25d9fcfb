"""A debate as every client outside the page reads it, never a key or a prompt: the JSON API, the
exports, MCP and Telegram take it from here, in these names and with this one agreement figure."""

from decimal import Decimal
from typing import Any

from django.conf import settings
from django.urls import reverse

from debates.attachments import shown
from debates.live import snapshot, story
from debates.models import Question


def public_url(path: str, base: str = "") -> str:
    """``path`` on the server: at ``base`` (the server as the client reached it), else at the site's
    configured address (``TEOREMA_PUBLIC_URL``); "" when neither is known (a link is then left out,
    never guessed)."""
    root = base.rstrip("/") or settings.TEOREMA["PUBLIC_URL"]
    return root + path if root else ""


def urls(question: Question, base: str = "") -> dict[str, str]:
    """The question's page, its JSON and its live socket."""
    page = public_url(question.get_absolute_url(), base)
    api = public_url(reverse("debates:api_question", args=[question.pk]), base)
    socket = public_url(f"/ws/questions/{question.pk}/", base).replace("http", "ws", 1)
    return {"url": page, "api_url": api, "ws_url": socket}


def represent(debate: snapshot.Debate, base: str = "") -> dict[str, Any]:
    """The debate as JSON: what the page shows, never a key or a prompt."""
    q = debate.question
    synthesis = debate.synthesis
    return {
        "id": q.pk,
        **urls(q, base),
        "text": q.text,
        "context": q.context,
        "panel": q.panel.slug,
        "protocol": q.panel.protocol,
        "criticality": q.criticality,
        "force_panel": q.force_panel,
        "search": q.search,
        "options": q.options,
        "debate": q.debate or q.panel.debate,
        "deadline": q.deadline or q.panel.deadline,
        "max_cost": None if q.max_cost is None else str(q.max_cost),
        "follow_up_of": q.parent_id,
        "reask_of": q.reask_of_id,
        "visibility": q.visibility,
        "source": q.source,
        "status": q.status,
        "phase": debate.phase,
        "error": q.error,
        "verdict": q.verdict,
        "agreement": story.agreement(debate.ledger, debate.consensus),
        "rounds": [
            {
                "index": r.index,
                "kind": r.kind,
                "title": r.title,
                "status": r.status,
                "contributions": [
                    {
                        "seat": c.seat,
                        "label": c.label,
                        "kind": c.kind,
                        "status": c.status,
                        "text": c.text,
                        "error": c.error,
                        "decision": c.decision,
                        "confidence": c.confidence,
                        "flags": c.flags,
                        "change": c.change or None,
                        "closing": c.record or None,  # its closing block as read: answer, claims, attacks…
                        "sources": [note.as_dict() for note in c.footnotes],  # what it cites, numbered
                        "looked_up": [{"url": s.url, "title": s.title} for s in c.looked_up],
                        "unsourced": c.unsourced,  # it could search, or did, and cites nothing
                        "searches": c.searches,
                        "tokens_in": c.tokens_in,
                        "tokens_out": c.tokens_out,
                        "cost": None if c.on_subscription or c.cost is None else str(c.cost),
                        "on_subscription": c.on_subscription,  # a CLI voice whose plan paid: no cost
                        "latency_ms": c.latency_ms,
                        "thought": c.thought,  # its provider's summary of its reasoning, no part of its text
                    }
                    for c in r.cards
                ],
            }
            for r in debate.rounds
        ],
        "synthesis": synthesis
        and {
            "text": synthesis.text,
            "sections": synthesis.sections,
            "evidence_strength": backed(debate)["evidence_strength"],
            "confidence": synthesis.confidence,
            "stances": synthesis.stances,
        },
        "consensus": debate.consensus or None,
        "ledger": debate.ledger or None,
        "panel_run": {k: v for k, v in debate.panel_run.items() if k != "reveal"},
        "identities": debate.reveal,
        "calls": q.calls,
        "tokens_in": q.tokens_in,
        "tokens_out": q.tokens_out,
        "cost": str(q.cost),
        "voices_on_subscription": q.voices_on_subscription,  # their calls are in no cost: a plan paid
        "created_at": q.created_at.isoformat(),
        "finished_at": q.finished_at.isoformat() if q.finished_at else None,
        "attachments": attachments(q, base),
    }


def attachments(question: Question, base: str = "", token: str = "") -> list[dict[str, Any]]:
    """The files the panel read, with where to download each (``token``: by the question's link) and how
    each voice (by label) received it."""
    found = shown.for_question(question, token=token)
    return [shown.as_json(one, public_url(one.download, base)) for one in found]


def summary(debate: snapshot.Debate, base: str = "") -> dict[str, Any]:
    """The debate in short, for a model's or a person's reading in a tool's reply: the verdict first,
    then how sure, the agreement, who dissents and why, what it cost, and the page's address.
    The names are ``represent``'s own."""
    q = debate.question
    synthesis = debate.synthesis
    who = {voice["label"]: voice for voice in debate.reveal}
    stances = (debate.ledger or {}).get("stances", {})
    dissent = [
        {"voice": label, "stance": s["stance"], "why": s.get("why", ""), **model_of(who.get(label))}
        for label, s in stances.items()
        if s.get("stance") in {"disagrees", "partly", "unexplained"}
    ]
    return {
        "id": q.pk,
        "url": public_url(q.get_absolute_url(), base),
        "text": q.text,
        "panel": q.panel.slug,
        "status": q.status,
        "phase": debate.phase if debate.live else "",
        "verdict": q.verdict,
        "confidence": synthesis.confidence if synthesis else None,
        **backed(debate),
        "agreement": story.agreement(debate.ledger, debate.consensus),
        "dissent": dissent,
        "synthesis": debate.synthesis_text,  # as people read it: no line a program reads, labels named
        "sources": story.panel_sources(
            [(c.label, [note.as_dict() for note in c.footnotes]) for r in debate.rounds for c in r.cards]
        ),
        "searched": (debate.ledger or {}).get("searched", {}),  # label -> its web searches
        "error": q.error,
        "degraded": list(debate.panel_run.get("degradations", [])),  # a voice dropped or stood in for, and why
        "identities": [{"voice": label, **model_of(voice)} for label, voice in who.items()],
        "calls": q.calls,
        "tokens_in": q.tokens_in,
        "tokens_out": q.tokens_out,
        "cost": str(q.cost),
        "voices_on_subscription": q.voices_on_subscription,  # their calls are in no cost: a plan paid
        "follow_up_of": q.parent_id,
    }


def backed(debate: snapshot.Debate) -> dict[str, Any]:
    """How far the panel backs the verdict, as the page's chip says it (``support``), and what that
    agreement is worth given the panel's heterogeneity (``evidence_strength``): one reading for
    every surface."""
    support = debate.support
    heterogeneity = debate.synthesis.evidence_strength if debate.synthesis else ""
    return {
        "support": {"level": support.level, "words": support.words} if support else None,
        "evidence_strength": story.evidence(support, heterogeneity),
    }


def model_of(voice: dict[str, str] | None) -> dict[str, str]:
    return {"name": voice["name"], "model": voice["model"]} if voice else {}


def cost_line(calls: int, tokens: int, cost: Decimal | str, on_subscription: int = 0) -> str:
    """What a run cost, in the one wording every channel prints (``on_subscription``: its voices a
    CLI's subscription paid for)."""
    return f"{calls} calls · {tokens:,} tokens · {story.cost_said(cost, on_subscription)}"
