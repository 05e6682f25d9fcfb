"""Follow up, ask again on another panel, share, read by link, download.

A refused form shows the question page again with its errors (400, or 429 over the hourly
limit), so what the asker typed is not lost.
"""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from debates import asking
from debates.access import visible_question
from debates.conversations import export, page, sharing
from debates.forms import AskForm
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import Question
from debates.question_page import render_question

# A link page is nobody's to index or to keep in a shared cache: revoking it must end it.
LINK_HEADERS = {"X-Robots-Tag": "noindex, nofollow", "Cache-Control": "private, no-store"}


@login_required
@require_POST
def follow_up(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    data = request.POST.copy()
    data["follow_up_of"] = str(asked.pk)
    form = AskForm(data, followable=Question.objects.visible_to(request.user))
    return submit(request, asked, form, "followup_form")


@login_required
@require_POST
def ask_again(request: HttpRequest, pk: int) -> HttpResponse:
    """The same question (text, context, options, settings) on the panel picked: a new question."""
    asked = visible_question(request, pk)
    same = {"text": asked.text, "context": asked.context, "criticality": asked.criticality, "options": asked.options}
    same |= {"force_panel": asked.force_panel, "debate": asked.debate, "panel": request.POST.get("panel", "")}
    return submit(request, asked, AskForm(same), "reask_form", reask_of=asked)


def submit(
    request: HttpRequest, asked: Question, form: AskForm, name: str, reask_of: Question | None = None
) -> HttpResponse:
    """Start the new question and open it, or show ``asked`` again with the form's errors."""
    status = 400
    if form.is_valid():
        assert request.user.is_authenticated, "login_required let only a signed-in user through"
        try:
            return redirect(asking.ask(form, request.user, reask_of=reask_of))
        except asking.OverLimit as refused:
            form.add_error(None, refused.message)
            status = 429
    return render_question(request, asked, status=status, **{name: form})


@login_required
@require_POST
def share(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    if not asked.can_act(request.user):
        raise Http404("No such question.")
    form = sharing.ShareForm(request.POST)
    if not form.is_valid():
        return render_question(request, asked, status=400, share_form=form)
    sharing.share(asked, **form.cleaned_data)
    messages.success(request, sharing.said(asked, request))
    return redirect(asked)


def shared(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only page a link opens, signed in or not: no asker, no forms, no cost if hidden."""
    asked = sharing.by_link(token)
    context = {"debate": snapshot.build(asked.pk, read_state(asked.pk)), **page.link_context(asked)}
    return unlisted(render(request, "debates/shared.html", context))


@login_required
def download(request: HttpRequest, pk: int, fmt: str) -> HttpResponse:
    return export.response(request, visible_question(request, pk), fmt, request.user)


def shared_download(request: HttpRequest, token: str, fmt: str) -> HttpResponse:
    return unlisted(export.response(request, sharing.by_link(token), fmt, None))


def unlisted(response: HttpResponse) -> HttpResponse:
    for header, value in LINK_HEADERS.items():
        response[header] = value
    return response
