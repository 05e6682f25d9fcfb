"""Files to attach, good and bad, made here: a PDF with text on each page (written object by object),
the same encrypted or with JavaScript, a DOCX, images, and the hostile ones the checks refuse."""

import io
import struct
import zipfile
import zlib

from PIL import Image


def pdf(pages: list[str], *, javascript: str = "", pad: int = 0) -> bytes:
    """A PDF whose page i shows ``pages[i]`` in Helvetica (pypdf reads it back); ``javascript`` runs when
    it opens; ``pad`` bytes of comment make it as large as a test needs."""
    count = len(pages)
    objects: list[bytes] = []
    kids = " ".join(f"{3 + 2 * i} 0 R" for i in range(count))
    action = b" /OpenAction << /S /JavaScript /JS (" + javascript.encode() + b") >>" if javascript else b""
    objects.append(b"<< /Type /Catalog /Pages 2 0 R" + action + b" >>")
    objects.append(f"<< /Type /Pages /Kids [{kids}] /Count {count} >>".encode())
    font = 3 + 2 * count
    for index, text in enumerate(pages):
        escaped = text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
        stream = f"BT /F1 12 Tf 72 720 Td ({escaped}) Tj ET".encode()
        objects.append(
            f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {4 + 2 * index} 0 R "
            f"/Resources << /Font << /F1 {font} 0 R >> >> >>".encode()
        )
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    objects.append(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    if pad:
        out += b"%" + b"x" * pad + b"\n"
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def encrypted_pdf() -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(pdf(["secret"]))))
    writer.encrypt("password", algorithm="RC4-128")
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def docx(paragraphs: list[str]) -> bytes:
    import docx as python_docx

    document = python_docx.Document()
    for paragraph in paragraphs:
        document.add_paragraph(paragraph)
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def zip_archive() -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        archive.writestr("notes.txt", "inside a zip")
    return out.getvalue()


def image(width: int = 64, height: int = 48, fmt: str = "PNG", colour: tuple[int, int, int] = (200, 40, 40)) -> bytes:
    picture = Image.new("RGB", (width, height), colour)
    out = io.BytesIO()
    picture.save(out, fmt)
    return out.getvalue()


def jpeg_with_exif() -> bytes:
    """A JPEG carrying a camera's EXIF (make, model, a GPS position) that re-encoding must drop."""
    picture = Image.new("RGB", (80, 60), (10, 120, 200))
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"  # Make
    exif[0x0110] = "Model X"  # Model
    out = io.BytesIO()
    picture.save(out, "JPEG", exif=exif.tobytes())
    return out.getvalue()


def with_every_metadata_block(fmt: str) -> bytes:
    """A JPEG or PNG carrying what a camera, an editor or a phone leaves in it: EXIF, a comment (JPEG)
    or text chunks (PNG), an XMP packet and an ICC profile, each holding a secret."""
    from PIL import ImageCms, PngImagePlugin

    picture = Image.new("RGB", (80, 60), (10, 120, 200))
    exif = Image.Exif()
    exif[0x010F] = "SecretCam"
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    xmp = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:Description>SecretXMP</rdf:Description></x:xmpmeta>'
    out = io.BytesIO()
    if fmt == "JPEG":
        picture.save(out, "JPEG", exif=exif.tobytes(), comment=b"SecretComment", icc_profile=icc, xmp=xmp)
    else:
        text = PngImagePlugin.PngInfo()
        text.add_text("Author", "SecretAuthor")
        text.add_itxt("XML:com.adobe.xmp", xmp.decode())
        picture.save(out, "PNG", pnginfo=text, exif=exif.tobytes(), icc_profile=icc)
    return out.getvalue()


def png_claiming(width: int, height: int) -> bytes:
    """A PNG header claiming ``width`` × ``height`` pixels over a few bytes of data: a decompression
    bomb's shape, refused from its header before any pixel is decoded."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    data = zlib.compress(b"\x00" * 1024)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", data) + chunk(b"IEND", b"")


SVG_WITH_SCRIPT = b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>'
HTML = b"<!DOCTYPE html>\n<html><body><script>fetch('/api')</script><p>Quarterly notes</p></body></html>"
