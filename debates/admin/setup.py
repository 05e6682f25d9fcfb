"""The admin's guided path from a key to a panel: test the connection, list the provider's models,
add one as a panelist, seat it on a panel.

Nothing calls out without a usable key (a paid call that can only fail is not made), and each step
refuses wrong input in words.
"""

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from asgiref.sync import async_to_sync
from django.contrib import admin, messages
from django.contrib.admin.utils import unquote
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseNotAllowed
from django.shortcuts import redirect
from django.template.response import TemplateResponse
from django.urls import URLPattern, path, reverse
from django.utils.html import format_html

from debates.admin.forms import NewPanelForm, PanelistFromModelForm, SeatForm
from debates.lib.crypto import KeyUnreadable
from debates.models import Provider
from debates.providers import catalog, check
from debates.providers.base import ProviderError
from debates.refusal import Kind, Refused
from debates.roster.readiness import probe_voice
from debates.roster.voices import endpoint_from_provider


def suggested_env(provider: Provider) -> str:
    """The variable a key for this provider conventionally lives in: "OPENAI_API_KEY"."""
    stem = re.sub(r"[^A-Za-z0-9]+", "_", provider.preset or provider.name).strip("_").upper()
    return f"{stem or 'PROVIDER'}_API_KEY"


def missing_key(provider: Provider) -> str:
    """Why no call can be made for want of a key, or "" when one can."""
    if provider.has_usable_key:
        return ""
    if provider.api_key_env:
        return f"{provider.api_key_env} is not set in the server's environment; nothing was called."
    return (
        f"no key: paste one in “New API key” and save (or set {suggested_env(provider)} in the server's "
        "environment and enter that name under “Key from environment variable”); nothing was called."
    )


@contextmanager
def calling(provider: Provider) -> Iterator[None]:
    """A call to ``provider``: Refused before it is made without a usable key, its failure in words."""
    try:
        if missing := missing_key(provider):
            raise Refused(f"{provider.name}: {missing}", Kind.CONFLICT)
        yield
    except ProviderError as error:
        raise Refused(f"{provider.name}: {error.message}", Kind.UNAVAILABLE) from None
    except KeyUnreadable as error:
        raise Refused(f"{provider.name}: {error}", Kind.CONFLICT) from None


def connection_result(provider: Provider) -> tuple[int, str]:
    """What "test connection" says: an admin message's level and text."""
    try:
        with calling(provider):
            said = async_to_sync(check)(probe_voice(provider))
    except Refused as refused:
        return messages.ERROR, str(refused)
    return messages.SUCCESS, said


def listed_models(provider: Provider) -> list[str]:
    """The ids of the models the provider lists; Refused when it cannot be asked or fails."""
    with calling(provider):
        listed = async_to_sync(catalog.models)(endpoint_from_provider(provider))
    return listed


def report_test(model_admin: admin.ModelAdmin, request: HttpRequest, provider: Provider) -> None:
    """Test the connection and say how it went, for the button, "Save and test" and the list action."""
    level, said = connection_result(provider)
    model_admin.message_user(request, said, level)


def connection_test_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """POST only (it may make a paid call): test the saved settings, say how it went on the change page."""
    if request.method != "POST":
        return HttpResponseNotAllowed(["POST"])
    provider = _provider(model_admin, request, object_id)
    report_test(model_admin, request, provider)
    return redirect("admin:debates_provider_change", provider.pk)


def models_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """What the provider lists, filtered by ``?q=`` (no script needed), each with "Add as a panelist"."""
    provider = _provider(model_admin, request, object_id)
    query = request.GET.get("q", "").strip()
    try:
        listed, error = listed_models(provider), ""
    except Refused as refused:
        listed, error = [], str(refused)
    seated: dict[str, list[str]] = {}
    for name, model in provider.panelists.values_list("name", "model"):
        seated.setdefault(model, []).append(name)
    shown = [(model, seated.get(model, [])) for model in listed if query.casefold() in model.casefold()]
    context = _context(model_admin, request, f"Models of {provider.name}", provider=provider)
    context |= {"query": query, "models": shown, "total": len(listed), "error": error}
    context |= {"can_add": request.user.has_perm("debates.add_panelist")}
    return TemplateResponse(request, "admin/debates/provider/models.html", context)


def add_panelist_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """A panelist on one of the listed models (``?model=``); then on to seating it on a panel."""
    provider = _provider(model_admin, request, object_id)
    if not request.user.has_perm("debates.add_panelist"):
        raise PermissionDenied
    try:
        listed = listed_models(provider)
    except Refused as refused:
        model_admin.message_user(request, str(refused), messages.ERROR)
        return redirect("admin:debates_provider_models", provider.pk)
    model = request.GET.get("model", "")
    form = PanelistFromModelForm(request.POST or None, provider=provider, listed=listed, initial={"model": model})
    if request.method == "POST" and form.is_valid():
        panelist = form.save()
        model_admin.message_user(request, f"Added the panelist “{panelist}”. Now seat it on a panel.", messages.SUCCESS)
        return redirect("admin:debates_panelist_seat", panelist.pk)
    if not form.is_bound and model not in listed:
        model_admin.message_user(request, form.not_listed(model), messages.ERROR)
        return redirect("admin:debates_provider_models", provider.pk)
    context = _context(model_admin, request, "Add as a panelist", provider=provider, form=form)
    return TemplateResponse(request, "admin/debates/provider/add_panelist.html", context)


def seat_view(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> HttpResponse:
    """Seat a panelist at the end of an existing panel's roster, or on a new teorema panel of its own."""
    panelist = model_admin.get_object(request, unquote(object_id))
    if panelist is None:
        raise Http404("There is no such panelist.")
    if not request.user.has_perm("debates.change_panel"):
        raise PermissionDenied
    seat_form = SeatForm(request.POST if "seat" in request.POST else None, panelist=panelist, prefix="seat")
    new_form = NewPanelForm(request.POST if "create" in request.POST else None, panelist=panelist, prefix="new")
    if new_form.is_bound and not request.user.has_perm("debates.add_panel"):
        raise PermissionDenied
    form = seat_form if seat_form.is_bound else new_form
    if form.is_bound and form.is_valid():
        panel = form.save()
        voices = panel.memberships.count()
        said = format_html(
            "“{}” sits on the panel “{}” ({} voice{}). <a href='{}'>Ask it a question</a>, "
            "<a href='{}'>edit the panel</a> (moderator, rounds), or add another model below.",
            panelist.name,
            panel.name,
            voices,
            "" if voices == 1 else "s",
            reverse("debates:ask"),
            reverse("admin:debates_panel_change", args=[panel.pk]),
        )
        model_admin.message_user(request, said, messages.SUCCESS)
        for warning in panel.self_judging():
            model_admin.message_user(request, warning, messages.WARNING)
        return redirect("admin:debates_provider_models", panelist.provider_id)
    context = _context(model_admin, request, f"Seat {panelist.name} on a panel", panelist=panelist)
    context |= {"seat_form": seat_form, "new_form": new_form, "panels": panelist.panels.all()}
    return TemplateResponse(request, "admin/debates/panelist/seat.html", context)


Page = Callable[[admin.ModelAdmin, HttpRequest, str], HttpResponse]


def object_page(model_admin: admin.ModelAdmin, route: str, view: Page, name: str) -> URLPattern:
    """An admin page about one object, at ``<object_id>/<route>``, named ``admin:<app>_<model>_<name>``."""

    def page(request: HttpRequest, object_id: str) -> HttpResponse:
        return view(model_admin, request, object_id)

    opts = model_admin.opts
    url_name = f"{opts.app_label}_{opts.model_name}_{name}"
    return path(f"<path:object_id>/{route}", model_admin.admin_site.admin_view(page), name=url_name)


def _provider(model_admin: admin.ModelAdmin, request: HttpRequest, object_id: str) -> Provider:
    """The provider, for someone who may change it (these pages use its key)."""
    provider = model_admin.get_object(request, unquote(object_id))
    if provider is None:
        raise Http404("There is no such provider.")
    if not model_admin.has_change_permission(request, provider):
        raise PermissionDenied
    return provider


def _context(model_admin: admin.ModelAdmin, request: HttpRequest, title: str, **extra: object) -> dict[str, object]:
    return {**model_admin.admin_site.each_context(request), "title": title, "opts": model_admin.opts, **extra}
