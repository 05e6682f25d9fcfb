"""Placeholder: the live viewer issue replaces this with the streaming consumer."""

from channels.generic.websocket import AsyncWebsocketConsumer


class QuestionConsumer(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.close()
