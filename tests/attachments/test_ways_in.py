"""The JSON API (multipart and base64 in JSON) and ``manage.py ask --attach`` hand their files to the
one service; the files are downloaded only by those who may read the question, as attachments."""

import base64
import json

import pytest
from django.core.management import CommandError, call_command

from debates import service
from debates.attachments.check import Upload
from debates.conversations import sharing
from debates.models import Attachment, Question, Source, Visibility
from tests.fakes import files
from tests.viewer.test_api import bearer

REPORT = files.pdf(["Revenue fell 4% in Q3.", "Churn doubled."])


def test_the_api_takes_files_as_multipart_parts(client, alice, offline_panel, no_runs):
    form = {"text": "Why did revenue fall?", "criticality": "low", "options": ["Churn", "Pricing"]}
    report = ("report.pdf", REPORT, "application/pdf")
    response = client.post("/api/questions", form | {"attachments": [_file(*report)]}, **bearer(alice))

    assert response.status_code == 201, response.json()
    question = Question.objects.get(pk=response.json()["id"])
    assert (question.source, question.options) == (Source.API, ["Churn", "Pricing"])
    assert [(a.name, a.pages) for a in question.attachments.all()] == [("report.pdf", 2)]


def test_the_api_takes_files_as_base64_in_json(client, alice, offline_panel, no_runs):
    body = {
        "text": "What does the chart show?",
        "attachments": [
            {"name": "chart.png", "media_type": "image/png", "data": base64.b64encode(files.image()).decode()}
        ],
    }
    response = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))

    assert response.status_code == 201
    [stored] = Question.objects.get(pk=response.json()["id"]).attachments.all()
    assert (stored.name, stored.kind, stored.width) == ("chart.png", "image", 64)
    detail = client.get(f"/api/questions/{stored.question_id}", **bearer(alice)).json()
    assert detail["attachments"][0] | {"sha256": "…", "url": "…"} == {
        "name": "chart.png",
        "kind": "image",
        "media_type": "image/png",
        "size": stored.size,
        "sha256": "…",
        "pages": None,
        "width": 64,
        "height": 48,
        "question": stored.question_id,
        "url": "…",
        "voices": {},
    }


@pytest.mark.parametrize(
    ("attachments", "words"),
    [
        ("report.pdf", "Must be a list of files"),
        ([{"name": "a.txt", "data": "%%%"}], "a.txt: its data is not base64."),
        ([{"name": "a.txt"}], 'File 1: each file is an object {"name": "report.pdf"'),
        ([{"name": "a.zip.pdf", "data": base64.b64encode(files.zip_archive()).decode()}], "is a ZIP archive"),
    ],
)
def test_bad_files_in_json_are_refused_with_the_field(client, alice, offline_panel, no_runs, attachments, words):
    body = {"text": "Read it", "attachments": attachments}
    response = client.post("/api/questions", json.dumps(body), content_type="application/json", **bearer(alice))

    assert response.status_code == 400
    assert words in " ".join(response.json()["fields"]["attachments"])
    assert no_runs == []
    assert not Question.objects.exists()


def test_a_file_is_downloaded_as_an_attachment_by_its_asker_and_a_404_for_anyone_else(
    client, alice, bob, offline_panel, no_runs
):
    question = service.ask(alice, source=Source.API, text="Why?", attachments=[Upload("q3 report.pdf", "", REPORT)])
    row = Attachment.objects.get(question=question)

    client.force_login(alice)
    response = client.get(row.download_path())
    assert response.status_code == 200
    assert response["Content-Disposition"] == 'attachment; filename="q3 report.pdf"'
    assert response["X-Content-Type-Options"] == "nosniff"
    assert b"".join(response.streaming_content) == REPORT

    client.force_login(bob)
    assert client.get(row.download_path()).status_code == 404
    client.logout()
    assert client.get(row.download_path()).status_code in (302, 404)  # the sign-in page, or nothing


def test_a_shared_link_downloads_its_questions_files_and_no_others(client, alice, offline_panel, no_runs):
    question = service.ask(alice, source=Source.API, text="Why?", attachments=[Upload("r.pdf", "", REPORT)])
    other = service.ask(alice, source=Source.API, text="And?", attachments=[Upload("s.pdf", "", REPORT)])
    sharing.share(question, visibility=Visibility.LINK, hide_cost=False, new_link=True)
    token = Question.objects.get(pk=question.pk).share_token
    mine, theirs = Attachment.objects.get(question=question), Attachment.objects.get(question=other)

    assert client.get(f"/s/{token}/files/{mine.pk}/r.pdf").status_code == 200
    assert client.get(f"/s/{token}/files/{theirs.pk}/s.pdf").status_code == 404


@pytest.mark.django_db(transaction=True)
def test_the_cli_attaches_files_by_path(alice, offline_panel, tmp_path):
    report = tmp_path / "report.pdf"
    report.write_bytes(REPORT)
    with pytest.raises(SystemExit):  # the offline panel's voices do not answer: the run fails, its files kept
        call_command("ask", "Why did revenue fall?", "--attach", str(report), "--user", "alice")
    assert [(a.name, a.kind) for a in Attachment.objects.all()] == [("report.pdf", "pdf")]


def test_the_cli_names_a_file_it_cannot_read(alice, offline_panel, tmp_path):
    with pytest.raises(CommandError, match=r"Cannot attach .*missing\.pdf: No such file or directory"):
        call_command("ask", "Why?", "--attach", str(tmp_path / "missing.pdf"))
    assert not Question.objects.exists()


def _file(name: str, data: bytes, media_type: str):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return SimpleUploadedFile(name, data, content_type=media_type)


def multipart(*parts: tuple[str, str | None, bytes]) -> tuple[bytes, str]:
    """A multipart body written by hand, each part (field, file name or None for a text field,
    content): Django's test client cuts a file's name to its last segment itself, as a browser does."""
    boundary = "teorema-boundary"
    body = b""
    for field, name, content in parts:
        filename = "" if name is None else f'; filename="{name}"'
        body += f'--{boundary}\r\nContent-Disposition: form-data; name="{field}"{filename}\r\n\r\n'.encode()
        body += content + b"\r\n"
    return body + f"--{boundary}--\r\n".encode(), f"multipart/form-data; boundary={boundary}"


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("../x.txt", "“../x.txt” is a path, not a file name"),
        ("..\\\\notes.md", "is a path, not a file name"),
        ("..", "“..” is a path, not a file name"),
        ("..&#47;x.txt", "“../x.txt” is a path, not a file name"),  # Django unescapes a name first
        ("notes\x1b.md", "“notes\\x1b.md” has control characters in its name"),
    ],
)
def test_a_multipart_name_is_checked_as_sent_not_as_django_cuts_it(client, alice, offline_panel, no_runs, name, words):
    """Django's parser keeps a part's last name segment and its printable characters (``../x.txt``
    would be taken as ``x.txt``, ``..`` dropped without a word); every way in refuses such a name."""
    body, content_type = multipart(("text", None, b"What is in it?"), ("attachments", name, b"plain notes"))
    response = client.post("/api/questions", body, content_type=content_type, **bearer(alice))

    assert response.status_code == 400
    assert words in " ".join(response.json()["fields"]["attachments"])
    assert no_runs == []
    assert not Question.objects.exists()
    assert not Attachment.objects.exists()


def test_a_multipart_file_keeps_the_name_it_was_sent_under(client, alice, offline_panel, no_runs):
    body, content_type = multipart(
        ("attachments", "q3&amp;q4 report\u00a0final.txt", b"plain notes"),
        ("text", None, b"What is in it?"),
        ("attachments", "", b""),  # an empty file field (a browser sends filename=""): no file, as before
        ("attachments", "notes.md", b"# Notes"),
    )
    response = client.post("/api/questions", body, content_type=content_type, **bearer(alice))

    assert response.status_code == 201, response.json()
    stored = Question.objects.get(pk=response.json()["id"]).attachments.order_by("pk")
    assert [a.name for a in stored] == ["q3&q4 report\u00a0final.txt", "notes.md"]


def test_a_text_part_named_attachments_is_refused_in_words(client, alice, offline_panel, no_runs):
    body, content_type = multipart(("text", None, b"What is in it?"), ("attachments", None, b"notes.txt"))
    response = client.post("/api/questions", body, content_type=content_type, **bearer(alice))

    assert response.status_code == 400
    assert response.json()["fields"]["attachments"] == [
        "attachments: each file is a part with a filename, not a text field."
    ]
