from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from debates import health, metrics
from debates.integrations.openai import views as openai
from debates.track.views import spend_page

admin.site.site_header = "Teorema administration"
admin.site.site_title = "Teorema"

urlpatterns = [
    path("admin/spend/", spend_page, name="admin_spend"),  # staff: spend over time (the admin's own look)
    path("admin/", admin.site.urls),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
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
