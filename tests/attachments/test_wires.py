"""Each voice gets the question's files in the form its wire and model read them: the fake provider
records the exact part each wire received (OpenAI image_url and file, Anthropic image and document,
Gemini inline_data, an Ollama-style vision model's image_url), and a model without vision gets the
PDF's text with its pages marked and is told an image is attached that it cannot see."""

import base64

import pytest
from asgiref.sync import sync_to_async

from debates import service
from debates.attachments.check import Upload
from debates.models import Attachment, Membership, Panel, Panelist, Provider, Source, Status
from debates.roster.readiness import PanelOption
from debates.runs import execute
from tests.fakes import files, judge
from tests.fakes.answers import SYNTHESIS

pytestmark = pytest.mark.django_db(transaction=True)
CHART = files.image(40, 30)
REPORT = files.pdf(["Revenue fell 4% in Q3.", "Churn doubled in Europe."])
VOICES = {  # name: (wire, model, base_url suffix)
    "gpt": ("openai", "gpt-4o", "openai"),
    "claude": ("anthropic", "claude-sonnet-4-5", "anthropic"),
    "gemini": ("gemini", "gemini-2.5-flash", "gemini"),
    "llava": ("openai", "llava:13b", "openai"),
    "plain": ("openai", "deepseek-chat", "openai"),
}


def make_mixed_panel(server) -> Panel:
    """One voice per way of reading a file; OpenAI's own API is told apart by its reads_pdf setting."""
    members = []
    for name, (wire, model, base) in VOICES.items():
        provider = Provider.objects.create(name=f"P {name}", wire=wire, base_url=server.base_url(base), max_retries=0)
        provider.set_api_key("sk-fake-provider-key")
        provider.save()
        reads_pdf = True if name == "gpt" else None  # a fake URL is not api.openai.com: say it takes PDFs
        members.append(
            Panelist.objects.create(name=name, provider=provider, model=model, family=name, reads_pdf=reads_pdf)
        )
    moderator = Panelist.objects.create(name="mod", provider=members[-1].provider, model="model-moderator", family="m")
    panel = Panel.objects.create(name="Mixed", slug="mixed", moderator=moderator, is_default=True)
    for position, member in enumerate(members):
        Membership.objects.create(panel=panel, panelist=member, position=position)
    return panel


@pytest.fixture
async def debated(fake_provider, alice):
    fake_provider.script("model-moderator", SYNTHESIS)
    await sync_to_async(make_mixed_panel)(fake_provider)
    uploads = [Upload("chart.png", "image/png", CHART), Upload("report.pdf", "application/pdf", REPORT)]
    question = await sync_to_async(service.ask)(
        alice, source=Source.API, text="Why did revenue fall?", runs_here=True, attachments=uploads
    )
    assert await execute.execute(question.pk) == Status.DONE
    return fake_provider


def first_answer(server, model: str):
    return server.requests_for(model)[0]


def stored(name: str) -> bytes:
    return Attachment.objects.get(name=name).file.read()


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


async def test_openai_gets_an_image_url_and_a_pdf_file_part(debated):
    png = await sync_to_async(stored)("chart.png")
    assert first_answer(debated, "gpt-4o").files == [
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(png)}"}},
        {"type": "file", "file": {"filename": "report.pdf", "file_data": f"data:application/pdf;base64,{b64(REPORT)}"}},
    ]


async def test_anthropic_gets_an_image_block_and_a_document_block(debated):
    png = await sync_to_async(stored)("chart.png")
    assert first_answer(debated, "claude-sonnet-4-5").files == [
        {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(png)}},
        {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": b64(REPORT)},
            "title": "report.pdf",
            "citations": {"enabled": True},  # a claim resting on a page comes back as its source
        },
    ]


async def test_gemini_gets_both_as_inline_data(debated):
    png = await sync_to_async(stored)("chart.png")
    assert first_answer(debated, "gemini-2.5-flash").files == [
        {"inline_data": {"mime_type": "image/png", "data": b64(png)}},
        {"inline_data": {"mime_type": "application/pdf", "data": b64(REPORT)}},
    ]


async def test_a_local_vision_model_gets_the_image_and_the_pdfs_text_with_its_pages(debated):
    request = first_answer(debated, "llava:13b")
    png = await sync_to_async(stored)("chart.png")
    assert request.files == [{"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(png)}"}}]
    assert "[report.pdf p. 1]\nRevenue fell 4% in Q3." in request.prompt
    assert "[report.pdf p. 2]\nChurn doubled in Europe." in request.prompt


async def test_a_model_without_vision_reads_the_text_and_is_told_of_the_image_it_cannot_see(debated):
    request = first_answer(debated, "deepseek-chat")
    assert request.files == []
    assert "chart.png (image, 40 × 30 pixels): attached, but your model cannot see images" in request.prompt
    assert "report.pdf (PDF, 2 pages): its text follows" in request.prompt
    assert "[report.pdf p. 2]\nChurn doubled in Europe." in request.prompt


async def test_every_call_that_shows_the_question_carries_the_files(debated):
    for model in ("gpt-4o", "claude-sonnet-4-5", "gemini-2.5-flash"):
        calls = debated.requests_for(model)
        assert len(calls) >= 2  # the blind answer and the debate
        assert all(len(call.files) == 2 for call in calls), model
    assert all("report.pdf" in r.prompt for r in debated.requests_for("model-moderator"))


async def test_the_ask_pages_estimate_counts_every_call_that_carried_the_files_and_who_got_them_how(debated):
    """Issue 50: the estimate counted 7 calls of 9 (the judge's carry the files too) and named nobody."""
    rates = (await sync_to_async(lambda: PanelOption.of(Panel.objects.get(slug="mixed")))()).file_rates
    carried = [r for r in debated.requests if "report.pdf" in r.prompt]
    assert any(judge.is_judge(r) for r in carried)
    assert rates["calls"] == len(carried)
    assert rates["unseen"] == ["plain", "mod"]  # deepseek-chat; the moderator's model, on the same provider
    assert rates["pdf_as_text"] == ["llava", "plain", "mod"]
