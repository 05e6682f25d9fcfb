"""Template filters of the viewer: sanitised markdown, durations in words, method labels, the claim ledger."""

import json
import time
from collections.abc import Iterable, Mapping
from datetime import timedelta
from typing import Any

from django import template
from django.utils.safestring import SafeString

from debates.attachments import check as files
from debates.conversations import threads
from debates.engine import sourcing
from debates.engine.reading import closing
from debates.lib import render
from debates.live import claims, story
from debates.models import Method, Question
from debates.roster import readiness

register = template.Library()


@register.filter
def followable(question: Question) -> bool:
    """Whether a follow-up may be asked of ``question``: one that ended with a verdict (docs/viewer.md)."""
    return not threads.refusal(question)


@register.filter
def agreement(question: Question) -> str:
    """The question's agreement in the run page's words (History's column)."""
    return story.agreement_words(question.ledger, question.consensus)


@register.filter
def markdown(text: str) -> SafeString:
    """Untrusted model text → sanitised HTML (see debates/lib/render.py)."""
    return render.markdown(text)


@register.filter
def site(url: str) -> str:
    """A cited page's site, as people name it ("nature.com")."""
    return sourcing.site(url)


@register.filter
def link(url: str) -> str:
    """A cited page's address where the page may link to it (http or https), else ""."""
    return sourcing.link(url)


@register.filter
def searches_of(ledger: Mapping | None, label: str) -> int:
    """The web searches the ledger counts for a voice (0: none)."""
    return int(((ledger or {}).get("searched") or {}).get(label, 0))


@register.filter
def milliseconds(value: int | float | None) -> str:
    """A number of milliseconds in words: "4.2 s" / "3 min 12 s"."""
    return "" if value is None else _in_words(value / 1000)


@register.filter
def cost_said(question: Question) -> str:
    """A question's cost as every channel says it: its dollars and the voices on a subscription."""
    return story.cost_said(question.cost, question.voices_on_subscription)


@register.filter
def duration(value: timedelta | None) -> str:
    """A timedelta in words: "4.2 s" / "3 min 12 s"."""
    return "" if value is None else _in_words(value.total_seconds())


def _in_words(total: float) -> str:
    if total < 60:
        return f"{total:.1f} s"
    return f"{int(total // 60)} min {int(total % 60)} s"


@register.filter
def about(seconds: float) -> str:
    """An estimate in round words: "about 40 s", "about 3 min"."""
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5)} s"
    return f"about {round(seconds / 60)} min"


@register.filter
def time_left(debate: Any) -> str:
    """A running debate's time left in words ("about 40 s left"), as of now; "" once it is over or
    when nothing can be said. ``debate``: a snapshot's Debate or the live state, which both carry
    ``finished``, ``totals`` and ``panel_run``."""
    totals = debate.totals
    if debate.finished or not totals.started:
        return ""
    planned = debate.panel_run.get("calls_planned", 0)
    left = readiness.time_left(time.time() - totals.started, totals.expected, totals.calls, planned)
    return f"{about(left)} left" if left else ""


@register.filter
def method_label(value: str) -> str:
    """The method's label ("first_principles" is "First principles"); unknown values as they are."""
    method = value or Method.NONE
    return Method(method).label if method in Method else value


@register.simple_tag(takes_context=True)
def debate_check(context: template.Context, check: Mapping) -> tuple[str, str]:
    """``{% debate_check check as said %}``: what on_dissent decided, as the exports say it (the cost
    left out where the page hides it)."""
    return story.debate_check(check, cost=not context.get("hide_cost"))


@register.simple_tag
def claim_ledger(
    ledger: Mapping | None, reveal: Iterable[Mapping[str, str]] | None = None, moderator: Mapping | None = None
) -> claims.LedgerView | None:
    """``{% claim_ledger debate.ledger debate.reveal debate.synthesis.stances as ledger %}``: the ledger as
    the page draws it (the live state has no reveal and no synthesis: they come once the run is over)."""
    return claims.view(ledger, reveal or (), moderator) if ledger else None


@register.simple_tag
def closing_headings() -> str:
    """The closing block's headings, compared as ``closing.HEADING_OF`` compares them, for stream.js to
    hold a streaming card's block back as the finished card does."""
    return json.dumps(sorted(closing.HEADING_OF))


@register.simple_tag
def attach_limits() -> dict:
    """The attachment limits, for the picker's own checks and the words shown before sending."""
    return files.limits() | {"words": files.in_words()}
