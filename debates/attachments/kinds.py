"""What a file is, read from its first bytes (never from its name alone), and what its name may be.

The name and the declared media type only say what the sender claims; a claim the content
contradicts (a ZIP called report.pdf, HTML called notes.txt) is refused in words. Plain Python: the
deep reading (pages, pixels, text) happens in the child process (``sandbox``).
"""

import io
import mimetypes
import unicodedata
import zipfile
from pathlib import PurePosixPath

from debates.lib.labelled import Labelled

MAX_NAME = 200


class FileKind(Labelled):
    """The kinds a question may carry; each voice gets one natively or as text (engine/attachments.py)."""

    PDF = "pdf", "PDF"
    DOCX = "docx", "Word document"
    TEXT = "text", "text"
    MARKDOWN = "markdown", "Markdown"
    CODE = "code", "source code"
    CSV = "csv", "CSV"
    TSV = "tsv", "TSV"
    JSON = "json", "JSON"
    IMAGE = "image", "image"


TEXT_KINDS = frozenset({FileKind.TEXT, FileKind.MARKDOWN, FileKind.CODE, FileKind.CSV, FileKind.TSV, FileKind.JSON})
ACCEPTED = "PDF, Word (.docx), text, Markdown, source code, CSV/TSV, JSON, and PNG, JPEG, WebP or GIF images"
IMAGES = {
    b"\x89PNG\r\n\x1a\n": "image/png",
    b"\xff\xd8\xff": "image/jpeg",
    b"GIF87a": "image/gif",
    b"GIF89a": "image/gif",
}
DOCX_TYPE = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
# Binary formats refused by what they are, so the refusal can name them.
REFUSED_MAGIC = {
    b"\x1f\x8b": "a gzip archive",
    b"BZh": "a bzip2 archive",
    b"\xfd7zXZ\x00": "an xz archive",
    b"7z\xbc\xaf\x27\x1c": "a 7-Zip archive",
    b"Rar!": "a RAR archive",
    b"\x7fELF": "a program",
    b"MZ": "a Windows program",
    b"\xd0\xcf\x11\xe0": "an old Office document (save it as .docx or PDF)",
}
SUFFIXES = {
    ".md": FileKind.MARKDOWN,
    ".markdown": FileKind.MARKDOWN,
    ".csv": FileKind.CSV,
    ".tsv": FileKind.TSV,
    ".tab": FileKind.TSV,
    ".json": FileKind.JSON,
    ".txt": FileKind.TEXT,
    ".log": FileKind.TEXT,
}
CODE_NAMES = (
    "py js mjs ts tsx jsx go rs java kt c h cc cpp hpp cs rb php swift scala sh bash zsh sql r m lua pl hs ex exs erl "
    "clj dart toml yaml yml ini cfg xml css scss vue svelte tf proto gradle dockerfile mk cmake jl zig nim ml fs vb "
    "ps1 bat"
)
CODE_SUFFIXES = frozenset(f".{suffix}" for suffix in CODE_NAMES.split())


class NotAccepted(Exception):
    """A file refused for what it is, in words the sender can act on."""


def clean_name(given: str) -> str:
    """The file's name as given, if it is a plain file name: no folder, no control character."""
    name = unicodedata.normalize("NFC", given.strip())
    if not name:
        raise NotAccepted("A file has no name: give each file its name.")
    if "/" in name or "\\" in name or name in {".", ".."}:
        raise NotAccepted(f"“{printable(name)}” is a path, not a file name: send the file's name alone.")
    if any(unicodedata.category(c) in {"Cc", "Cf", "Zl", "Zp"} for c in name):
        raise NotAccepted(f"“{printable(name)}” has control characters in its name: rename the file.")
    if len(name) > MAX_NAME:
        raise NotAccepted(f"“{name[:40]}…” has a name of {len(name)} characters; at most {MAX_NAME} are accepted.")
    return name


def printable(name: str) -> str:
    """A name fit to be shown in a refusal: control characters as escapes, cut short."""
    shown = "".join(c if unicodedata.category(c)[0] != "C" else ascii(c)[1:-1] for c in name)
    return shown if len(shown) <= 60 else shown[:57] + "…"


def claimed(name: str, media_type: str) -> str:
    """What the sender says the file is: the declared media type unless it says nothing, else the name's."""
    declared = media_type.split(";")[0].strip().lower()
    if declared and declared not in {"application/octet-stream", "binary/octet-stream"}:
        return declared
    return mimetypes.guess_type(name, strict=False)[0] or ""


def family(media_type: str) -> str:
    """pdf, docx, image, html, svg, text or "" (no claim) for a media type."""
    if media_type == "application/pdf":
        return "pdf"
    if media_type == DOCX_TYPE:
        return "docx"
    if media_type == "image/svg+xml":
        return "svg"
    if media_type in {"text/html", "application/xhtml+xml"}:
        return "html"
    if media_type.startswith("image/"):
        return "image"
    if media_type.startswith("text/") or media_type in {"application/json", "application/xml", "application/x-sh"}:
        return "text"
    return ""


def sniff(name: str, media_type: str, data: bytes) -> tuple[FileKind, str]:
    """The file's kind and real media type, from its content; ``NotAccepted`` says why not."""
    claim = family(claimed(name, media_type))
    found, real = _content(name, data)
    if claim in {"svg", "html"}:
        raise NotAccepted(f"{name} is declared as {claim.upper()}, which is never accepted (it can carry scripts).")
    if claim and claim != _family_of(found):
        said = {"pdf": "a PDF", "docx": "a Word document", "image": "an image", "text": "text"}[claim]
        raise NotAccepted(f"{name} is not {said}: its content is {describe(found, real)}.")
    if found in TEXT_KINDS:
        return text_kind(name, media_type), "text/plain"
    return found, real


def _family_of(kind: FileKind) -> str:
    return "text" if kind in TEXT_KINDS else str(kind)


def describe(kind: FileKind, media_type: str) -> str:
    if kind == FileKind.IMAGE:
        return f"a {media_type.removeprefix('image/').upper()} image"
    return {FileKind.PDF: "a PDF", FileKind.DOCX: "a Word document"}.get(kind, "text")


def _content(name: str, data: bytes) -> tuple[FileKind, str]:
    head = data[:16]
    if b"%PDF-" in data[:1024]:
        return FileKind.PDF, "application/pdf"
    for magic, real in IMAGES.items():
        if head.startswith(magic):
            return FileKind.IMAGE, real
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return FileKind.IMAGE, "image/webp"
    if head.startswith(b"PK\x03\x04"):
        if _is_docx(data):
            return FileKind.DOCX, DOCX_TYPE
        raise NotAccepted(f"{name} is a ZIP archive: archives are not accepted; attach the files in it ({ACCEPTED}).")
    for magic, what in REFUSED_MAGIC.items():
        if head.startswith(magic):
            raise NotAccepted(f"{name} is {what}, which the panel cannot read: attach {ACCEPTED}.")
    if _looks_binary(data):
        raise NotAccepted(f"{name} is not a kind of file the panel reads: attach {ACCEPTED}.")
    _refuse_markup(name, data)
    return FileKind.TEXT, "text/plain"


def _is_docx(data: bytes) -> bool:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            names = set(archive.namelist())
    except (zipfile.BadZipFile, ValueError):
        return False
    return "word/document.xml" in names and "[Content_Types].xml" in names


def _looks_binary(data: bytes) -> bool:
    """NUL bytes in the first 8 KB, unless a UTF-16 or UTF-32 byte order mark says why."""
    head = data[:8192]
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return False
    return b"\x00" in head


def _marked(head: bytes) -> str:
    """The encoding a byte order mark names (UTF-32 little-endian's begins with UTF-16's), else UTF-8."""
    if head.startswith(b"\xff\xfe\x00\x00"):
        return "utf-32"
    return "utf-16" if head.startswith((b"\xff\xfe", b"\xfe\xff")) else "utf-8"


MARKUP_ROOTS = ("<!doctype html", "<html", "<head", "<body", "<svg", "<script", "<iframe")


def _refuse_markup(name: str, data: bytes) -> None:
    """HTML and SVG are refused whatever the file is called: a viewer would render them."""
    head = data[:4096]
    start = head.decode(_marked(head), "ignore").lstrip("\ufeff \t\r\n").lower()
    while start.startswith(("<?xml", "<!--")):
        end = start.find("?>" if start.startswith("<?xml") else "-->")
        if end < 0:
            break
        start = start[end + (2 if start.startswith("<?xml") else 3) :].lstrip()
    if start.startswith("<!doctype svg") or start.startswith("<svg"):
        raise NotAccepted(f"{name} is SVG, which is never accepted (it can carry scripts): attach it as PNG.")
    if start.startswith(MARKUP_ROOTS):
        raise NotAccepted(
            f"{name} is HTML, which is never accepted (a viewer would run it): attach the page as PDF, "
            "or its text as .txt."
        )


def text_kind(name: str, media_type: str) -> FileKind:
    """Which text a text file is, by its name or declared type (its content is text either way)."""
    suffix = PurePosixPath(name.lower()).suffix
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    if suffix in CODE_SUFFIXES or name.lower() in {"dockerfile", "makefile"}:
        return FileKind.CODE
    declared = media_type.split(";")[0].strip().lower()
    return {"text/markdown": FileKind.MARKDOWN, "text/csv": FileKind.CSV, "application/json": FileKind.JSON}.get(
        declared, FileKind.TEXT
    )
