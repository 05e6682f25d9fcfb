from channels.security.websocket import WebsocketDenier
from django.urls import path, re_path

from debates.live import consumers

websocket_urlpatterns = [
    path("ws/questions/<int:pk>/", consumers.QuestionConsumer.as_asgi()),
    re_path(r"", WebsocketDenier.as_asgi()),  # any other path: a refused handshake, not a "No route" traceback
]
