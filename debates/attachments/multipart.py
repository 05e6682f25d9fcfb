"""A multipart body's file names as their sender wrote them: a name with a folder in it or a control
character is refused (a 400 in words), as every other way in refuses it (``kinds.not_plain``).

Django's parser keeps only a name's last segment and its printable characters before any view
sees the file, so ``../x.txt`` reached the checks as ``x.txt``. The parser here refuses such a
name instead; the middleware gives it every request before anything reads the body (CSRF does).
"""

import html
from collections.abc import Callable

from django.core.exceptions import SuspiciousMultipartForm
from django.http import HttpRequest, HttpResponse
from django.http.multipartparser import MultiPartParser, MultiPartParserError

from debates.attachments.kinds import not_plain


class NameRefused(SuspiciousMultipartForm, MultiPartParserError):
    """A part's file name with a folder or a control character; its message says why (a 400, handler400)."""


class StrictNames(MultiPartParser):
    def sanitize_file_name(self, file_name: str) -> str | None:
        if why := not_plain(html.unescape(file_name)):  # unescaped, as Django reads it
            raise NameRefused(why)
        return super().sanitize_file_name(file_name)


class StrictNamesMiddleware:
    """Every request's multipart body is read by ``StrictNames`` (Django's own seam for a parser)."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        request.multipart_parser_class = StrictNames  # type: ignore[assignment]  # the stubs say an instance
        return self.get_response(request)
