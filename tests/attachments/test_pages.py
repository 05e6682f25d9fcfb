"""The ask page takes files beside the question and says its limits before sending; the question page
lists the files the panel read, with thumbnails and who read each how; the re-ask keeps them."""

from django.core.files.uploadedfile import SimpleUploadedFile

from debates import service
from debates.attachments.check import Upload
from debates.models import Attachment, Question, Source
from tests.attachments.test_ways_in import multipart
from tests.fakes import files


def test_the_ask_page_shows_the_picker_and_the_limits(client, alice, offline_panel):
    client.force_login(alice)
    page = client.get("/").content.decode()
    assert 'enctype="multipart/form-data"' in page
    assert 'name="attachments" multiple' in page
    assert "Up to 5 files, 20.0\xa0MB each and 50.0\xa0MB in all" in page


def test_a_file_posted_with_the_question_is_stored_with_it(client, alice, offline_panel, no_runs):
    client.force_login(alice)
    chart = SimpleUploadedFile("chart.png", files.image(), content_type="image/png")
    response = client.post("/", {"text": "What does this chart show?", "panel": "offline", "attachments": [chart]})
    assert response.status_code == 302
    [question] = no_runs
    assert [a.name for a in question.attachments.all()] == ["chart.png"]


def test_a_refused_file_is_said_on_the_form_and_nothing_is_asked(client, alice, offline_panel, no_runs):
    client.force_login(alice)
    fake = SimpleUploadedFile("report.pdf", files.zip_archive(), content_type="application/pdf")
    response = client.post("/", {"text": "Summarise", "panel": "offline", "attachments": [fake]})
    assert response.status_code == 400
    assert "report.pdf is a ZIP archive: archives are not accepted" in response.content.decode()
    assert no_runs == []
    assert not Question.objects.exists()


def test_the_question_page_lists_each_file_with_its_thumbnail_and_download(client, alice, offline_panel, no_runs):
    uploads = [Upload("chart.png", "", files.image()), Upload("report.pdf", "", files.pdf(["a", "b"]))]
    question = service.ask(alice, source=Source.PAGE, text="Why?", attachments=uploads)
    chart, report = Attachment.objects.filter(question=question)
    client.force_login(alice)
    page = client.get(question.get_absolute_url()).content.decode()
    assert f'src="/q/{question.pk}/files/{chart.pk}/thumbnail"' in page
    assert f'href="/q/{question.pk}/files/{report.pk}/report.pdf" download' in page
    assert "PDF · 2 pages" in page
    thumbnail = client.get(f"/q/{question.pk}/files/{chart.pk}/thumbnail")
    assert (thumbnail.status_code, thumbnail["Content-Type"]) == (200, "image/png")
    assert "attachment" not in thumbnail.get("Content-Disposition", "")


def test_a_follow_up_page_lists_the_files_of_the_question_it_follows(client, alice, offline_panel, no_runs):
    first = service.ask(alice, source=Source.PAGE, text="Why?", attachments=[Upload("r.pdf", "", files.pdf(["a"]))])
    Question.objects.filter(pk=first.pk).update(status="done", verdict="Costs.")
    later = service.follow_up(alice, first.pk, source=Source.PAGE, text="And in Europe?")
    client.force_login(alice)
    page = client.get(later.get_absolute_url()).content.decode()
    assert "r.pdf" in page
    assert "from the question this one follows up" in page


def test_history_the_exports_and_the_admin_list_the_files(client, alice, admin_user, offline_panel, no_runs):
    question = service.ask(alice, source=Source.PAGE, text="Why?", attachments=[Upload("r.pdf", "", files.pdf(["a"]))])
    row = Attachment.objects.get(question=question)
    client.force_login(alice)
    assert "with r.pdf" in client.get("/history/").content.decode()
    markdown = client.get(f"/q/{question.pk}/export.md").content.decode()
    assert f"- [r.pdf](http://testserver/q/{question.pk}/files/{row.pk}/r.pdf) (pdf, 1 pages" in markdown
    exported = client.get(f"/q/{question.pk}/export.json").json()
    assert [(f["name"], f["sha256"]) for f in exported["attachments"]] == [("r.pdf", row.sha256)]
    client.force_login(admin_user)
    admin = client.get(f"/admin/debates/question/{question.pk}/change/").content.decode()
    assert f'href="/q/{question.pk}/files/{row.pk}/r.pdf" download>r.pdf</a>' in admin


def test_the_panels_say_how_many_voices_see_images_and_warn_when_none_does(alice, offline_panel):
    [entry] = service.panels()
    assert (entry["sees_images"], entry["reads_pdf"]) == (0, 0)
    member = offline_panel.roster()[0]
    member.model = "gpt-4o"
    member.save()
    [entry] = service.panels()
    assert entry["sees_images"] == 1


def test_a_file_name_with_a_folder_is_refused_on_the_form_as_sent(client, alice, offline_panel, no_runs):
    client.force_login(alice)
    body, content_type = multipart(
        ("text", "", b"Summarise"), ("panel", "", b"offline"), ("attachments", "../x.txt", b"a")
    )
    response = client.post("/", body, content_type=content_type)
    assert response.status_code == 400
    assert "“../x.txt” is a path, not a file name" in response.content.decode()
    assert not Question.objects.exists()
