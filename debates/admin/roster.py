"""The roster in the admin: providers (keys masked, write-only), panelists and panels.

A provider's and a panelist's change pages lead on through the guided setup (``setup``): test the
connection, pick a listed model as a panelist, seat it on a panel.
"""

from django.contrib import admin, messages
from django.contrib.admin.options import IS_POPUP_VAR
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.urls import URLPattern
from django.utils.decorators import method_decorator
from django.views.decorators.debug import sensitive_post_parameters

from debates.admin import setup
from debates.admin.forms import PanelForm, ProviderForm
from debates.lib.crypto import KeyUnreadable
from debates.models import Membership, Panel, Provider
from debates.roster import discover


class ProviderAdmin(admin.ModelAdmin):
    """Its change page leads on: "Test connection" (a POST: it may make a paid call) and "Models"
    (pick a listed model as a panelist, then seat it on a panel: debates.admin.setup)."""

    form = ProviderForm
    list_display = ["name", "wire", "preset", "base_url", "key", "enabled"]
    list_filter = ["wire", "enabled"]
    search_fields = ["name"]
    readonly_fields = ["key"]
    fieldsets = [
        (None, {"fields": ["name", "preset", "wire", "base_url", "enabled"]}),
        (
            "A command on this machine",
            {
                "fields": ["command"],
                "description": "For a CLI voice (Claude Code, Gemini CLI, Qwen Code, Codex, or any command that "
                "reads a prompt and prints an answer): it runs on its own login, its tools off (docs/providers.md). "
                "A key below goes in the CLI's own variable; a base URL points it elsewhere.",
                "classes": ["collapse"],
            },
        ),
        (
            "API key",
            {
                "fields": ["key", "api_key", "clear_key", "api_key_env"],
                "description": "The key is stored encrypted and never shown again; "
                "or name an environment variable that holds it.",
            },
        ),
        ("Timeouts and retries", {"fields": ["connect_timeout", "stall_timeout", "total_timeout", "max_retries"]}),
    ]
    actions = ["test_connection"]

    class Media:
        js = ["debates/admin/preset.js"]
        css = {"all": ["debates/admin/setup.css"]}

    def get_urls(self) -> list[URLPattern]:
        return [
            setup.object_page(self, "test/", setup.connection_test_view, "test"),
            setup.object_page(self, "models/", setup.models_view, "models"),
            setup.object_page(self, "models/add/", setup.add_panelist_view, "add_panelist"),
            *super().get_urls(),
        ]

    @method_decorator(sensitive_post_parameters("api_key"))
    def changeform_view(self, *args, **kwargs) -> HttpResponse:
        return super().changeform_view(*args, **kwargs)

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None) -> HttpResponse:
        """The guided setup's first page offers the CLIs installed here before any preset or key, as the
        ask page and ``manage.py bootstrap`` do: each with its login in words (read without a call)."""
        clis = discover.installed_clis()
        found = {"clis": clis, "clis_usable": any(f.usable for f in clis)}
        return super().add_view(request, form_url, {**(extra_context or {}), **found})

    def response_add(self, request: HttpRequest, obj: Provider, post_url_continue=None) -> HttpResponse:
        """A new provider lands on its change page, where the next steps are (test, then models)."""
        if "_addanother" in request.POST or IS_POPUP_VAR in request.POST:
            return super().response_add(request, obj, post_url_continue)
        said = f"The provider “{obj}” was added. Next: test the connection, then pick its models."
        self.message_user(request, said, messages.SUCCESS)
        if "_test" in request.POST:
            setup.report_test(self, request, obj)
        return redirect("admin:debates_provider_change", obj.pk)

    def response_change(self, request: HttpRequest, obj: Provider) -> HttpResponse:
        if "_test" not in request.POST:
            return super().response_change(request, obj)
        self.message_user(request, f"The provider “{obj}” was saved.", messages.SUCCESS)
        setup.report_test(self, request, obj)
        return redirect("admin:debates_provider_change", obj.pk)

    @admin.display(description="Key")
    def key(self, provider: Provider) -> str:
        try:
            return provider.masked_key or "—"
        except KeyUnreadable:
            return "unreadable with TEOREMA_FERNET_KEYS: enter it again"

    @admin.action(description="Test connection (one cheap real call)")
    def test_connection(self, request: HttpRequest, queryset: QuerySet[Provider]) -> None:
        for provider in queryset:
            setup.report_test(self, request, provider)


class PanelistAdmin(admin.ModelAdmin):
    """A panelist's change page offers "Seat on a panel" (debates.admin.setup.seat_view)."""

    list_display = [
        *("name", "provider", "model", "family", "method", "temperature", "max_tokens"),
        *("price_in", "price_out", "search", "enabled"),
    ]
    list_filter = ["provider", "family", "method", "search", "enabled"]
    list_select_related = ["provider"]
    search_fields = ["name", "model", "family"]

    def get_urls(self) -> list[URLPattern]:
        return [setup.object_page(self, "seat/", setup.seat_view, "seat"), *super().get_urls()]


class MembershipInline(admin.TabularInline):
    model = Membership
    verbose_name, verbose_name_plural = "seat", "roster (voices in seat order)"
    fields = ["position", "panelist"]
    ordering = ["position"]
    extra = 1


class PanelAdmin(admin.ModelAdmin):
    form = PanelForm
    inlines = [MembershipInline]
    list_display = ["name", "slug", "protocol", "voices", "moderator", "failure_policy", "is_default"]
    list_select_related = ["moderator"]
    prepopulated_fields = {"slug": ["name"]}
    fieldsets = [
        (None, {"fields": ["name", "slug", "description", "protocol", "is_default"]}),
        ("Roles", {"fields": ["moderator", "tie_breaker", "fallback_moderator", "judge"]}),
        (
            "Run",
            {
                "fields": [
                    *("rounds", "debate", "merge_critique", "revote_on_dissent", "failure_policy", "quorum"),
                    *("default_criticality", "options", "facilitator_brief", "deadline", "forbid_search"),
                ]
            },
        ),
    ]

    def get_queryset(self, request: HttpRequest) -> QuerySet[Panel]:
        return super().get_queryset(request).prefetch_related("memberships__panelist")

    def save_related(self, request: HttpRequest, form, formsets, change: bool) -> None:
        super().save_related(request, form, formsets, change)  # the memberships are saved here
        for warning in form.instance.self_judging():
            self.message_user(request, warning, messages.WARNING)

    @admin.display(description="Roster (in order)")
    def voices(self, panel: Panel) -> str:
        return ", ".join(membership.panelist.name for membership in panel.memberships.all())
