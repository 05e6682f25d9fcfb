"""Storing a question's checked files (Django's storage API), and what a run and a follow-up read of them."""

from django.core.files.base import ContentFile

from debates.attachments.check import Checked
from debates.attachments.models import Attachment


def save(question_id: int, checked: list[Checked]) -> list[Attachment]:
    """The files' bytes in storage and their rows, in the asker's order (called inside the question's
    transaction: should a write fail, the bytes already stored go too)."""
    rows: list[Attachment] = []
    try:
        for position, found in enumerate(checked):
            row = Attachment(
                question_id=question_id,
                position=position,
                name=found.name,
                kind=found.kind,
                media_type=found.media_type,
                size=len(found.data),
                sha256=found.sha256,
                pages=found.pages,
                width=found.width,
                height=found.height,
                text=found.text,
            )
            row.file.save("", ContentFile(found.data), save=False)
            rows.append(row)
            if found.thumbnail:
                row.thumbnail.save("", ContentFile(found.thumbnail), save=False)
            row.save()
    except BaseException:
        for row in rows:
            row.file.delete(save=False)
            if row.thumbnail:
                row.thumbnail.delete(save=False)
        raise
    return rows
