"""A question's files as the page, the JSON API and the exports show them: what each is, where it is
downloaded, and how each voice of the run received it (natively, as text, or unseen), read from the
frozen roster by the engine's own rule."""

from dataclasses import dataclass
from typing import Any

from django.template.defaultfilters import filesizeformat

from debates.attachments.models import Attachment
from debates.conversations import threads
from debates.engine.attachments import Delivery, delivery
from debates.models import Question

SAID = {Delivery.NATIVE: "read it natively", Delivery.TEXT: "read its text", Delivery.UNSEEN: "could not see it"}


@dataclass(frozen=True)
class Shown:
    row: Attachment
    voices: list[tuple[str, Delivery]]  # (label, how it got the file), in the roster's order
    earlier: bool  # a file of the question this one follows up

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
    def unseen_by_all(self) -> bool:
        return bool(self.voices) and all(how == Delivery.UNSEEN for _, how in self.voices)


def for_question(question: Question, names: dict[str, str] | None = None) -> list[Shown]:
    """The files the question's panel reads (its thread's, then its own), with who got each how;
    ``names`` puts a revealed voice's name beside its label."""
    names = names or {}
    voices = [
        (names.get(entry["label"]) or entry["label"], entry.get("vision", False), entry.get("pdf", False))
        for entry in question.roster
        if entry["seat"].startswith("p")
    ]
    return [
        Shown(
            row,
            [(label, delivery(row.kind, vision, pdf)) for label, vision, pdf in voices],
            row.question_id != question.pk,
        )
        for row in threads.attachments_for(question)
    ]


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
