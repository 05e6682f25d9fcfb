from django.urls import path

from debates import api, views
from debates.telegram import views as telegram

app_name = "debates"

urlpatterns = [
    path("", views.ask, name="ask"),
    path("q/<int:pk>/", views.question, name="question"),
    path("q/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("q/<int:pk>/retry-synthesis/", views.retry_synthesis, name="retry_synthesis"),
    path("history/", views.history, name="history"),
    path("local-servers/<slug:preset>/use/", views.adopt_local_server, name="adopt_local_server"),
    path("api/questions", api.create, name="api_questions"),
    path("api/questions/<int:pk>", api.detail, name="api_question"),
    path("api/questions/<int:pk>/retry-synthesis", api.retry_synthesis, name="api_retry_synthesis"),
    path("telegram/webhook/<str:secret>/", telegram.webhook, name="telegram_webhook"),
]
