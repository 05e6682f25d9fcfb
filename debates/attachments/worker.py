"""The child process that reads attached files (pypdf, python-docx, Pillow, charset-normalizer) under OS
limits: a hostile file can at worst exhaust this process, which the parent kills on its deadline.

Run as a script (``python -I worker.py MEMORY_BYTES CPU_SECONDS``), never imported by the parent.
Protocol, per file: the parent writes a JSON line (kind, name, size and the limits) and then
``size`` raw bytes; the child answers a JSON line (``{"error": …}`` or the file's pages, pixels,
text, and the sizes of the re-encoded image and its thumbnail) and then those bytes.
"""

import io
import json
import resource
import sys
import zipfile

PAGE_BREAK = "\f"
SHORT_TEXT = 512  # bytes: below this, charset detection guesses more than it knows
THUMBNAIL_SIDE = 256
# A DOCX is a ZIP: what its entries unpack to, in all, and how much more than they weigh.
DOCX_MAX_UNPACKED = 200 * 2**20
DOCX_MAX_RATIO = 200
DOCX_MAX_ENTRIES = 5000
# Walking a PDF's objects for scripts: a document with more is refused rather than half checked.
PDF_MAX_OBJECTS = 200_000
SCRIPT_ACTIONS = {"/JavaScript", "/Launch", "/SubmitForm", "/ImportData", "/Rendition"}


class Unreadable(Exception):
    """What is wrong with the file, in words (the parent prefixes its name)."""


def set_limits(memory_bytes: int, cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # no file is ever written


def main() -> None:
    set_limits(int(sys.argv[1]), int(sys.argv[2]))
    import logging

    logging.disable(logging.CRITICAL)  # pypdf warns on stderr about every oddity of a file
    readers = {"pdf": pdf, "docx": docx, "image": image, "text": text}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    stdout.write(b"ready\n")
    stdout.flush()
    while header := stdin.readline():
        task = json.loads(header)
        data = stdin.read(task["size"])
        blobs: list[bytes] = []
        try:
            reply = readers[task["family"]](data, task, blobs)
        except Unreadable as refused:
            reply = {"error": str(refused)}
        except MemoryError:
            reply = {"error": "it needs more memory to read than allowed (a decompression bomb?)"}
        except RecursionError:
            reply = {"error": "it is nested too deeply to read"}
        except Exception as error:  # whatever a library raises on a damaged file becomes words
            reply = {"error": f"it could not be read ({(str(error) or type(error).__name__)[:160]})"}
        reply["blobs"] = [len(blob) for blob in blobs] if "error" not in reply else []
        stdout.write(json.dumps(reply).encode() + b"\n")
        for blob in blobs if "error" not in reply else []:
            stdout.write(blob)
        stdout.flush()


def pdf(data: bytes, task: dict, blobs: list[bytes]) -> dict:
    """Its pages' text, after refusing what cannot be read safely or whole."""
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    if b"%%EOF" not in data[-2048:]:
        raise Unreadable("it is cut short (no end-of-file marker): it may not have finished downloading")
    try:
        reader = PdfReader(io.BytesIO(data), strict=False)
        if reader.is_encrypted:
            raise Unreadable("it is encrypted: remove its password and attach it again")
        count = len(reader.pages)
    except PdfReadError as error:
        raise Unreadable(f"it is damaged ({error})") from None
    if count > task["max_pages"]:
        raise Unreadable(f"it has {count} pages; at most {task['max_pages']} are accepted")
    if script := scripted(reader):
        raise Unreadable(f"it carries {script}, which is never accepted: print it to a new PDF and attach that")
    pages = [(page.extract_text() or "").replace(PAGE_BREAK, "\n").strip() for page in reader.pages]
    return {"pages": count, "text": PAGE_BREAK.join(pages)}


def scripted(reader) -> str:
    """ "JavaScript" (or another action that runs or sends something) if the document holds one anywhere."""
    from pypdf.generic import ArrayObject, DictionaryObject, IndirectObject

    seen: set[tuple[int, int]] = set()
    stack = [reader.trailer]
    walked = 0
    while stack:
        node = stack.pop()
        if isinstance(node, IndirectObject):
            key = (node.idnum, node.generation)
            if key in seen:
                continue
            seen.add(key)
            node = node.get_object()
        walked += 1
        if walked > PDF_MAX_OBJECTS:
            raise Unreadable("it has too many objects to check for scripts")
        if isinstance(node, DictionaryObject):
            if "/JS" in node or "/JavaScript" in node or node.get("/S") == "/JavaScript":  # named scripts too
                return "JavaScript"
            if (action := str(node.get("/S", ""))) in SCRIPT_ACTIONS:
                return f"a {action[1:]} action"
            stack.extend(value for name, value in node.items() if name != "/Parent")
        elif isinstance(node, ArrayObject):
            stack.extend(node)
    return ""


def docx(data: bytes, task: dict, blobs: list[bytes]) -> dict:
    """Its paragraphs and tables as text, after refusing a ZIP that unpacks to far more than it weighs."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        entries = archive.infolist()
        unpacked = sum(entry.file_size for entry in entries)
        packed = sum(entry.compress_size for entry in entries) or 1
        if len(entries) > DOCX_MAX_ENTRIES or unpacked > DOCX_MAX_UNPACKED or unpacked / packed > DOCX_MAX_RATIO:
            raise Unreadable("it unpacks to far more than it weighs (a decompression bomb?)")
    import docx as python_docx

    document = python_docx.Document(io.BytesIO(data))
    lines = [paragraph.text for paragraph in document.paragraphs]
    for table in document.tables:
        lines += [" | ".join(cell.text.strip() for cell in row.cells) for row in table.rows]
    return {"text": "\n".join(lines).strip()}


def image(data: bytes, task: dict, blobs: list[bytes]) -> dict:
    """Re-encoded without any metadata (``bare``), turned upright, its longest side bounded; and a
    thumbnail. The pixels are counted from the header before anything is decoded."""
    from PIL import Image, ImageOps

    Image.MAX_IMAGE_PIXELS = None  # counted here instead, to say it in words
    with Image.open(io.BytesIO(data)) as opened:
        width, height = opened.size
        if width * height > task["max_pixels"]:
            raise Unreadable(
                f"it is {width:,} × {height:,} pixels ({width * height:,}); at most {task['max_pixels']:,} are accepted"
            )
        if opened.format not in {"PNG", "JPEG", "WEBP", "GIF"}:
            raise Unreadable(f"its content is a {opened.format} image, not PNG, JPEG, WebP or GIF")
        opened.seek(0)  # an animation's first frame
        picture = ImageOps.exif_transpose(opened)
        picture.load()
    lossy = task["media_type"] in {"image/jpeg", "image/webp"}
    opaque = picture.mode not in {"RGBA", "LA", "PA"} and "transparency" not in picture.info
    picture = bare(picture.convert("RGB" if lossy and opaque else "RGBA"))
    picture.thumbnail((task["side"], task["side"]))
    media_type = "image/jpeg" if lossy and opaque else "image/png"
    blobs.append(encoded(picture, media_type))
    small = picture.copy()
    small.thumbnail((THUMBNAIL_SIDE, THUMBNAIL_SIDE))
    blobs.append(encoded(small, media_type))
    return {"width": picture.width, "height": picture.height, "media_type": media_type}


def bare(picture):
    """The pixels alone: colours turned to sRGB where an ICC profile said otherwise, then every block
    beside them dropped (EXIF, a JPEG's comment, XMP, PNG text chunks, the profile itself), which the
    encoders would otherwise write again."""
    from PIL import ImageCms

    if profile := picture.info.get("icc_profile"):
        try:
            srgb = ImageCms.createProfile("sRGB")
            picture = ImageCms.profileToProfile(picture, io.BytesIO(profile), srgb, outputMode=picture.mode)
        except (ImageCms.PyCMSError, OSError, ValueError):
            pass  # a profile that cannot be read: its pixels as they are
    picture.info = {}
    return picture


def encoded(picture, media_type: str) -> bytes:
    out = io.BytesIO()
    if media_type == "image/jpeg":
        picture.save(out, "JPEG", quality=90, optimize=True)
    else:
        picture.save(out, "PNG", optimize=True)
    return out.getvalue()


# Byte order marks, UTF-32's first: its little-endian mark begins with UTF-16's.
MARKS = (
    (b"\xff\xfe\x00\x00", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8-sig"),
    (b"\xff\xfe", "utf-16"),
    (b"\xfe\xff", "utf-16"),
)


def text(data: bytes, task: dict, blobs: list[bytes]) -> dict:
    """Decoded in its own encoding: the one its byte order mark names, else UTF-8, else the one
    charset-normalizer finds; JSON must parse."""
    marked = next((encoding for mark, encoding in MARKS if data.startswith(mark)), None)
    try:
        decoded = data.decode(marked or "utf-8")
    except UnicodeDecodeError:
        if marked:
            raise Unreadable(
                f"it starts with a {marked.upper()} byte order mark but is not {marked.upper()} text"
            ) from None
        from charset_normalizer import from_bytes

        best = from_bytes(data).best() if len(data) >= SHORT_TEXT else None
        # Too short to tell its encoding: Windows' Western one, the likeliest that is not UTF-8.
        decoded = str(best) if best is not None else data.decode("cp1252", "replace")
    if task["kind"] == "json":
        try:
            json.loads(decoded)
        except ValueError as error:
            raise Unreadable(f"it is not valid JSON ({error})") from None
    return {"text": decoded.replace("\r\n", "\n")}


if __name__ == "__main__":
    main()
