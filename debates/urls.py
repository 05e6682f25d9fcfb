from django.urls import path

from debates import api, views
from debates.telegram import views as telegram

app_name = "debates"

urlpatterns = [
    path("", views.ask, name="ask"),
    path("q/<int:pk>/", views.question, name="question"),
    path("q/<int:pk>/cancel/", views.cancel, name="cancel"),
    path("history/", views.history, name="history"),
    path("api/questions", api.create, name="api_questions"),
    path("api/questions/<int:pk>", api.detail, name="api_question"),
    path("telegram/webhook/<str:secret>/", telegram.webhook, name="telegram_webhook"),
]
