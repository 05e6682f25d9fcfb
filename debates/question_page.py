"""The question page, live or after the fact: what it shows, and whether it must poll instead of
listening on its socket (a run held by another process while broadcasts stay in-process)."""

import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from django.forms import Form
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from debates.attachments import shown
from debates.conversations import page as conversations
from debates.live import snapshot
from debates.live.layer import broadcasts_stay_in_process
from debates.live.state import read_state
from debates.models import Question
from debates.runs import lease


def render_question(request: HttpRequest, asked: Question, status: int = 200, **bound: Form) -> HttpResponse:
    """The question page; ``bound`` holds a refused form of its own to show with its errors."""
    debate = snapshot.build(asked.pk, read_state(asked.pk))
    can_act = asked.can_act(request.user)
    context = {
        "debate": debate,
        "can_cancel": debate.live and can_act,
        "outcome_form": bound.get("outcome_form"),
        "files": shown.for_question(asked, debate.names),
        **live_context(debate),
        **conversations.question_context(request, asked, **bound),
    }
    return render(request, "debates/question.html", context, status=status)


@dataclass(frozen=True)
class Elsewhere:
    """A run whose lease another process holds, while the live text cannot cross processes."""

    holder: str  # "pid 12345 on this machine", "pid 12345 on host-b"
    lapsed: bool  # the holder stopped renewing the lease: it died or was interrupted
    local: bool  # local mode: only a starting web server resumes a lapsed run (no worker polls for it)


def elsewhere(asked: Question) -> Elsewhere | None:
    """Whether this page must poll the database instead of opening a socket that would never move."""
    owner = asked.lease_owner
    if asked.status not in lease.RESUMABLE or owner in {"", lease.OWNER} or not broadcasts_stay_in_process():
        return None
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    place = "this machine" if host == lease.OWNER.partition(":")[0] else host
    lapsed = asked.lease_expires is None or asked.lease_expires < timezone.now()
    return Elsewhere(f"pid {pid} on {place}" if pid else owner, lapsed, settings.RUN_IN_PROCESS)


def live_context(debate: snapshot.Debate) -> dict:
    """``away`` (an Elsewhere or None), and ``mark``: what a polling page saw, so a poll that would swap
    in the same region gets a 204 instead (a reader's open folds and chosen tab stay as they are)."""
    away = elsewhere(debate.question)
    q = debate.question
    rounds = [(r.index, r.status, [(c.seat, c.status) for c in r.cards]) for r in debate.rounds]
    seen = [q.status, debate.phase, q.cancel_requested, q.calls, away and away.lapsed, rounds]
    return {"away": away, "mark": hashlib.sha256(json.dumps(seen, default=str).encode()).hexdigest()[:16]}
