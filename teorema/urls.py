from django.contrib import admin
from django.urls import include, path

from debates import health, metrics
from debates.integrations.openai import views as openai
from debates.signin.forms import AdminLoginForm

admin.site.site_header = "Teorema administration"
admin.site.site_title = "Teorema"
admin.site.login_form = AdminLoginForm  # an account with a second factor signs in where it is asked

urlpatterns = [
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
    path("", include("debates.urls")),
]

# JSON under /api/ (docs/api.md: errors are always JSON), words on the pages.
handler400 = "debates.errors.bad_request"
handler404 = "debates.errors.not_found"
handler500 = "debates.errors.server_error"
