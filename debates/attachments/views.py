"""A question's files, for those who may read the question (its asker, staff, every user when shared,
anyone with its link): always downloaded as attachments, never rendered in the browser, with
``nosniff`` and a sandboxing policy; an image's thumbnail, re-encoded by us, is the one thing shown
inline. Anyone else gets the 404 an unknown question gets."""

from django.http import FileResponse, Http404, HttpRequest
from django.shortcuts import get_object_or_404

from debates.attachments.models import Attachment
from debates.conversations import sharing, threads
from debates.models import Question
from debates.tokens import bearer_user

GUARDS = {
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": "default-src 'none'; sandbox",
    "Cache-Control": "private, max-age=3600",
}


def download(request: HttpRequest, pk: int, file_id: int, name: str) -> FileResponse:
    """A file of a question the user may read (a script's bearer token works as a session does)."""
    return served(readable(request, pk), file_id, thumbnail=False)


def thumbnail(request: HttpRequest, pk: int, file_id: int) -> FileResponse:
    return served(readable(request, pk), file_id, thumbnail=True)


def shared_download(request: HttpRequest, token: str, file_id: int, name: str) -> FileResponse:
    return served(sharing.by_link(token), file_id, thumbnail=False)


def shared_thumbnail(request: HttpRequest, token: str, file_id: int) -> FileResponse:
    return served(sharing.by_link(token), file_id, thumbnail=True)


def readable(request: HttpRequest, pk: int) -> Question:
    user = bearer_user(request.headers.get("Authorization", "")) or request.user
    return get_object_or_404(Question.objects.visible_to(user), pk=pk)


def served(question: Question, file_id: int, thumbnail: bool) -> FileResponse:
    """One of the files the question's panel read (its thread's included), as an attachment; a thumbnail inline."""
    row: Attachment | None = next((a for a in threads.attachments_for(question) if a.pk == file_id), None)
    if row is None or (thumbnail and not row.thumbnail):
        raise Http404("No such file.")
    if thumbnail:
        response = FileResponse(row.thumbnail.open("rb"), content_type=row.media_type)
    else:
        response = FileResponse(row.file.open("rb"), as_attachment=True, filename=row.name, content_type=row.media_type)
    for header, value in GUARDS.items():
        response[header] = value
    return response
