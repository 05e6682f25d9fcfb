"""A claim can cite an attached file by name and page ("report.pdf p. 2"): the voices are asked to,
and the claim ledger keeps the citation with the claim, on the question and in its export."""

import pytest
from asgiref.sync import sync_to_async

from debates import service
from debates.attachments.check import Upload
from debates.models import Question, Source, Status
from debates.runs import execute
from tests.fakes import files
from tests.fakes.answers import SYNTHESIS
from tests.fakes.roster import make_panel

pytestmark = pytest.mark.django_db(transaction=True)
CITED = """Revenue fell because churn doubled in Europe.

ANSWER: churn in Europe
CLAIMS:
1. [fact] Churn doubled in Europe (report.pdf p. 2) | confidence: 80% | falsified if: report.pdf p. 2 shows flat churn
2. [inference] The churn explains most of the 4% fall | confidence: 60% | falsified if: sales fell more than churn
"""


async def test_a_claim_cites_a_file_by_name_and_page_and_the_ledger_keeps_it(fake_provider, alice, client):
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", CITED)
    fake_provider.script("model-moderator", SYNTHESIS)
    await sync_to_async(make_panel)(fake_provider.base_url("openai"))
    report = files.pdf(["Revenue fell 4% in Q3.", "Churn doubled in Europe."])
    question = await sync_to_async(service.ask)(
        alice,
        source=Source.API,
        text="Why did revenue fall?",
        runs_here=True,
        attachments=[Upload("report.pdf", "application/pdf", report)],
    )
    assert await execute.execute(question.pk) == Status.DONE

    asked = fake_provider.requests_for("model-alpha")[0].prompt
    assert "cite them by name and page, as in “report.pdf p. 4”" in asked
    stored = await Question.objects.aget(pk=question.pk)
    cited = [claim for claim in stored.ledger["claims"] if "(report.pdf p. 2)" in claim["text"]]
    assert len(cited) == 3  # each voice's first claim, citation and all
    await sync_to_async(client.force_login)(alice)
    page = (await sync_to_async(client.get)(stored.get_absolute_url())).content.decode()
    assert "Churn doubled in Europe (report.pdf p. 2)" in page
