"""Every check a question's files pass before anything is stored or any model is called, in words.

The service calls ``check`` with the uploads every way in hands it (a name, the declared media type,
the bytes); a refusal is one ``Refused`` whose ``fields["attachments"]`` says what is wrong with each
file. Limits come from settings.TEOREMA (docs/attachments.md): counts and sizes first (cheap, and a
100 MB file is refused before it is looked at), then the kind from the content, then the reading in
the limited child process.
"""

import base64
import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.template.defaultfilters import filesizeformat

from debates.attachments import sandbox
from debates.attachments.kinds import TEXT_KINDS, FileKind, NotAccepted, clean_name, printable, sniff
from debates.attachments.multipart import name_as_sent
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


def from_json(items: Any, field: str = FIELD, paths: bool = False) -> list[Upload]:
    """Files as the JSON ways in send them: ``[{"name", "media_type", "data"}]``, the data base64 or a
    ``data:`` URI; with ``paths`` (a server on the asker's own machine: MCP over stdio), also
    ``{"path": "/abs/file"}``, read from that disk."""
    if items is None:
        return []
    if not isinstance(items, list):
        raise Refused("The attachments were not accepted.", Kind.INVALID, {field: [SHAPE]})
    uploads, problems = [], []
    for index, item in enumerate(items):
        try:
            uploads.append(from_item(item, index, field, paths))
        except Refused as refused:
            problems += refused.fields[field]
    if problems:
        raise Refused("The attachments were not accepted.", Kind.INVALID, {field: problems})
    return uploads


def from_item(item: Any, index: int, field: str, paths: bool) -> Upload:
    if isinstance(item, dict) and "path" in item:
        return from_path(item, field, paths)
    if not (isinstance(item, dict) and isinstance(item.get("name"), str) and isinstance(item.get("data"), str)):
        raise refuse_in(field, f"File {index + 1}: {SHAPE}")
    media_type = item.get("media_type") or ""
    if not isinstance(media_type, str) or set(item) - {"name", "media_type", "data"}:
        raise refuse_in(field, f"File {index + 1}: {SHAPE}")
    if item["data"].startswith("data:"):
        upload = from_data_uri(item["name"], item["data"], field)
        return Upload(upload.name, media_type or upload.media_type, upload.data)
    try:
        return Upload(item["name"], media_type, base64.b64decode(item["data"], validate=True))
    except ValueError:
        raise refuse_in(field, f"{printable(item['name'])}: its data is not base64.") from None


def from_path(item: dict[str, Any], field: str, paths: bool) -> Upload:
    """A file named by its absolute path on this machine's disk, refused for its size before it is read."""
    given = item["path"]
    shown = printable(given if len(given) <= 60 else "…" + given[-57:]) if isinstance(given, str) else "a path"
    if not paths:
        raise refuse_in(
            field,
            f"{shown}: a file by path is read only over stdio (this server's disk is not yours); "
            'send its bytes as "data" (base64, or a data: URI).',
        )
    if not isinstance(given, str) or set(item) - {"path", "name", "media_type"}:
        raise refuse_in(field, f'{shown}: a file by path is an object {{"path": "/abs/path/report.pdf"}}.')
    path = Path(given)
    if not path.is_absolute():
        raise refuse_in(field, f"{shown}: the path must be absolute (it is read from the server's own disk).")
    if not path.exists():
        raise refuse_in(field, f"{shown}: there is no such file.")
    if not path.is_file():
        raise refuse_in(field, f"{shown}: it is not a file (a directory?).")
    name = item.get("name") or path.name
    if large := too_large(name, path.stat().st_size):
        raise Refused(large, Kind.TOO_LARGE, {field: [large]})
    try:
        data = path.read_bytes()
    except OSError as error:
        raise refuse_in(field, f"{shown}: it could not be read ({error.strerror}).") from None
    return Upload(name, item.get("media_type") or "", data)


def refuse_in(field: str, problem: str) -> Refused:
    return Refused(problem, Kind.INVALID, {field: [problem]})


def from_form(uploaded: list[Any]) -> list[Upload]:
    """Files as a multipart form sends them (the ask page, the follow-up form, the API)."""
    return [Upload(name_as_sent(f), f.content_type or "", f.read()) for f in uploaded]


SHAPE = 'each file is an object {"name": "report.pdf", "media_type": "application/pdf", "data": "<base64>"}.'


def from_data_uri(name: str, uri: str, field: str) -> Upload:
    """A file sent as a ``data:<media type>;base64,<data>`` URI (OpenAI's image_url and file parts)."""
    head, comma, data = uri.partition(",")
    if not (head.startswith("data:") and head.endswith(";base64") and comma):
        raise refuse_in(field, f"{field}: only a data: URI with base64 content is accepted (a link is never fetched).")
    try:
        return Upload(name, head[5:-7], base64.b64decode(data, validate=True))
    except ValueError:
        raise refuse_in(field, f"{field}: the data URI's content is not base64.") from None


def limits() -> dict[str, Any]:
    teorema = settings.TEOREMA
    return {
        "files": teorema["ATTACHMENTS_MAX_FILES"],
        "file_bytes": teorema["ATTACHMENT_MAX_BYTES"],
        "total_bytes": teorema["ATTACHMENTS_MAX_BYTES"],
        "pages": teorema["ATTACHMENT_MAX_PAGES"],
        "pixels": teorema["ATTACHMENT_MAX_PIXELS"],
        "image_side": teorema["ATTACHMENT_IMAGE_SIDE"],
        "text_chars": teorema["ATTACHMENT_TEXT_CHARS"],
    }


def in_words() -> str:
    """The limits as the ask page and the docs state them."""
    found = limits()
    return (
        f"Up to {found['files']} files, {filesizeformat(found['file_bytes'])} each and "
        f"{filesizeformat(found['total_bytes'])} in all; PDFs up to {found['pages']} pages, images up to "
        f"{found['pixels'] / 1e6:g} megapixels."
    )


def too_large(name: str, size: int) -> str:
    """Why a file of ``size`` bytes is refused for its size alone ("" when it is not): a way in that
    knows the size before it has the bytes (Telegram) says so without fetching them."""
    most = settings.TEOREMA["ATTACHMENT_MAX_BYTES"]
    return (
        f"{printable(name)} is {filesizeformat(size)}; a file may be at most {filesizeformat(most)}."
        if size > most
        else ""
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
    large = [said for u in uploads if (said := too_large(u.name, len(u.data)))]
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
