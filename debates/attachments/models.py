"""What Teorema stores of an attached file: a row tied to its question, its bytes in Django's default
storage (files under TEOREMA_DATA_DIR, or any storage backend a server names), and what was read of
it. Imported by debates.models so the app sees it; it names Question by its app label."""

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone

from debates.attachments.kinds import FileKind
from debates.engine.attachments import Attachment as Attached


def stored_name(row: "Attachment", _given: str) -> str:
    """Where the bytes go: the question's folder and the content's digest, never the sender's name."""
    suffix = {"image/png": ".png", "image/jpeg": ".jpg", "application/pdf": ".pdf"}.get(row.media_type, ".bin")
    return f"attachments/{row.question_id}/{row.sha256[:32]}{suffix}"


def thumbnail_name(row: "Attachment", _given: str) -> str:
    return f"attachments/{row.question_id}/{row.sha256[:32]}-thumb{stored_name(row, '')[-4:]}"


class Attachment(models.Model):
    question = models.ForeignKey("debates.Question", on_delete=models.CASCADE, related_name="attachments")
    position = models.PositiveSmallIntegerField(default=0)
    name = models.CharField(max_length=200, help_text="As the asker named it (no folder, no control character)")
    kind = models.CharField(max_length=16, choices=FileKind.choices())
    media_type = models.CharField(max_length=100, help_text="Read from the content (an image's once re-encoded)")
    file = models.FileField(upload_to=stored_name, max_length=200)
    thumbnail = models.FileField(upload_to=thumbnail_name, max_length=200, blank=True)
    size = models.PositiveBigIntegerField(help_text="Bytes stored (an image's once re-encoded)")
    sha256 = models.CharField(max_length=64, help_text="Of the bytes stored")
    pages = models.PositiveIntegerField(null=True, blank=True)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    text = models.TextField(blank=True, help_text="What was read of it (a PDF's pages apart), for voices reading text")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["question_id", "position"]

    def __str__(self) -> str:
        return self.name

    @property
    def is_image(self) -> bool:
        return self.kind == FileKind.IMAGE

    @property
    def kind_label(self) -> str:
        return FileKind(self.kind).label

    def download_path(self) -> str:
        """Its download on its own question's page (a follow-up's page serves its thread's files too)."""
        return reverse("debates:attachment", args=[self.question_id, self.pk, self.name])

    def as_attached(self) -> Attached:
        """The file as a run carries it: images and PDFs with their bytes (read from storage now), its text
        cut at the setting's length, saying so."""
        data = b""
        if self.kind in {FileKind.IMAGE, FileKind.PDF}:
            with self.file.open("rb") as handle:
                data = handle.read()
        limit = settings.TEOREMA["ATTACHMENT_TEXT_CHARS"]
        text = self.text
        if len(text) > limit:
            text = f"{text[:limit]}\n[… the rest of {self.name}, {len(text) - limit:,} characters, is left out]"
        return Attached(
            name=self.name,
            kind=self.kind,
            media_type=self.media_type,
            data=data,
            text=text,
            pages=self.pages,
            width=self.width,
            height=self.height,
        )
