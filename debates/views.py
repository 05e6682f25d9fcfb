"""The pages: ask, watch a debate (live, or after the fact), history, cancel."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.db.models import Q, QuerySet
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from debates import ratelimit, runs, snapshot
from debates.forms import AskForm, panel_options
from debates.live import read_state
from debates.models import Question, Status

HISTORY_PAGE = 20


@login_required
def ask(request: HttpRequest) -> HttpResponse:
    form = AskForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        wait = ratelimit.take(request.user.pk)
        if not wait:
            question = form.save(owner=request.user)
            runs.submit(question)
            return redirect(question)
        form.add_error(None, ratelimit.refusal(wait))
        status = 429
    elif request.method == "POST":
        status = 400
    return render(request, "debates/ask.html", {"form": form, "options": panel_options()}, status=status)


def visible_question(request: HttpRequest, pk: int) -> Question:
    """A question the user may see; another user's private one does not exist for them."""
    question = get_object_or_404(Question, pk=pk)
    if not question.visible_to(request.user):
        raise Http404("No such question.")
    return question


@login_required
def question(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    debate = snapshot.build(asked.pk, read_state(asked.pk))
    can_cancel = debate.live and (asked.owner_id == request.user.pk or request.user.is_staff)
    return render(request, "debates/question.html", {"debate": debate, "can_cancel": can_cancel})


@login_required
@require_POST
def cancel(request: HttpRequest, pk: int) -> HttpResponse:
    asked = visible_question(request, pk)
    if asked.owner_id != request.user.pk and not request.user.is_staff:
        raise Http404("No such question.")
    if asked.is_finished:
        messages.info(request, "This debate had already finished.")
    else:
        runs.cancel(asked.pk)
        messages.info(request, "Cancelling: the panel stops after the calls in flight.")
    return redirect(asked)


def visible_questions(user) -> QuerySet[Question]:
    questions = Question.objects.select_related("panel", "owner")
    return questions if user.is_staff else questions.filter(Q(owner=user) | Q(is_private=False))


@login_required
def history(request: HttpRequest) -> HttpResponse:
    questions = visible_questions(request.user)
    search = request.GET.get("q", "").strip()
    if search:
        questions = questions.filter(Q(text__icontains=search) | Q(verdict__icontains=search))
    status = request.GET.get("status", "")
    if status in Status.values:
        questions = questions.filter(status=status)
    page = Paginator(questions, HISTORY_PAGE).get_page(request.GET.get("page"))
    context = {"page": page, "search": search, "status": status, "statuses": Status.choices}
    return render(request, "debates/history.html", context)
