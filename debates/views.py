"""The pages: ask, watch a debate (live, or after the fact), history, cancel."""

import hashlib
import json
from dataclasses import dataclass

from django.conf import settings
from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from debates import discover, ratelimit
from debates.conversations import page as conversations
from debates.conversations.threads import history_page
from debates.forms import AskForm
from debates.live import snapshot
from debates.live.layer import broadcasts_stay_in_process
from debates.live.state import read_state
from debates.models import Question, Status
from debates.readiness import panel_options
from debates.runs import execute, lease, tasks

HISTORY_PAGE = 20


@login_required
def ask(request: HttpRequest) -> HttpResponse:
    form = AskForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        assert request.user.is_authenticated, "login_required let only a signed-in user through"
        wait = ratelimit.take(request.user.pk)
        if not wait:
            question = form.save(owner=request.user)
            tasks.submit(question)
            return redirect(question)
        form.add_error(None, ratelimit.refusal(wait))
        status = 429
    elif request.method == "POST":
        status = 400
    options = panel_options()
    runnable = any(option.runnable for option in options)
    chosen = next((o for o in options if o.panel.slug == form["panel"].value()), None)
    demo = chosen is not None and chosen.demo
    context = {
        "form": form,
        "options": options,
        "runnable": runnable,
        "demo": demo,
        # Looked for only when it helps: the panel on offer is the demo model, or none can run.
        "servers": discover.local_servers() if demo or not runnable else [],
    }
    return render(request, "debates/ask.html", context, status=status)


@staff_member_required
@require_POST
def adopt_local_server(request: HttpRequest, preset: str) -> HttpResponse:
    """Make a panel of a local server's models (found again now: a posted URL is never trusted)."""
    server = next((s for s in discover.local_servers() if s.preset == preset), None)
    if server is None:
        messages.error(request, "That local server is not answering any more: start it and reload this page.")
    else:
        panel = discover.adopt(server)
        messages.success(request, f"The panel “{panel.name}” is ready, made the default: ask it something.")
    return redirect("debates:ask")


def visible_question(request: HttpRequest, pk: int) -> Question:
    """A question the user may see; another user's private one does not exist for them."""
    return get_object_or_404(Question.objects.visible_to(request.user), pk=pk)


@login_required
def question(request: HttpRequest, pk: int) -> HttpResponse:
    return render_question(request, visible_question(request, pk))


def render_question(request: HttpRequest, asked: Question, status: int = 200, **bound: Form) -> HttpResponse:
    """The question page; ``bound`` holds a refused form of its own to show with its errors."""
    debate = snapshot.build(asked.pk, read_state(asked.pk))
    can_act = asked.can_act(request.user)
    context = {
        "debate": debate,
        "can_cancel": debate.live and can_act,
        "can_retry": can_act and asked.synthesis_failed,
        **live_context(debate),
        **conversations.question_context(request, asked, **bound),
    }
    return render(request, "debates/question.html", context, status=status)


@login_required
def question_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The live region alone, for a page that polls a run held by another process (204: nothing new)."""
    asked = visible_question(request, pk)
    debate = snapshot.build(asked.pk, read_state(asked.pk))
    found = live_context(debate)
    if request.GET.get("seen") == found["mark"]:
        return HttpResponse(status=204)
    context = {"debate": debate, "can_cancel": debate.live and asked.can_act(request.user), "polled": True, **found}
    return render(request, "debates/partials/live.html", context)


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


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    if not asked.can_act(request.user):
        raise Http404("No such question.")
    if asked.is_finished:
        messages.info(request, "This debate had already finished.")
    else:
        execute.cancel(asked.pk)
        messages.info(request, "Cancelling: the panel stops after the calls in flight.")
    return redirect(asked)


@login_required
@require_POST
def retry_synthesis(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    if not asked.can_act(request.user):
        raise Http404("No such question.")
    if tasks.retry_synthesis(asked):
        messages.info(request, "Writing the synthesis again from the panel's stored work; nothing else is re-run.")
    else:
        messages.info(request, "There is no failed synthesis to write again.")
    return redirect(asked)


@login_required
def history(request: HttpRequest) -> HttpResponse:
    questions = Question.objects.visible_to(request.user).select_related("panel", "owner")
    search = request.GET.get("q", "").strip()
    if search:
        questions = questions.filter(Q(text__icontains=search) | Q(verdict__icontains=search))
    status = request.GET.get("status", "")
    if status in Status:
        questions = questions.filter(status=status)
    page = history_page(questions, request.GET.get("page"), HISTORY_PAGE)
    context = {"page": page, "search": search, "status": status, "statuses": Status.choices()}
    return render(request, "debates/history.html", context)
