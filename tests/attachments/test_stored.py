"""A checked file is stored with Django's storage API, tied to its question, under a name of our own;
an image is re-encoded (its EXIF gone, its size bounded) before any model or viewer sees it."""

import hashlib
import io

import pytest
from PIL import Image

from debates import service
from debates.attachments.check import Upload
from debates.models import Attachment, Source
from tests.fakes import files


def test_a_pdf_is_stored_with_its_pages_text_and_digest(alice, offline_panel, no_runs, file_storage):
    data = files.pdf(["Revenue fell 4% in Q3.", "Costs rose 2%."])

    question = service.ask(alice, source=Source.API, text="Why?", attachments=[Upload("report.pdf", "", data)])

    stored = Attachment.objects.get(question=question)
    assert (stored.name, stored.kind, stored.media_type, stored.pages) == ("report.pdf", "pdf", "application/pdf", 2)
    assert stored.text == "Revenue fell 4% in Q3.\fCosts rose 2%."
    assert stored.sha256 == hashlib.sha256(data).hexdigest()
    assert stored.file.read() == data
    assert "report" not in stored.file.name
    assert str(file_storage) in stored.file.path
    assert no_runs == [question]


def test_an_image_is_re_encoded_without_its_exif_and_bounded(alice, offline_panel, no_runs, settings):
    settings.TEOREMA = settings.TEOREMA | {"ATTACHMENT_IMAGE_SIDE": 64}
    photo = files.jpeg_with_exif()
    assert b"SecretCam" in photo

    question = service.ask(alice, source=Source.API, text="What is it?", attachments=[Upload("p.jpg", "", photo)])

    stored = Attachment.objects.get(question=question)
    data = stored.file.read()
    assert b"SecretCam" not in data
    assert not Image.open(io.BytesIO(data)).getexif()
    assert (stored.width, stored.height, stored.media_type) == (64, 48, "image/jpeg")
    assert Image.open(stored.thumbnail).size == (64, 48)


@pytest.mark.parametrize(("fmt", "name"), [("JPEG", "p.jpg"), ("PNG", "p.png")])
def test_an_image_keeps_no_metadata_block_of_any_kind(client, alice, offline_panel, no_runs, fmt, name):
    """Issue 50: a JPEG's comment survived in the stored file, its download and every image sent."""
    photo = files.with_every_metadata_block(fmt)
    secrets = (b"SecretCam", b"SecretComment", b"SecretXMP", b"SecretAuthor")
    assert sum(secret in photo for secret in secrets) >= 3

    question = service.ask(alice, source=Source.API, text="What is it?", attachments=[Upload(name, "", photo)])

    stored = Attachment.objects.get(question=question)
    kept, thumbnail = stored.file.read(), stored.thumbnail.read()
    client.force_login(alice)
    downloaded = b"".join(client.get(stored.download_path()).streaming_content)
    sent = stored.as_attached().data  # what a run hands every wire (tests/attachments/test_wires.py)
    assert downloaded == sent == kept
    for data in (kept, thumbnail):
        assert not any(secret in data for secret in secrets)
        reopened = Image.open(io.BytesIO(data))
        assert not reopened.getexif()
        assert not set(reopened.info) & {"comment", "exif", "xmp", "icc_profile", "Author", "XML:com.adobe.xmp"}


def test_text_files_keep_their_kind_from_the_name_and_their_text(alice, offline_panel, no_runs):
    uploads = [
        Upload("notes.md", "", "# Plan\nShip in Q3 — café".encode()),
        Upload("load.csv", "text/csv", b"month,load\njan,3\n"),
        Upload("main.py", "", b"print('hi')\n"),
        Upload("memo.docx", "", files.docx(["Decision: keep the monolith.", "Owner: Ana"])),
    ]

    question = service.ask(alice, source=Source.API, text="Read them", attachments=uploads)

    stored = list(Attachment.objects.filter(question=question))
    assert [(a.name, a.kind) for a in stored] == [
        ("notes.md", "markdown"),
        ("load.csv", "csv"),
        ("main.py", "code"),
        ("memo.docx", "docx"),
    ]
    assert stored[0].text == "# Plan\nShip in Q3 — café"
    assert stored[3].text == "Decision: keep the monolith.\nOwner: Ana"


@pytest.mark.parametrize(
    ("encoding", "mark"),
    [
        ("utf-16-le", b"\xff\xfe"),
        ("utf-16-be", b"\xfe\xff"),
        ("utf-32-le", b"\xff\xfe\x00\x00"),
        ("utf-8", b"\xef\xbb\xbf"),
    ],
)
def test_a_small_text_file_is_read_in_the_encoding_its_byte_order_mark_names(
    alice, offline_panel, no_runs, encoding, mark
):
    """Issue 49: a small UTF-16 file (a Windows Notepad export) reached the voices as mojibake."""
    said = "Décision : garder le monolithe — 3 répliques, coût 40 €"
    question = service.ask(
        alice, source=Source.API, text="Read it", attachments=[Upload("notes.txt", "", mark + said.encode(encoding))]
    )
    assert Attachment.objects.get(question=question).text == said
