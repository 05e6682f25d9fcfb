"""An OpenAI-compatible endpoint: a chat front-end (Open WebUI, LibreChat), the ``llm`` command line,
LiteLLM, LangChain or the ``openai`` package asks the panel as it would ask a model.

``GET /v1/models`` lists each panel that can run as ``teorema/<slug>``; ``POST /v1/chat/completions``
(streamed and not) runs a debate on the last user message (``request`` reads it). The earlier turns
are the question's thread: a follow-up of our previous reply's question when the chat holds one,
else its context. The debate streams as ``reasoning_content`` (what reasoning servers send and
front-ends fold), or inside ``<think>`` in the content (``"reasoning_format": "think"``, or the
header ``X-Teorema-Reasoning: think`` for a client that sets headers but not fields, for clients that
read only the content), or not at all (``"hidden"``); the synthesis streams as the content, then the
panel's story, the cost and the page's link (``reply``); ``usage`` is the whole run's. Errors have
OpenAI's shape.

A debate is asked once: the same request again (the client's retry, its Idempotency-Key, the same
messages while the run goes) follows the run already asked (``runs.once``), and an answer the
server cannot give says no client should retry it. A client that goes away mid-debate stops
reading, not the debate: it runs to its end, and History and the page keep it (cancel it there).
"""

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.views.decorators.csrf import csrf_exempt

from debates import service
from debates.integrations.endpoint import token_user
from debates.integrations.openai import request as asking
from debates.integrations.openai import structured
from debates.integrations.openai.errors import error
from debates.integrations.openai.reply import Reply
from debates.models import Source
from debates.refusal import Kind, Refused
from debates.roster.readiness import panel_options


def user_or_refuse(request: HttpRequest):
    user = token_user(request)
    if user is None:
        raise Refused(
            "No API key: send 'Authorization: Bearer <token>' with a token made in Teorema's admin.",
            Kind.UNAUTHENTICATED,
        )
    if not user.is_authenticated:
        raise Refused("The API key is not valid (revoked, mistyped, or its user is inactive).", Kind.UNAUTHENTICATED)
    return user


@csrf_exempt
def models(request: HttpRequest) -> HttpResponse:
    """The panels that can run now, as models, each with the estimate of a run's cost (Teorema's field)."""
    if request.method != "GET":
        return error(Refused(f"{request.method} is not allowed here: use GET."), 405)
    try:
        user_or_refuse(request)
    except Refused as refused:
        return error(refused)
    data = [
        {
            "id": asking.PREFIX + option.panel.slug,
            "object": "model",
            "created": 0,
            "owned_by": "teorema",
            "estimate": option.estimate.as_dict(),  # a run's cost, low to high
        }
        for option in panel_options()
        if option.runnable
    ]
    return JsonResponse({"object": "list", "data": data})


@csrf_exempt
async def chat_completions(request: HttpRequest) -> HttpResponse | StreamingHttpResponse:
    if request.method != "POST":
        return error(Refused(f"{request.method} is not allowed here: use POST."), 405)
    try:
        user = await sync_to_async(user_or_refuse)(request)
        payload = asking.read(request)
        shape = structured.shape_of(payload.get("response_format"))
        asked = asking.asked_of(request, payload)
        fields = await sync_to_async(asking.question_fields)(payload, user)
        schema = shape.schema if shape else None
        question = await sync_to_async(
            lambda: service.ask(user, source=Source.OPENAI, asked=asked, schema=schema, **fields)
        )()
    except Refused as refused:
        return error(refused)
    reply = Reply(question, payload, request.build_absolute_uri("/"), user, shape)
    if payload.get("stream"):
        response = StreamingHttpResponse(reply.stream(), content_type="text/event-stream")
        response["Cache-Control"] = "no-cache"
        response["X-Accel-Buffering"] = "no"  # nginx: pass each event on at once
        return response
    return await reply.whole()
