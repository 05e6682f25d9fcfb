"""Who may read a question besides its asker and staff, and what a reader by link sees.

A link is an unguessable token (``secrets.token_urlsafe``) that exists only while the question
is shared by link: leaving link sharing drops it (the old link opens nothing), and a new link
replaces it. A reader by link sees the debate read-only: no asker, no forms, and no cost when
the asker hid it.
"""

import secrets
from collections.abc import Sequence
from typing import Any

from django import forms
from django.db import transaction
from django.http import Http404, HttpRequest
from django.urls import reverse

from debates.lib.readable import ReadableForm
from debates.live.consumers import recheck_viewers
from debates.models import Question, Visibility

TOKEN_BYTES = 24  # 32 URL-safe characters
COST_KEYS = frozenset({"cost", "cost_saved", "max_cost", "on_subscription", "voices_on_subscription"})


class ShareForm(ReadableForm):
    visibility = forms.ChoiceField(
        choices=Visibility.choices(),
        error_messages={
            "required": "Say who may read it: private, users or link.",
            "invalid_choice": "“%(value)s” is not a visibility: use private, users or link.",
        },
    )
    hide_cost = forms.BooleanField(required=False, label="Hide the cost on the link")
    new_link = forms.BooleanField(required=False, help_text="Replace the link: the old one stops opening it.")


def share(question: Question, visibility: str, hide_cost: bool, new_link: bool = False) -> None:
    """Set who may read ``question``; a link is made when first needed, dropped when link sharing ends."""
    question.visibility = visibility
    question.hide_cost = hide_cost
    if visibility != Visibility.LINK:
        question.share_token = ""
    elif new_link or not question.share_token:
        question.share_token = secrets.token_urlsafe(TOKEN_BYTES)
    question.save(update_fields=["visibility", "hide_cost", "share_token"])
    transaction.on_commit(lambda: recheck_viewers(question.pk))  # a reader let go stops streaming


def by_link(token: str) -> Question:
    """The question a link opens; a revoked or made-up link is a 404 like any unknown page."""
    found = Question.objects.select_related("panel").filter(visibility=Visibility.LINK, share_token=token)
    question = found.first() if token else None
    if question is None:
        raise Http404("No such link: it may have been revoked.")
    return question


def link_path(question: Question) -> str | None:
    """The read-only link's path, while the question is shared by link."""
    if question.visibility != Visibility.LINK or not question.share_token:
        return None
    return reverse("debates:shared", args=[question.share_token])


def said(question: Question, request: HttpRequest) -> str:
    """What changed, for the message after the share form."""
    if question.visibility == Visibility.PRIVATE:
        return "Private: only you and staff can open it; any earlier link no longer opens it."
    if question.visibility == Visibility.USERS:
        return "Shared with every signed-in user: it is in their history; any earlier link no longer opens it."
    cost = " The link shows no cost." if question.hide_cost else ""
    return f"Anyone with this link can read it: {request.build_absolute_uri(link_path(question))}{cost}"


def reader_urls(questions: Sequence[Question], user: Any | None) -> list[str | None]:
    """Where this reader may open each question, None where they may not: the page for a signed-in
    reader allowed to see it; for a reader by link (``user`` None), the question's own link."""
    if user is None:
        return [link_path(question) for question in questions]
    pks = [question.pk for question in questions]
    visible = set(Question.objects.visible_to(user).filter(pk__in=pks).values_list("pk", flat=True))
    return [question.get_absolute_url() if question.pk in visible else None for question in questions]


def without_cost(data: Any) -> Any:
    """``data`` (the API's JSON) with every cost figure taken out, at any depth."""
    if isinstance(data, dict):
        return {key: without_cost(value) for key, value in data.items() if key not in COST_KEYS}
    if isinstance(data, list):
        return [without_cost(item) for item in data]
    return data
