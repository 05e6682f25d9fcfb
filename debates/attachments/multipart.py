"""A multipart body's file names as they were sent, so that a name with a folder is refused, not cut.

Django's parser keeps only the last segment of a part's file name and its printable characters
before any code of ours sees the file: ``../x.txt`` arrives as ``x.txt`` and ``..`` drops the file
without a word. Every other way in refuses such a name (``kinds.clean_name``), so a hand-written
multipart body would be the one way to have a path taken as a name. This parser gives each file
the name it was sent under as ``sent_name``; the file's ``name`` stays Django's cut one.
"""

import html
from typing import Any

from django.http.multipartparser import MultiPartParser
from django.utils.datastructures import MultiValueDict
from django.utils.encoding import force_str


class NamesAsSent(MultiPartParser):
    """Django's parser, with each uploaded file's name as sent (HTML entities read as Django reads them)."""

    sent = ""
    _encoding: str  # Django's parser sets both; its type stubs leave them out
    _files: MultiValueDict

    def sanitize_file_name(self, file_name: str) -> str | None:
        # A file whose name Django would drop (".", "..", "a/..") is kept under a stand-in name, for
        # the check to refuse its name as sent; an empty name is still no file (an empty file field).
        self.sent = html.unescape(file_name)
        return super().sanitize_file_name(file_name) or ("unnamed" if self.sent.strip() else None)

    def handle_file_complete(self, old_field_name: Any, counters: list[int]) -> None:
        field = force_str(old_field_name, self._encoding, errors="replace")
        before = len(self._files.getlist(field))
        super().handle_file_complete(old_field_name, counters)
        files = self._files.getlist(field)
        if len(files) > before:
            files[-1].sent_name = self.sent


def name_as_sent(uploaded: Any) -> str:
    """The name a multipart part was sent under, where NamesAsSent parsed it, else its stored name."""
    return getattr(uploaded, "sent_name", None) or uploaded.name or ""
