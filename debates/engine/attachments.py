"""The files an asker attached, as a run carries them, and how each voice receives each one.

A voice gets a file natively where its wire and model read that kind (``Voice.vision`` for
images, ``Voice.pdf`` for PDFs: the roster freezes both from the provider catalog and the
panelist's own setting), else as the text extracted from it, page by page; an image a voice
cannot see is named to it as one it cannot see. Text files are text for everyone.
"""

from dataclasses import dataclass
from enum import StrEnum

from debates.providers.base import Part, Voice

IMAGE, PDF = "image", "pdf"
# A PDF's extracted text keeps its pages apart with a form feed, as pdftotext does.
PAGE_BREAK = "\f"


class Delivery(StrEnum):
    NATIVE = "native"  # the file itself, as the wire's own part (an image, a document)
    TEXT = "text"  # its extracted text, in the prompt
    UNSEEN = "unseen"  # an image the model cannot see: it is told one is attached


@dataclass(frozen=True)
class Attachment:
    """A checked file of the question (or of the thread it follows up): what the prompts name and send."""

    name: str
    kind: str  # pdf, docx, text, markdown, code, csv, tsv, json, image
    media_type: str
    data: bytes = b""  # the bytes a wire sends natively (an image as re-encoded); b"" for text kinds
    text: str = ""  # the extracted text; a PDF's pages separated by PAGE_BREAK
    pages: int | None = None
    width: int | None = None
    height: int | None = None

    @property
    def page_texts(self) -> list[str]:
        return self.text.split(PAGE_BREAK) if self.kind == PDF else [self.text]

    def citation(self, page: int | None = None) -> str:
        """How a claim cites it: "report.pdf p. 4"."""
        return f"{self.name} p. {page}" if page else self.name


def delivery(kind: str, vision: bool, pdf: bool) -> Delivery:
    """How a voice whose model sees images (``vision``) and takes PDFs (``pdf``) receives a file of
    ``kind``: natively where it reads that kind, else as text (an image, which has none, unseen). The
    page and the exports say it from the frozen roster by the same rule."""
    if kind == IMAGE:
        return Delivery.NATIVE if vision else Delivery.UNSEEN
    if kind == PDF and pdf:
        return Delivery.NATIVE
    return Delivery.TEXT


def delivery_to(attachment: Attachment, voice: Voice) -> Delivery:
    return delivery(attachment.kind, voice.vision, voice.pdf)


def parts(attachments: tuple[Attachment, ...], voice: Voice) -> tuple[Part, ...]:
    """The native parts of ``voice``'s prompt, in the question's order."""
    return tuple(
        Part(a.kind, a.name, a.media_type, a.data) for a in attachments if delivery_to(a, voice) == Delivery.NATIVE
    )
