"""What the conversation partials of a question page need: the thread around the question, the
follow-up, re-ask and share forms, and the exports, for a signed-in reader or a reader by link."""

from dataclasses import dataclass
from typing import Any

from django import forms
from django.http import HttpRequest
from django.urls import reverse

from debates.conversations import sharing, threads
from debates.models import Panel, Question
from debates.roster.readiness import problems


@dataclass(frozen=True)
class PanelChoice:
    """A panel in the follow-up and re-ask selects: one that cannot run is offered greyed out."""

    panel: Panel
    problems: list[str]


@dataclass(frozen=True)
class Entry:
    """A question as this reader meets it in a thread: ``url`` None where they may not open it."""

    question: Question
    url: str | None


def entries(questions: list[Question], user: Any | None) -> list[Entry]:
    return [Entry(q, url) for q, url in zip(questions, sharing.reader_urls(questions, user), strict=True)]


def around(question: Question, user: Any | None) -> dict[str, Any]:
    """The thread above the question, and the questions that came from it, as this reader may open them."""
    later = [*question.follow_ups.all(), *question.reasks.select_related("panel")]
    opened = [entry for entry in entries(later, user) if entry.url]
    source = entries([question.reask_of], user) if question.reask_of else []
    return {
        "thread": entries(threads.ancestors(question), user),
        "reask_of": next((entry for entry in source if entry.url), None),
        "follow_ups": [entry for entry in opened if entry.question.parent_id == question.pk],
        "reasks": [entry for entry in opened if entry.question.reask_of_id == question.pk],
    }


def question_context(request: HttpRequest, question: Question, **bound: forms.Form) -> dict[str, Any]:
    """For the signed-in question page; ``bound`` holds a refused form to show again with its errors."""
    panels = [PanelChoice(panel, problems(panel)) for panel in Panel.objects.order_by("name")]
    # Re-asking starts on another panel that can run, the follow-up on the question's own.
    others = [choice.panel for choice in panels if choice.panel.pk != question.panel_id and not choice.problems]
    can_share = question.can_act(request.user)
    initial = {"visibility": question.visibility, "hide_cost": question.hide_cost}
    share_form = (bound.get("share_form") or sharing.ShareForm(initial=initial)) if can_share else None
    followup_form, reask_form = bound.get("followup_form"), bound.get("reask_form")
    link = sharing.link_path(question) if can_share else None
    return {
        **around(question, request.user),
        "panels": panels,
        "followup_form": followup_form,
        "followup_panel": followup_form["panel"].value() if followup_form else question.panel.slug,
        "can_follow_up": not question.is_finished or not threads.refusal(question),
        "reask_form": reask_form,
        "reask_panel": reask_form["panel"].value() if reask_form else (others or [question.panel])[0].slug,
        "share_form": share_form,
        "share_url": request.build_absolute_uri(link) if link else None,
        "exports": {fmt: reverse("debates:export", args=[question.pk, fmt]) for fmt in ("md", "json")},
    }


def link_context(question: Question) -> dict[str, Any]:
    """For the read-only page a link opens: the thread as links open it, the link's own exports."""
    token = question.share_token
    return {
        **around(question, None),
        "hide_cost": question.hide_cost,
        "exports": {fmt: reverse("debates:shared_export", args=[token, fmt]) for fmt in ("md", "json")},
    }
