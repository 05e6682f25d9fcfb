"""API tokens in the admin, for scripts using the JSON API (docs/api.md)."""

from django.contrib import admin
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse

from debates.models import ApiToken
from debates.tokens import assign_secret


class ApiTokenAdmin(admin.ModelAdmin):
    """A token's plaintext is shown once, on the page after creation; only its digest is kept."""

    list_display = ["name", "user", "prefix", "created_at", "last_used_at"]
    list_select_related = ["user"]

    def get_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> tuple[str, ...]:
        return ("user", "name") if obj is None else ("user", "name", "prefix", "created_at", "last_used_at")

    def get_readonly_fields(self, request: HttpRequest, obj: ApiToken | None = None) -> list[str]:
        return [] if obj is None else ["user", "prefix", "created_at", "last_used_at"]

    def save_model(self, request: HttpRequest, obj: ApiToken, form, change: bool) -> None:
        if not change:
            obj.plaintext = assign_secret(obj)
        super().save_model(request, obj, form, change)

    def response_add(self, request: HttpRequest, obj: ApiToken, post_url_continue=None) -> HttpResponse:
        context = {
            **self.admin_site.each_context(request),
            "title": "API token created",
            "opts": self.model._meta,
            "token": obj,
            "plaintext": obj.plaintext,
        }
        return TemplateResponse(request, "admin/debates/apitoken/created.html", context)
