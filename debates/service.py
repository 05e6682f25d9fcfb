"""The one service behind every way in: the page, the JSON API, MCP, the OpenAI-compatible endpoint,
Telegram and the CLI ask, follow up, read, cancel, retry, judge a verdict and list the panels here,
on the page's rules (the ask form, the hour's limit, who may see and act on what), and are refused
with one ``Refused``. A channel only translates: its input into keyword arguments, a refusal into
its own error shape.

``user`` None is the operator at the server's terminal (``manage.py``): they may read and act on
every question, and the hourly limit, which guards a server from a runaway client, is theirs to
ignore.
"""

import asyncio
from contextlib import nullcontext
from typing import Any

from asgiref.sync import sync_to_async
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.cache import cache
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.forms import Form

from debates import represent
from debates.attachments import check as files
from debates.attachments import store
from debates.attachments.check import Upload
from debates.budgets import hold
from debates.conversations import sharing
from debates.forms import AskForm
from debates.lib import ratelimit
from debates.live import snapshot
from debates.live.state import read_state
from debates.models import Contribution, Outcome, Panel, Provider, Question, Source
from debates.providers import check
from debates.providers.base import ProviderError, Voice
from debates.refusal import Kind, Refused
from debates.roster.readiness import PanelOption, judges_of, panel_options, probe_voice
from debates.runs import execute, once, tasks
from debates.track import outcomes

User = AbstractBaseUser | AnonymousUser | None


def readable(user: User) -> QuerySet[Question]:
    """The questions ``user`` may read (every one for the operator)."""
    return Question.objects.all() if user is None else Question.objects.visible_to(user)


def ask_form(user: User, data: Any = None) -> AskForm:
    """The ask form as ``user`` fills it in: what they may follow up is what they may read."""
    return AskForm(data, followable=readable(user))


def ask(
    user: User,
    *,
    source: str,
    reask_of: Question | None = None,
    runs_here: bool = False,
    attachments: list[Upload] | None = None,
    asked: once.Asked | None = None,
    schema: dict[str, Any] | None = None,
    **fields: Any,
) -> Question:
    """Ask the panel: ``fields`` are the ask form's (text, context, panel, criticality, options,
    debate, voices, protocol, moderator, deadline, max_cost, force_panel, search, follow_up_of); a field left
    empty takes the panel's setting (``search`` left out stays on: voices that may search do).
    ``attachments``: the files (name, declared media type, bytes), checked before anything is
    stored. ``runs_here``: the caller runs it (the terminal), nothing is queued. ``asked``: the
    channel's request, which gets the question it already asked (``runs.once``), never a second run.
    ``schema``: a JSON Schema the asker wants the verdict in, which the moderator writes it in last."""
    if asked is not None and (found := once.earlier(user, asked)) is not None:
        return found
    given = {name: value for name, value in fields.items() if value not in (None, "", [])}
    form = ask_form(user, given)
    try:
        stored = (asked.fields if asked else {}) | ({"answer_schema": schema} if schema else {})
        return submit(
            form, user, source=source, reask_of=reask_of, runs_here=runs_here, attachments=attachments, stored=stored
        )
    except IntegrityError:  # its twin with the same key was saved meanwhile: that one is the question
        if asked is None or not asked.key or (found := once.earlier(user, asked)) is None:
            raise
        return found


def follow_up(user: User, question_id: int, *, source: str, **fields: Any) -> Question:
    """Ask a follow-up of a question ``user`` may read: the panel gets its verdict and disputed points,
    and reads the thread's files beside any new ones."""
    return ask(user, source=source, follow_up_of=question_id, **fields)


def submit(
    form: AskForm,
    user: User,
    *,
    source: str = Source.PAGE,
    reask_of: Question | None = None,
    runs_here: bool = False,
    attachments: list[Upload] | None = None,
    stored: dict[str, Any] | None = None,
) -> Question:
    """Start the question of a filled-in ask form (the page keeps the form to show it again):
    its checks and its files' (refused in words before anything is stored or any model is called),
    one of the hour's submissions, the save (with the ``stored`` fields its channel sets: a request's
    key and digest, the schema asked for), its run's expected cost held against its budgets (refused,
    naming the budget, where one has no room), the run queued (unless ``runs_here``)."""
    if isinstance(user, AnonymousUser):
        raise Refused("Sign in to ask: a question is its asker's.", Kind.UNAUTHENTICATED)
    if not form.is_valid():
        raise Refused("The question was not accepted.", Kind.INVALID, field_errors(form))
    checked = files.check(attachments or [])
    if user is not None and (wait := ratelimit.take(user.pk)):
        raise Refused(ratelimit.refusal(wait), Kind.RATE_LIMITED, retry_after=wait)
    data = form.cleaned_data
    limited = hold.applies(user.pk if user else None, data["panel"].pk, data["max_cost"])
    # The question, its files and its hold on its budgets, or none; a key's twin saved meanwhile undoes only this save.
    with transaction.atomic() if checked or stored or limited else nullcontext():
        question = form.save(owner=user, source=source, reask_of=reask_of, **(stored or {}))
        store.save(question.pk, checked)
        if limited:
            try:
                hold.reserve(question)
            except hold.OverBudget as over:
                raise Refused(over.message, Kind.OVER_BUDGET, retry_after=over.retry_after) from None
    if not runs_here:
        tasks.submit(question)
    return question


def visible(user: User, question_id: int) -> Question:
    """The question, if ``user`` may read it (another's private one is no more found than a missing one)."""
    in_range = 0 < question_id < 2**63  # a larger number is no row's, and no database's integer
    question = readable(user).select_related("panel").filter(pk=question_id).first() if in_range else None
    if question is None:
        raise Refused(not_found(user, question_id), Kind.NOT_FOUND)
    return question


def asked_by(user: AbstractBaseUser, question_id: int) -> Question | None:
    """``user``'s own question, or None: a channel with an account of its own (Telegram's) answers
    for the questions asked through it only."""
    return Question.objects.filter(pk=question_id, owner_id=user.pk).first()


def follows_up(user: User, question_id: int) -> bool:
    """Whether a conversation may carry on from this question: ``user`` may read it."""
    return readable(user).filter(pk=question_id).exists()


def last_answers(question: Question) -> list[tuple[dict[str, Any], Contribution]]:
    """Each panelist's (roster entry, last completed contribution), in the roster's order; the
    moderator's and the tie-breaker's are not answers."""
    found = []
    for entry in question.roster:
        if entry["seat"] in ("moderator", "tie_breaker"):
            continue
        done = Contribution.objects.filter(round__question=question, seat=entry["seat"], status=Outcome.DONE)
        if final := done.order_by("-round__index").first():
            found.append((entry, final))
    return found


def failure(question_id: int) -> execute.Failure:
    """A stopped run's failed voices and the ways on (the page's "What you can do"), for the operator."""
    return execute.failure_of(Question.objects.get(pk=question_id))


def panel_named(slug: str) -> Panel | None:
    """The panel with this slug, "" for the default panel; None when there is none."""
    return Panel.objects.default() if slug == "" else Panel.objects.filter(slug=slug).first()


def channel_user(username: str) -> AbstractBaseUser:
    """The account a channel asks as (Telegram's), made on first use with no password to sign in with."""
    user, created = get_user_model().objects.get_or_create(username=username)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def actionable(user: User, question_id: int) -> Question:
    """The question, if ``user`` may act on it (cancel, retry): its asker, staff or the operator.
    A reader who may not act is told the question is not found, as the page tells them."""
    question = visible(user, question_id)
    if user is not None and not question.can_act(user):
        raise Refused(not_found(user, question_id), Kind.NOT_FOUND)
    return question


def not_found(user: User, question_id: int) -> str:
    return (
        f"There is no question {question_id}."
        if user is None
        else f"There is no question {question_id} that you can see."
    )


def read(user: User, question_id: int, base: str = "") -> dict[str, Any]:
    """The question and its debate as JSON (``represent``); ``base``: the server as the client reached it."""
    visible(user, question_id)
    return represent.represent(snapshot.build(question_id, read_state(question_id)), base)


def summary(user: User, question_id: int, base: str = "") -> dict[str, Any]:
    """The question in short, verdict first, in the representation's own names."""
    visible(user, question_id)
    return represent.summary(snapshot.build(question_id, read_state(question_id)), base)


def cancel(user: User, question_id: int) -> bool:
    """Stop the run at the asker's explicit request: False when it had already finished."""
    question = actionable(user, question_id)
    if question.is_finished:
        return False
    execute.cancel(question.pk)
    return True


def retry(user: User, question_id: int, *, without_failed: bool = False, runs_here: bool = False) -> Question:
    """Run a failed question again from its stored work: the failed calls again, or, ``without_failed``,
    on without the failed voices (as the degrade policy would); ``runs_here`` as for ``ask``."""
    question = actionable(user, question_id)
    if refused := execute.reopen(question, without_failed):
        raise Refused(f"Question {question_id} was not run again: {refused}.", Kind.CONFLICT)
    if not runs_here:
        tasks.submit(question)
    return question


def outcome(user: User, question_id: int, *, value: str, note: str = "") -> dict[str, Any]:
    """Judge a finished verdict right, wrong or partly right (judging again replaces it)."""
    return outcomes.as_dict(outcomes.mark(visible(user, question_id), user, value, note))


def share(user: User, question_id: int, **fields: Any) -> Question:
    """Set who may read a question (visibility, hide_cost, new_link; one left out stays as it is):
    its asker, staff or the operator."""
    question = actionable(user, question_id)
    current = {"visibility": question.visibility, "hide_cost": question.hide_cost}
    form = sharing.ShareForm(current | {name: value for name, value in fields.items() if value is not None})
    if not form.is_valid():
        raise Refused("The sharing was not changed.", Kind.INVALID, field_errors(form))
    sharing.share(question, **form.cleaned_data)
    return question


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
        "estimate": option.estimate.as_dict(),  # low / expected / high
        "estimated_seconds": round(option.seconds, 1),
        "estimate_from_history": option.measured,
        "sees_images": option.sees_images,
        "reads_pdf": option.reads_pdf,
        "demo": option.demo,
    }


def field_errors(form: Form) -> dict[str, list[str]]:
    """A form's errors as a refusal's fields: each field's messages in words."""
    return {name: [e["message"] for e in errors] for name, errors in form.errors.get_json_data().items()}


# --- health: can Teorema answer now ------------------------------------------------------------

PROBE_TIMEOUT = 15.0  # seconds for one provider's cheapest call
PROBE_KEPT = 60  # seconds a provider's answer is kept: however many ask, a provider is asked once a minute
STAFF_ONLY = "Whether each provider answers is checked for staff only (a live check may cost a call)."


async def health(user: User, *, probe: bool = True) -> dict[str, Any]:
    """Whether Teorema can answer now: each used provider's key, each panel's state and time, and,
    for staff and the operator (``probe``), whether each provider answers — a live check kept a
    minute, so that no number of callers makes more than one call a provider a minute."""
    options = await sync_to_async(panel_options)()
    used = await sync_to_async(providers_of)(options)
    allowed = user is None or getattr(user, "is_staff", False)
    reached = await reach([p for p in used if p.has_usable_key]) if probe and allowed else {}
    providers = [
        {"name": p.name, "key": "present" if p.has_usable_key else "missing", **reached.get(p.name, {})} for p in used
    ]
    panels = [panel_entry(option) for option in options]
    ok = any(p["runnable"] for p in panels) and (not reached or any(r["reachable"] for r in reached.values()))
    return {"ok": ok, "note": STAFF_ONLY if probe and not allowed else "", "providers": providers, "panels": panels}


def providers_of(options: list[PanelOption]) -> list[Provider]:
    """The enabled providers the listed panels' voices and judges use, once each."""
    found: dict[int, Provider] = {}
    for option in options:
        for panelist in [*option.panel.roster(), *judges_of(option.panel)]:
            if panelist.provider.enabled:
                found.setdefault(panelist.provider.pk, panelist.provider)
    return list(found.values())


async def reach(providers: list[Provider]) -> dict[str, dict[str, Any]]:
    """Each provider asked the cheapest thing it answers (its model list, or a one-token ping), at
    once, unless it was asked within the last minute: the admin's own "test connection"."""
    voices = await sync_to_async(lambda: [probe_voice(p) for p in providers])()

    async def one(provider: Provider, voice: Voice) -> tuple[str, dict[str, Any]]:
        key = f"health:reach:{provider.pk}:{provider.updated_at.timestamp() if provider.updated_at else 0}"
        if (kept := await cache.aget(key)) is not None:
            return provider.name, kept
        try:
            async with asyncio.timeout(PROBE_TIMEOUT):
                found = {"reachable": True, "said": await check(voice)}
        except ProviderError as error:
            found = {"reachable": False, "said": error.message}
        except TimeoutError:
            found = {"reachable": False, "said": f"no answer within {PROBE_TIMEOUT:.0f} s"}
        await cache.aset(key, found, PROBE_KEPT)
        return provider.name, found

    return dict(await asyncio.gather(*(one(p, v) for p, v in zip(providers, voices, strict=True))))
