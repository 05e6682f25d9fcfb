from django.urls import path

from debates import views

app_name = "debates"

urlpatterns = [
    path("", views.ask, name="ask"),
    path("q/<int:pk>/", views.question, name="question"),
]
