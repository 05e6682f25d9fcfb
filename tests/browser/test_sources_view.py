"""Sources in a real browser: a card numbers what its voice cites while it still streams, a voice
that searched and cites nothing is unsourced, and the ledger says which claims rest on a source, at
1400 and 390 px, light and dark. Screenshots go to /tmp/shots (sources-*.png) for a person to look at."""

import subprocess
import sys

import pytest

from tests.browser import test_elsewhere as elsewhere
from tests.browser.conftest import ROOT
from tests.browser.test_elsewhere import VIEWPORTS
from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.fakes.wire import Cite

pytestmark = pytest.mark.browser
QUESTION = "At what temperature does water boil at sea level, and on Everest?"
BOILING = Cite(
    "https://en.example.org/wiki/Boiling_point",
    "Boiling point — Example encyclopedia",
    "At sea level, water boils at 100 °C (212 °F).",
    "Water boils at 100 °C at sea level.",
)
EVEREST = Cite(
    "https://www.example.com/everest-cooking",
    "Cooking on Everest",
    "On the summit water boils at about 70 °C.",
    "On the summit of Everest it boils at about 70 °C.",
)
SEARCHED = Cite("https://example.net/pressure-tables", "Pressure tables")  # looked up, cited nowhere
CITING = (
    "Water boils at 100 °C at sea level. The boiling point falls as the air pressure falls, by about one "
    "degree for every 300 metres of height. On the summit of Everest it boils at about 70 °C. So a kettle "
    "reading 100 °C on a mountain is wrong, not the physics.\n\n"
    "ANSWER: 100 °C at sea level, about 70 °C on Everest\n"
    "CLAIMS:\n"
    "1. [fact] Water boils at 100 °C at sea level | confidence: 97% | falsified if: a calibrated thermometer "
    "reads otherwise in boiling water at sea level\n"
    "2. [fact] On the summit of Everest it boils at about 70 °C | confidence: 85% | falsified if: a summit "
    "measurement reads above 75 °C\n"
    "3. [inference] A kettle showing 100 °C on a mountain is miscalibrated | confidence: 70% | falsified if: "
    "it reads right in a pressure chamber at that altitude\n"
)
SILENT = (
    "It is 100 °C at sea level and lower higher up, because the pressure is lower.\n\n"
    "ANSWER: 100 °C at sea level, less on Everest\n"
    "CLAIMS:\n"
    "1. [fact] Water boils at 100 °C at sea level | confidence: 90% | falsified if: a calibrated thermometer "
    "reads otherwise at sea level\n"
)
DEBATE = "The others agree with me; nothing to correct.\n\nCHANGE: none | no new evidence\nANSWER: {answer}"
SYNTHESIS = (
    "## Consensus\nWater boils at 100 °C at sea level; lower higher up.\n\n"
    "## Disagreements\nNone.\n\n"
    "## Verdict\n100 °C at sea level, about 70 °C on Everest. The sea-level figure rests on a cited page; "
    "Panelist B's answer rests on no source.\n\n"
    "VERDICT: 100 °C at sea level, about 70 °C on Everest.\nCONFIDENCE: 0.9\n"
)
# Alpha on Anthropic's wire with its search tool, beta on Perplexity's (it searches, cites nothing),
# gamma on Perplexity's told not to search.
ROSTER = """
from debates.models import Panelist, Provider
claude = Provider.objects.create(name="Fake Claude", wire="anthropic", base_url={anthropic!r}, max_retries=0)
claude.set_api_key("sk-ant-fake-7Rw3Nc8T")
claude.save()
Panelist.objects.filter(model="model-alpha").update(provider=claude, search=True, price_search=10)
Provider.objects.filter(name="Fake house").update(preset="perplexity")
Panelist.objects.filter(model="model-beta").update(search=True, price_search=5)
"""


@pytest.fixture(scope="module")
def searching_roster(app_url, app_env, provider_server: FakeProviderServer) -> str:
    code = ROSTER.format(anthropic=provider_server.base_url("anthropic"))
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "shell", "-c", code], cwd=ROOT, env=app_env, check=True)
    return app_url


def voice(blind: str):
    """Its blind answer, then a debate reply that keeps its answer."""
    answer = blind.split("ANSWER: ", 1)[1].split("\n", 1)[0]
    return lambda request: blind if "on your own" in request.prompt else DEBATE.format(answer=answer)


def script(server: FakeProviderServer) -> None:
    server.reset()
    server.script(
        "model-alpha", Script(answer=voice(CITING), sources=(BOILING, EVEREST, SEARCHED), tokens_per_second=12)
    )
    server.script("model-beta", Script(answer=voice(SILENT), tokens_per_second=30))
    server.script("model-gamma", Script(answer=voice(SILENT), tokens_per_second=30))
    server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=80))


def shoot(part, page, name: str) -> None:
    elsewhere.shoot(page, name, part=part, prefix="sources")


def test_footnotes_stream_onto_the_card_and_the_ledger_says_what_each_claim_rests_on(
    provider_server, searching_roster, signed_in
):
    script(provider_server)
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS["laptop"])
    page.goto("/")
    assert "2 voices may search the web" in page.inner_text("form.ask")  # alpha and beta
    ask(page, QUESTION)

    # The first footnote is on the card while its voice is still writing.
    until(page, "() => document.querySelector('.card.status-streaming .card-sources .footnotes li') !== null")
    streaming = page.locator(".card.status-streaming", has=page.locator(".card-sources .footnotes"))
    assert "Boiling point — Example encyclopedia" in streaming.inner_text()
    shoot(streaming, page, "streaming-card")
    wait_for_the_end(page)
    assert page.console_errors == []
    page.click("[data-toast-close]")  # the verdict's toast would cover what the screenshots are of

    blind = page.locator(".round.kind-answer")
    blind.locator("details.fold").evaluate_all("folds => folds.forEach(fold => { fold.open = true; })")
    cited = blind.locator(".card", has=page.locator(".footnotes"))
    notes = cited.locator(".footnotes li")
    assert notes.count() == 2
    assert notes.nth(0).locator("a").get_attribute("href") == BOILING.url
    assert notes.nth(0).locator("a").get_attribute("rel") == "noopener noreferrer"
    assert "supports “Water boils at 100 °C at sea level." in notes.nth(0).inner_text()
    assert "Also looked up: 1 page it cites nowhere" in cited.inner_text()
    assert "1 search" in cited.inner_text()
    unsourced = blind.locator(".card", has=page.locator(".unsourced"))
    assert unsourced.count() == 1
    assert "it searched the web but cites no source" in unsourced.inner_text()
    shoot(unsourced, page, "unsourced-card")
    shoot(cited, page, "card")

    page.click("#ledger details.claims > summary")
    ledger = page.locator("#ledger")
    assert "5: 5 standing · 2 of 5 sourced" in ledger.locator("details.claims > summary").inner_text()
    rows = ledger.locator("tr.claim")
    sourced = [rows.nth(i).locator(".sourced").count() for i in range(rows.count())]
    assert sorted(sourced) == [0, 0, 0, 1, 1]
    assert ledger.locator(".claim-sources a").first.get_attribute("href") in (BOILING.url, EVEREST.url)
    voices = page.inner_text("#panel-run .voices")
    assert "searched the web 2×" in voices  # alpha: its answer and its debate reply
    shoot(ledger, page, "ledger")
