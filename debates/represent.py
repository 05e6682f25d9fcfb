"""A debate as the API shows it, never a key or a prompt; exports write from the same JSON."""

import os

from django.http import HttpRequest
from django.urls import reverse

from debates.live import snapshot
from debates.models import Question

# Where the web server is for a link made outside a request (the terminal, stdio MCP):
# TEOREMA_PUBLIC_URL, as the Telegram links, else `make run`'s address.
DEFAULT_PUBLIC_URL = "http://127.0.0.1:8000"


def public_url(path: str, base: str = "") -> str:
    """``path`` on the server: at ``base`` (the request's own address), else the configured one."""
    return (base.rstrip("/") or os.environ.get("TEOREMA_PUBLIC_URL", "").rstrip("/") or DEFAULT_PUBLIC_URL) + path


def urls(request: HttpRequest, question: Question) -> dict:
    page = request.build_absolute_uri(question.get_absolute_url())
    socket = request.build_absolute_uri(f"/ws/questions/{question.pk}/").replace("http", "ws", 1)
    api = request.build_absolute_uri(reverse("debates:api_question", args=[question.pk]))
    return {"url": page, "api_url": api, "ws_url": socket}


def represent(request: HttpRequest, debate: snapshot.Debate) -> dict:
    """The debate as JSON: what the page shows, never a key or a prompt."""
    q = debate.question
    synthesis = debate.synthesis
    return {
        "id": q.pk,
        **urls(request, q),
        "text": q.text,
        "context": q.context,
        "panel": q.panel.slug,
        "protocol": q.panel.protocol,
        "criticality": q.criticality,
        "force_panel": q.force_panel,
        "options": q.options,
        "debate": q.debate or q.panel.debate,
        "deadline": q.deadline or q.panel.deadline,
        "follow_up_of": q.parent_id,
        "reask_of": q.reask_of_id,
        "visibility": q.visibility,
        "source": q.source,
        "status": q.status,
        "phase": debate.phase,
        "error": q.error,
        "verdict": q.verdict,
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
                        "tokens_in": c.tokens_in,
                        "tokens_out": c.tokens_out,
                        "cost": str(c.cost) if c.cost is not None else None,
                        "latency_ms": c.latency_ms,
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
            "evidence_strength": synthesis.evidence_strength,
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
        "created_at": q.created_at.isoformat(),
        "finished_at": q.finished_at.isoformat() if q.finished_at else None,
    }
