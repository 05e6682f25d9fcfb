"""A question's files as the page, the JSON API and the exports show them: what each is, where it is
downloaded, and how each voice of the run received it (natively, as text, or unseen), read from the
frozen roster by the engine's own rule."""

from dataclasses import dataclass
from typing import Any

from django.template.defaultfilters import filesizeformat
from django.urls import reverse

from debates.attachments.models import Attachment
from debates.conversations import threads
from debates.engine.attachments import Delivery, delivery
from debates.models import Question


@dataclass(frozen=True)
class Shown:
    row: Attachment
    voices: list[tuple[str, Delivery]]  # (label, how it got the file), in the roster's order
    earlier: bool  # a file of the question this one follows up
    download: str  # where this reader downloads it (a link's own path for a reader by link)
    thumbnail: str  # an image's thumbnail, shown inline; "" for any other file

    @property
    def size(self) -> str:
        return filesizeformat(self.row.size)

    @property
    def facts(self) -> str:
        """ "PDF · 12 pages · 1.2 MB", "image · 800 × 600 · 80 KB"."""
        row = self.row
        parts = [row.kind_label]
        if row.pages:
            parts.append(f"{row.pages} page{'s' if row.pages != 1 else ''}")
        if row.width and row.height:
            parts.append(f"{row.width} × {row.height}")
        return " · ".join([*parts, self.size])

    def who(self, how: Delivery) -> list[str]:
        return [label for label, got in self.voices if got == how]

    @property
    def native_by(self) -> list[str]:
        return self.who(Delivery.NATIVE)

    @property
    def text_by(self) -> list[str]:
        return self.who(Delivery.TEXT)

    @property
    def unseen_by(self) -> list[str]:
        return self.who(Delivery.UNSEEN)

    @property
    def unseen_by_all(self) -> bool:
        return bool(self.voices) and all(how == Delivery.UNSEEN for _, how in self.voices)


RECEIVED: dict[str, str] = {Delivery.NATIVE: "natively", Delivery.TEXT: "as text", Delivery.UNSEEN: "could not see it"}


def received(voices: dict[str, str]) -> str:
    """How each voice received a file, in words ("Panelist A natively; Panelist B as text"), from
    its JSON form (``as_json``'s ``voices``): the exports and the terminal say it alike."""
    return "; ".join(f"{label} {RECEIVED.get(how, how)}" for label, how in voices.items())


def for_question(question: Question, names: dict[str, str] | None = None, token: str = "") -> list[Shown]:
    """The files the question's panel reads (its thread's, then its own), with who got each how;
    ``names`` puts a revealed voice's name for its label; ``token``: the reader came by the link."""
    names = names or {}
    voices = [
        (names.get(entry["label"]) or entry["label"], entry.get("vision", False), entry.get("pdf", False))
        for entry in question.roster
        if entry["seat"].startswith("p")
    ]
    found = []
    for row in threads.attachments_for(question):
        got = [(label, delivery(row.kind, vision, pdf)) for label, vision, pdf in voices]
        if token:
            download = reverse("debates:shared_attachment", args=[token, row.pk, row.name])
            thumbnail = reverse("debates:shared_thumbnail", args=[token, row.pk]) if row.thumbnail else ""
        else:
            download = reverse("debates:attachment", args=[question.pk, row.pk, row.name])
            thumbnail = reverse("debates:attachment_thumbnail", args=[question.pk, row.pk]) if row.thumbnail else ""
        found.append(Shown(row, got, row.question_id != question.pk, download, thumbnail))
    return found


def as_json(shown: Shown, url: str) -> dict[str, Any]:
    row = shown.row
    return {
        "name": row.name,
        "kind": row.kind,
        "media_type": row.media_type,
        "size": row.size,
        "sha256": row.sha256,
        "pages": row.pages,
        "width": row.width,
        "height": row.height,
        "question": row.question_id,
        "url": url,
        "voices": {label: str(how) for label, how in shown.voices},
    }
