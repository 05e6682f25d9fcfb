"""The pages: ask, watch a debate (live, or after the fact), history, cancel."""

from django.contrib import messages
from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from debates import service
from debates.access import visible_question
from debates.attachments import check as files
from debates.conversations.threads import history_page
from debates.examples import EXAMPLES
from debates.forms import shown_on
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import Question, Status
from debates.question_page import live_context, render_question
from debates.refusal import Kind, Refused
from debates.roster import discover
from debates.roster.readiness import missing_key, next_step, panel_options, providers_needing_keys
from debates.runs import execute

HISTORY_PAGE = 20


@login_required
def ask(request: HttpRequest) -> HttpResponse:
    form = service.ask_form(request.user, request.POST or None)
    status = 200
    uploads: list[files.Upload] = []
    if request.method == "POST":
        try:
            uploads = files.from_form(request.FILES.getlist("attachments"))
            return redirect(service.submit(form, request.user, attachments=uploads))
        except Refused as refused:
            status = shown_on(form, refused, uploads)
    options = panel_options()
    runnable = any(option.runnable for option in options)
    chosen = next((o for o in options if o.panel.slug == form["panel"].value()), None)
    demo = chosen is not None and chosen.demo
    context = {
        "form": form,
        "options": options,
        "runnable": runnable,
        "demo": demo,
        # Where the demo stands on the way to real answers: a panel that can run, else the next thing to add.
        "real_panel": next((o.panel for o in options if o.runnable and not o.demo), None) if demo else None,
        "next_step": next_step() if demo else None,
        "examples": EXAMPLES,
        "needing_keys": [(provider, missing_key(provider)) for provider in providers_needing_keys()],
        # Looked for only when it helps: the panel on offer is the demo model, or none can run.
        "servers": discover.local_servers() if demo or not runnable else [],
        "clis": discover.installed_clis() if demo or not runnable else [],
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


@staff_member_required
@require_POST
def try_cli(request: HttpRequest, preset: str) -> HttpResponse:
    """One tiny call to a CLI found here whose login only a call can tell (found again now)."""
    if not any(found.preset == preset for found in discover.installed_clis()):
        messages.error(request, "That CLI is not installed here any more: reload this page.")
        return redirect("debates:ask")
    answered, said = discover.try_cli(preset)
    (messages.success if answered else messages.error)(request, said)
    return redirect("debates:ask")


@staff_member_required
@require_POST
def adopt_clis(request: HttpRequest) -> HttpResponse:
    """Make a panel of the CLIs logged in on this machine (found again now)."""
    try:
        panel = discover.adopt_clis(discover.installed_clis())
    except ValueError:
        messages.error(request, "No CLI on this machine is logged in any more: log one in and reload this page.")
    else:
        messages.success(request, f"The panel “{panel.name}” is ready, made the default: ask it something.")
    return redirect("debates:ask")


@login_required
def question(request: HttpRequest, pk: int) -> HttpResponse:
    return render_question(request, visible_question(request, pk))


@login_required
def question_live(request: HttpRequest, pk: int) -> HttpResponse:
    """The live region alone, for a page that polls a run held by another process (204: nothing new)."""
    asked = visible_question(request, pk)
    debate = snapshot.build(asked.pk, read_state(asked.pk))
    found = live_context(debate)
    if request.GET.get("seen") == found["mark"]:
        return HttpResponse(status=204)
    context = {
        "debate": debate,
        "can_cancel": debate.live and asked.can_act(request.user),
        "polled": True,
        "swapped": True,
        **found,
    }
    return render(request, "debates/partials/live.html", context)


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    try:
        cancelled = service.cancel(request.user, asked.pk)
    except Refused as refused:
        raise Http404(refused.message) from None
    if cancelled:
        messages.info(request, "Cancelling: the panel stops after the calls in flight.")
    else:
        messages.info(request, "This debate had already finished.")
    return redirect(asked)


def recover(request: HttpRequest, pk: int) -> HttpResponse:
    """What the asker of a failed run can do (retry the failed voices, or go on without them); nothing
    for anyone else, or for a run that did not fail."""
    asked = visible_question(request, pk)
    if asked.status != Status.FAILED or not asked.can_act(request.user):
        return HttpResponse("")
    failure = execute.failure_of(asked)
    return render(request, "debates/partials/recover.html", {"q": asked, "failure": failure})


RETRIED = {
    True: "Going on without the failed voices, as the degrade policy would; the page says so.",
    False: "Making the failed calls again; every completed contribution is reused.",
}


@login_required
@require_POST
def retry(request: HttpRequest, pk: int) -> HttpResponse:
    """The failed calls made again, or (``without``) the run goes on without the failed voices."""
    asked = visible_question(request, pk)
    without = request.POST.get("without") == "1"
    try:
        service.retry(request.user, asked.pk, without_failed=without)
    except Refused as refused:
        if refused.kind == Kind.NOT_FOUND:
            raise Http404(refused.message) from None
        messages.error(request, refused.message)
    else:
        messages.info(request, RETRIED[without])
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
    # An evaluation's items are its own page's business: here only when asked for.
    evaluations = request.GET.get("evaluations") == "1"
    if not evaluations:
        questions = questions.filter(evaluation_items__isnull=True)
    page = history_page(questions, request.GET.get("page"), HISTORY_PAGE)
    context = {
        "page": page,
        "search": search,
        "status": status,
        "statuses": Status.choices(),
        "evaluations": evaluations,
    }
    return render(request, "debates/history.html", context)
