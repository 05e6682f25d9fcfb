"""Bad files are refused in words before anything is stored or any model is called, whatever the way in:
the service is the one door, so these go through it."""

from pathlib import Path

import pytest

from debates import service
from debates.attachments.check import Upload
from debates.models import Attachment, Question, Source
from debates.refusal import Kind, Refused
from tests.fakes import files

MB = 2**20

BAD = {
    "a 100 MB file": (Upload("dump.pdf", "application/pdf", b"%PDF-1.4\n" + b"0" * (100 * MB)), "100.0"),
    "a 50,000 × 50,000 PNG": (Upload("bomb.png", "image/png", files.png_claiming(50_000, 50_000)), "50,000 × 50,000"),
    "a ZIP renamed .pdf": (Upload("report.pdf", "application/pdf", files.zip_archive()), "is a ZIP archive"),
    "a PDF with JavaScript": (
        Upload("invoice.pdf", "application/pdf", files.pdf(["Pay now"], javascript="app.alert('hi')")),
        "JavaScript",
    ),
    "an SVG with a script": (Upload("chart.svg", "image/svg+xml", files.SVG_WITH_SCRIPT), "SVG"),
    "HTML renamed .txt": (Upload("notes.txt", "text/plain", files.HTML), "is HTML"),
    "HTML in UTF-16 renamed .txt": (
        Upload("notes.txt", "text/plain", b"\xff\xfe" + files.HTML.decode().encode("utf-16-le")),
        "is HTML",
    ),
    "a truncated PDF": (Upload("cut.pdf", "application/pdf", files.pdf(["one", "two"])[:-200]), "cut short"),
    "an encrypted PDF": (Upload("locked.pdf", "application/pdf", files.encrypted_pdf()), "encrypted"),
    "a name with path separators and control characters": (
        Upload("../../etc/\x1bpasswd.txt", "text/plain", b"root:x:0:0"),
        "is a path, not a file name",
    ),
}


@pytest.mark.parametrize("case", list(BAD))
def test_a_bad_file_is_refused_in_words_with_nothing_stored_and_nothing_called(
    case, alice, panel, no_runs, fake_provider, file_storage: Path
):
    upload, words = BAD[case]

    with pytest.raises(Refused) as refused:
        service.ask(alice, source=Source.API, text="What does this file say?", attachments=[upload])

    assert refused.value.kind in (Kind.INVALID, Kind.TOO_LARGE)
    assert any(words in problem for problem in refused.value.fields["attachments"]), refused.value.fields
    assert not Question.objects.exists()
    assert not Attachment.objects.exists()
    assert not list(file_storage.rglob("*.*"))
    assert no_runs == []
    assert fake_provider.requests == []


def test_too_many_files_are_refused_as_too_large(alice, offline_panel, no_runs, settings):
    settings.TEOREMA = settings.TEOREMA | {"ATTACHMENTS_MAX_FILES": 2}
    uploads = [Upload(f"n{i}.txt", "text/plain", b"note") for i in range(3)]

    with pytest.raises(Refused) as refused:
        service.ask(alice, source=Source.API, text="Three notes?", attachments=uploads)

    assert refused.value.kind == Kind.TOO_LARGE
    assert refused.value.fields == {"attachments": ["3 files were attached; at most 2 are accepted."]}


def test_files_that_together_pass_the_questions_limit_are_refused(alice, offline_panel, no_runs, settings):
    settings.TEOREMA = settings.TEOREMA | {"ATTACHMENT_MAX_BYTES": 4 * MB, "ATTACHMENTS_MAX_BYTES": 6 * MB}
    uploads = [Upload(f"log{i}.txt", "text/plain", b"x" * (3 * MB)) for i in range(3)]

    with pytest.raises(Refused) as refused:
        service.ask(alice, source=Source.API, text="Read these logs", attachments=uploads)

    assert refused.value.fields == {
        "attachments": ["The files come to 9.0\xa0MB; a question's may be at most 6.0\xa0MB together."]
    }


def test_a_pdf_with_more_pages_than_allowed_is_refused(alice, offline_panel, no_runs, settings):
    settings.TEOREMA = settings.TEOREMA | {"ATTACHMENT_MAX_PAGES": 3}
    upload = Upload("long.pdf", "application/pdf", files.pdf([f"page {n}" for n in range(1, 6)]))

    with pytest.raises(Refused) as refused:
        service.ask(alice, source=Source.API, text="Summarise", attachments=[upload])

    assert refused.value.fields == {
        "attachments": ["long.pdf was not accepted: it has 5 pages; at most 3 are accepted."]
    }


def test_content_that_contradicts_its_declared_kind_is_refused(alice, offline_panel, no_runs):
    upload = Upload("chart.png", "image/png", files.pdf(["not a chart"]))

    with pytest.raises(Refused) as refused:
        service.ask(alice, source=Source.API, text="What does the chart show?", attachments=[upload])

    assert refused.value.fields == {"attachments": ["chart.png is not an image: its content is a PDF."]}


def test_every_bad_file_of_a_question_is_named_at_once(alice, offline_panel, no_runs):
    uploads = [
        Upload("a.txt", "text/plain", files.HTML),
        Upload("ok.md", "text/markdown", b"# fine"),
        Upload("b.pdf", "application/pdf", files.zip_archive()),
    ]

    with pytest.raises(Refused) as refused:
        service.ask(alice, source=Source.API, text="Read them", attachments=uploads)

    problems = refused.value.fields["attachments"]
    assert refused.value.message == "The attachments were not accepted."
    assert [p.split(" ")[0] for p in problems] == ["a.txt", "b.pdf"]
