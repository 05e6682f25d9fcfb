from allauth.idp.oidc import views as idp
from django.contrib import admin
from django.urls import include, path

from debates import health, metrics
from debates.integrations.mcp import oauth as mcp_oauth
from debates.integrations.openai import views as openai
from debates.signin.forms import AdminLoginForm
from debates.track.views import spend_page

admin.site.site_header = "Teorema administration"
admin.site.site_title = "Teorema"
admin.site.login_form = AdminLoginForm  # an account with a second factor signs in where it is asked

urlpatterns = [
    path("admin/spend/", spend_page, name="admin_spend"),  # staff: spend over time (the admin's own look)
    path("admin/", admin.site.urls),
    # Sign-in (allauth): passwords, the two-factor pages under 2fa/, each provider configured.
    path("accounts/", include("allauth.urls")),
    path("livez", health.livez, name="livez"),
    path("readyz", health.readyz, name="readyz"),
    path("healthz", health.readyz, name="healthz"),  # what compose and earlier set-ups ask
    path("metrics", metrics.metrics, name="metrics"),  # Prometheus, with a staff user's token
    # OpenAI-compatible: chat front-ends and the `llm` command line ask a panel as a model.
    path("v1/models", openai.models, name="openai_models"),
    path("v1/chat/completions", openai.chat_completions, name="openai_chat"),
    # MCP's own authorization (docs/integrations.md): /mcp's metadata, and allauth's OpenID provider as its
    # authorization server (RFC 8414's address for its metadata too; its consent page allows the redirect;
    # browser pages may register and get tokens).
    path(".well-known/oauth-protected-resource", mcp_oauth.protected_resource),
    path(".well-known/oauth-protected-resource/mcp", mcp_oauth.protected_resource, name="mcp_resource"),
    path(".well-known/oauth-authorization-server", idp.configuration),
    path("identity/o/authorize", mcp_oauth.authorization),
    path("identity/o/api/clients", mcp_oauth.registration),
    path("identity/o/api/token", mcp_oauth.token),
    path("identity/o/api/revoke", mcp_oauth.revoke),
    path("", include("allauth.idp.urls")),
    path("", include("debates.urls")),
]

# JSON under /api/ (docs/api.md: errors are always JSON), words on the pages.
handler400 = "debates.errors.bad_request"
handler404 = "debates.errors.not_found"
handler500 = "debates.errors.server_error"
