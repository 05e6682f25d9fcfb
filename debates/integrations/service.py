"""What a client outside the page may do with the panel: ask, follow up, read a question, list the
panels, judge a verdict, check the setup. The MCP tools and the OpenAI-compatible endpoint call
these; each goes through what the page goes through (the ask form, the hour's limit, who may see
what), and refuses in words with ``Refused``.
"""

import asyncio
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth.models import AbstractBaseUser

from debates import asking
from debates.admin.setup import probe_voice
from debates.endpoint import field_errors
from debates.forms import AskForm
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import FINISHED, Provider, Question
from debates.providers import check
from debates.providers.base import ProviderError, Voice
from debates.readiness import PanelOption, panel_options
from debates.represent import public_url
from debates.track import outcomes


class Refused(Exception):
    """Why a request was not carried out, in words; ``kind`` is what went wrong (``invalid``: the
    input, ``not_found``, ``rate_limited`` with ``wait`` seconds, ``conflict``), ``fields`` which
    inputs the words are about."""

    def __init__(
        self, message: str, kind: str = "invalid", fields: dict[str, list[str]] | None = None, wait: int = 0
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.fields = fields or {}
        self.wait = wait

    def __str__(self) -> str:
        details = "; ".join(f"{name}: {' '.join(words)}" for name, words in self.fields.items())
        return f"{self.message} ({details})" if details else self.message


def ask(user: AbstractBaseUser, fields: dict[str, Any], source: str) -> Question:
    """Ask the panel: the ask form's checks, the hour's limit, then the run starts (as on the page)."""
    form = AskForm(
        {name: value for name, value in fields.items() if value not in (None, "", [])},
        followable=Question.objects.visible_to(user),
    )
    if not form.is_valid():
        raise Refused("The question was not accepted.", fields=field_errors(form))
    try:
        return asking.ask(form, user, source)
    except asking.OverLimit as over:
        raise Refused(over.message, "rate_limited", wait=over.wait) from None


def visible(user: AbstractBaseUser, question_id: int) -> Question:
    """The question, if ``user`` may read it (another user's private one is no more found than a missing one)."""
    question = Question.objects.visible_to(user).select_related("panel").filter(pk=question_id).first()
    if question is None:
        raise Refused(f"No question {question_id} that you may read.", "not_found")
    return question


def summary(question_id: int, base: str = "") -> dict[str, Any]:
    """A question as a client outside the page reads it: the verdict first, then how sure, who
    dissents and why, what it cost, and the page's address (``base``: the server as the client
    reached it)."""
    debate = snapshot.build(question_id, read_state(question_id))
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
        "question": q.text,
        "panel": q.panel.slug,
        "status": q.status,
        "phase": debate.phase if debate.live else "",
        "verdict": q.verdict,
        "confidence": synthesis.confidence if synthesis else None,
        "evidence_strength": synthesis.evidence_strength if synthesis else "",
        "agreement": agreement(debate.consensus, stances),
        "dissent": dissent,
        "synthesis": synthesis.text if synthesis else "",
        "error": q.error,
        "voices": [{"voice": label, **model_of(voice)} for label, voice in who.items()],
        "calls": q.calls,
        "tokens": q.tokens_in + q.tokens_out,
        "cost": str(q.cost),
        "url": public_url(q.get_absolute_url(), base),
        "follow_up_of": q.parent_id,
    }


def agreement(consensus: dict[str, Any], stances: dict[str, dict[str, str]]) -> float | None:
    """The vote's agreement; else the share of the voices whose final stance agrees with the emerging answer."""
    if consensus and consensus.get("agreement") is not None:
        return float(consensus["agreement"])
    if not stances:
        return None
    return round(sum(s.get("stance") == "agrees" for s in stances.values()) / len(stances), 2)


def model_of(voice: dict[str, str] | None) -> dict[str, str]:
    return {"name": voice["name"], "model": voice["model"]} if voice else {}


def in_words(found: dict[str, Any]) -> str:
    """``summary`` as Markdown a model or a person reads in a tool's reply."""
    lines = [f"**Question {found['id']}** ({found['status']}, panel {found['panel']}): {found['url']}"]
    if found["verdict"]:
        lines.append(f"**Verdict:** {found['verdict']}")
    if found["status"] not in FINISHED:
        lines.append(f"Still running: {found['phase'] or 'queued'}.")
    figures = [
        f"confidence {found['confidence']:.2f}" if found["confidence"] is not None else "",
        f"agreement {found['agreement']}" if found["agreement"] is not None else "",
        f"evidence {found['evidence_strength']}" if found["evidence_strength"] else "",
        f"{found['calls']} calls, {found['tokens']} tokens, ${Decimal(found['cost']):.4f}",
    ]
    lines.append(" · ".join(part for part in figures if part))
    for entry in found["dissent"]:
        model = f" ({entry['model']})" if entry.get("model") else ""
        lines.append(f"- Dissent: {entry['voice']}{model} {entry['stance']}: {entry['why']}")
    if found["error"]:
        lines.append(f"**Error:** {found['error']}")
    if found["synthesis"]:
        lines += ["", found["synthesis"].strip()]
    return "\n".join(lines)


def panels() -> list[dict[str, Any]]:
    """Every listed panel: whether it can run now and, if not, why; what a run costs and takes."""
    return [panel_entry(option) for option in panel_options()]


def panel_entry(option: PanelOption) -> dict[str, Any]:
    panel = option.panel
    return {
        "slug": panel.slug,
        "name": panel.name,
        "protocol": panel.protocol,
        "default": panel.is_default,
        "voices": option.voices,
        "families": option.families,
        "runnable": option.runnable,
        "problems": option.problems,
        "warnings": option.warnings,
        "calls": option.calls,
        "estimated_cost": f"{option.cost:.4f}",
        "estimated_seconds": round(option.seconds, 1),
        "estimate_from_history": option.measured,
        "demo": option.demo,
    }


def record_outcome(user: AbstractBaseUser, question_id: int, value: str, note: str) -> dict[str, Any]:
    """Judge a finished verdict right, wrong or partly (the page's form, the API's outcome)."""
    question = visible(user, question_id)
    try:
        return outcomes.as_dict(outcomes.mark(question, user, value, note))
    except outcomes.Refused as refused:
        kind = {404: "not_found", 409: "conflict"}.get(refused.status, "invalid")
        raise Refused(refused.message, kind, {refused.field: [refused.message]} if refused.field else None) from None


@dataclass(frozen=True)
class Reached:
    provider: str
    ok: bool
    said: str


PROBE_TIMEOUT = 15.0  # seconds for one provider's cheapest call


async def reach(providers: list[Provider]) -> list[Reached]:
    """Each provider asked the cheapest thing it answers (its model list, or a one-token ping), at once:
    the admin's own "test connection"."""
    voices = await sync_to_async(lambda: [probe_voice(p) for p in providers])()

    async def one(provider: Provider, voice: Voice) -> Reached:
        try:
            async with asyncio.timeout(PROBE_TIMEOUT):
                return Reached(provider.name, True, await check(voice))
        except ProviderError as error:
            return Reached(provider.name, False, error.message)
        except TimeoutError:
            return Reached(provider.name, False, f"no answer within {PROBE_TIMEOUT:.0f} s")

    return list(await asyncio.gather(*(one(p, v) for p, v in zip(providers, voices, strict=True))))
