"""Every check a question's files pass before anything is stored or any model is called, in words.

The service calls ``check`` with the uploads every way in hands it (a name, the declared media type,
the bytes); a refusal is one ``Refused`` whose ``fields["attachments"]`` says what is wrong with each
file. Limits come from settings.TEOREMA (docs/attachments.md): counts and sizes first (cheap, and a
100 MB file is refused before it is looked at), then the kind from the content, then the reading in
the limited child process.
"""

import hashlib
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.template.defaultfilters import filesizeformat

from debates.attachments import sandbox
from debates.attachments.kinds import TEXT_KINDS, FileKind, NotAccepted, clean_name, printable, sniff
from debates.refusal import Kind, Refused

FIELD = "attachments"


@dataclass(frozen=True)
class Upload:
    """A file as a way in received it."""

    name: str
    media_type: str
    data: bytes = field(repr=False)


@dataclass(frozen=True)
class Checked:
    """A file that passed every check, as it will be stored: images re-encoded, with a thumbnail."""

    name: str
    kind: FileKind
    media_type: str
    data: bytes = field(repr=False)
    text: str = ""
    pages: int | None = None
    width: int | None = None
    height: int | None = None
    thumbnail: bytes = field(default=b"", repr=False)

    @property
    def sha256(self) -> str:
        return hashlib.sha256(self.data).hexdigest()


def limits() -> dict[str, Any]:
    teorema = settings.TEOREMA
    return {
        "files": teorema["ATTACHMENTS_MAX_FILES"],
        "file_bytes": teorema["ATTACHMENT_MAX_BYTES"],
        "total_bytes": teorema["ATTACHMENTS_MAX_BYTES"],
        "pages": teorema["ATTACHMENT_MAX_PAGES"],
        "pixels": teorema["ATTACHMENT_MAX_PIXELS"],
    }


def in_words() -> str:
    """The limits as the ask page and the docs state them."""
    found = limits()
    return (
        f"Up to {found['files']} files, {filesizeformat(found['file_bytes'])} each and "
        f"{filesizeformat(found['total_bytes'])} in all; PDFs up to {found['pages']} pages, images up to "
        f"{found['pixels'] / 1e6:g} megapixels."
    )


def refuse(problems: list[str], kind: Kind = Kind.INVALID) -> Refused:
    message = "The attachments were not accepted." if len(problems) > 1 else problems[0]
    return Refused(message, kind, {FIELD: problems})


def check(uploads: list[Upload]) -> list[Checked]:
    """The uploads, checked and read; ``Refused`` (INVALID or TOO_LARGE) says what is wrong with each."""
    if not uploads:
        return []
    found = limits()
    if len(uploads) > found["files"]:
        raise refuse([f"{len(uploads)} files were attached; at most {found['files']} are accepted."], Kind.TOO_LARGE)
    most = filesizeformat(found["file_bytes"])
    large = [
        f"{printable(u.name)} is {filesizeformat(len(u.data))}; a file may be at most {most}."
        for u in uploads
        if len(u.data) > found["file_bytes"]
    ]
    total = sum(len(u.data) for u in uploads)
    if not large and total > found["total_bytes"]:
        large = [
            f"The files come to {filesizeformat(total)}; a question's may be at most "
            f"{filesizeformat(found['total_bytes'])} together."
        ]
    if large:
        raise refuse(large, Kind.TOO_LARGE)
    problems: list[str] = []
    tasks: list[sandbox.Task] = []
    for upload in uploads:
        try:
            name = clean_name(upload.name)
            if not upload.data:
                raise NotAccepted(f"{name} is empty.")
            kind, media_type = sniff(name, upload.media_type, upload.data)
        except NotAccepted as refused:
            problems.append(str(refused))
            continue
        family = "text" if kind in TEXT_KINDS else str(kind)
        tasks.append(sandbox.Task(name, family, str(kind), media_type, upload.data))
    if problems:
        raise refuse(problems)
    teorema = settings.TEOREMA
    reads = sandbox.read(
        tasks,
        {"max_pages": found["pages"], "max_pixels": found["pixels"], "side": teorema["ATTACHMENT_IMAGE_SIDE"]},
        teorema["ATTACHMENT_SECONDS"],
    )
    checked = []
    for task, read in zip(tasks, reads, strict=True):
        if read.error:
            problems.append(f"{task.name} was not accepted: {read.error}.")
        else:
            checked.append(as_checked(task, read))
    if problems:
        raise refuse(problems)
    return checked


def as_checked(task: sandbox.Task, read: sandbox.Read) -> Checked:
    facts = read.facts
    if task.family == "image":
        data, thumbnail = read.blobs
        return Checked(
            task.name,
            FileKind.IMAGE,
            facts["media_type"],
            data,
            width=facts["width"],
            height=facts["height"],
            thumbnail=thumbnail,
        )
    return Checked(task.name, FileKind(task.kind), task.media_type, task.data, facts["text"], facts.get("pages"))
