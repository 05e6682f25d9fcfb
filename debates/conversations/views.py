"""Follow up, ask again on another panel, share, read by link, download.

A refused form shows the question page again with its errors (400, or 429 over the hourly
limit), so what the asker typed is not lost.
"""

from collections.abc import Sequence

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from debates import service
from debates.access import visible_question
from debates.attachments import check as files
from debates.attachments import shown
from debates.attachments.check import Upload
from debates.conversations import export, page, sharing
from debates.forms import AskForm, shown_on
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import Question
from debates.question_page import render_question
from debates.refusal import Kind, Refused

# A link page is nobody's to index or to keep in a shared cache: revoking it must end it.
LINK_HEADERS = {"X-Robots-Tag": "noindex, nofollow", "Cache-Control": "private, no-store"}


@login_required
@require_POST
def follow_up(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    data = request.POST.copy()
    data["follow_up_of"] = str(asked.pk)
    uploads = files.from_form(request.FILES.getlist("attachments"))
    form = service.ask_form(request.user, data)
    return submit(request, asked, form, "followup_form", attachments=uploads, sent=uploads)


@login_required
@require_POST
def ask_again(request: HttpRequest, pk: int) -> HttpResponse:
    """The same question (text, context, options, settings, files) on the panel picked: a new question."""
    asked = visible_question(request, pk)
    same = {"text": asked.text, "context": asked.context, "criticality": asked.criticality, "options": asked.options}
    same |= {"force_panel": asked.force_panel, "debate": asked.debate, "panel": request.POST.get("panel", "")}
    again = [Upload(row.name, row.media_type, row.file.read()) for row in asked.attachments.all()]
    form = service.ask_form(request.user, same)
    return submit(request, asked, form, "reask_form", reask_of=asked, attachments=again)


def submit(
    request: HttpRequest,
    asked: Question,
    form: AskForm,
    name: str,
    reask_of: Question | None = None,
    attachments: list[Upload] | None = None,
    sent: Sequence[Upload] = (),
) -> HttpResponse:
    """Start the new question and open it, or show ``asked`` again with the form's errors (and the
    files ``sent`` from the browser to attach again)."""
    try:
        return redirect(service.submit(form, request.user, reask_of=reask_of, attachments=attachments))
    except Refused as refused:
        return render_question(request, asked, status=shown_on(form, refused, sent), **{name: form})


@login_required
@require_POST
def share(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    fields: dict[str, str | bool] = {"visibility": request.POST.get("visibility", "")}
    fields |= {box: bool(request.POST.get(box)) for box in ("hide_cost", "new_link")}  # unticked: False
    try:
        shared = service.share(request.user, asked.pk, **fields)
    except Refused as refused:
        if refused.kind == Kind.NOT_FOUND:
            raise Http404(refused.message) from None
        return render_question(request, asked, status=refused.status, share_form=sharing.ShareForm(request.POST))
    messages.success(request, sharing.said(shared, request))
    return redirect(shared)


def shared(request: HttpRequest, token: str) -> HttpResponse:
    """The read-only page a link opens, signed in or not: no asker, no forms, no cost if hidden."""
    asked = sharing.by_link(token)
    debate = snapshot.build(asked.pk, read_state(asked.pk))
    files = shown.for_question(asked, debate.names, token=token)
    context = {"debate": debate, "files": files, **page.link_context(asked)}
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
