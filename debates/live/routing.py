from django.urls import path

from debates.live import consumers

websocket_urlpatterns = [
    path("ws/questions/<int:pk>/", consumers.QuestionConsumer.as_asgi()),
]
