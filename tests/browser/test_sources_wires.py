"""Each search wire's real-shaped reply puts each source on its own claim, in a real browser: a panel
of five voices, one on each provider that searches (OpenAI's search model writing a link after each
sentence, OpenRouter's domain-named links, Perplexity's "[n]" markers naming two of its three
results, Anthropic's cited blocks after a search, Gemini's byte offsets after accents and emoji).
On the page each card's footnote supports the sentence its page backs, and each claim of the ledger
links the page that backs it, never the page of the claim before. Screenshot: /tmp/shots/sources-wires-*.png."""

import subprocess
import sys

import pytest

from tests.browser import test_elsewhere as elsewhere
from tests.browser.conftest import ROOT
from tests.browser.test_elsewhere import VIEWPORTS
from tests.browser.test_live_viewer import ask, wait_for_the_end
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import FakeProviderServer, Script
from tests.fakes.wire import Cite

pytestmark = pytest.mark.browser
QUESTION = "How warm does water boil at sea level, and on Everest?"
CLAIMS = (
    "\n\nANSWER: 100 °C at sea level, about 70 °C on Everest\nCLAIMS:\n"
    "1. [fact] {first} | confidence: 95% | falsified if: a calibrated thermometer reads otherwise\n"
    "2. [fact] {second} | confidence: 85% | falsified if: a summit measurement reads above 75 °C\n"
)
DEBATE = "The others agree with me; nothing to correct.\n\nCHANGE: none | no new evidence\nANSWER: {answer}"


def page(site: str, topic: str) -> str:
    return f"https://{site}/{topic}"


# Per wire: (provider row, model, its answer's prose as that provider's model writes it, the two
# claims, the two pages that back them in order, and a page only looked up).
WIRES = {
    "openai": (
        {"preset": "openai"},
        "gpt-4o-search-preview",
        "Water boils at 100 °C at sea level. ([physics.example](https://physics.example/boiling?utm_source=openai)) "
        "On the summit of Everest it boils at about 70 °C "
        "([alpine.example](https://alpine.example/everest?utm_source=openai)). The pressure decides it.",
    ),
    "openrouter": (
        {"preset": "openrouter"},
        "mistralai/mistral-large",
        "Water boils at 100 °C at sea level [physics.example](https://physics.example/boiling). "
        "On the summit of Everest it boils at about 70 °C. [alpine.example](https://alpine.example/everest) "
        "The pressure decides it.",
    ),
    "perplexity": (
        {"preset": "perplexity"},
        "sonar",
        "Water boils at 100 °C at sea level.[2] On the summit of Everest it boils at about 70 °C.[3] "
        "The pressure decides it.",
    ),
    "anthropic": (
        {"wire": "anthropic"},
        "claude-sonnet-5",
        "Water boils at 100 °C at sea level. On the summit of Everest it boils at about 70 °C. "
        "The pressure decides it.",
    ),
    "gemini": (
        {"wire": "gemini"},
        "gemini-2.5-flash",
        "Çà et là, l'altitude change tout 🌊. Water boils at 100 °C at sea level. "
        "🏔️ On the summit of Everest it boils at about 70 °C. The pressure decides it.",
    ),
}
FIRST, SECOND = "Water boils at 100 °C at sea level", "On the summit of Everest it boils at about 70 °C"
SEA = Cite(page("physics.example", "boiling"), "Boiling point", "100 °C at one atmosphere", f"{FIRST}.")
SUMMIT = Cite(page("alpine.example", "everest"), "Cooking on Everest", "about 70 °C on the summit", f"{SECOND}.")
TABLES = Cite(page("tables.example", "pressure"), "Pressure tables")  # looked up, cited nowhere
# Perplexity's markers count its search results: the tables first, so "[2]" and "[3]" name the others.
SOURCES = {wire: (TABLES, SEA, SUMMIT) if wire == "perplexity" else (SEA, SUMMIT, TABLES) for wire in WIRES}
ROSTER = """
from debates.models import Membership, Panel, Panelist, Provider
panel = Panel.objects.get(slug="house")
Membership.objects.filter(panel=panel).delete()
for position, (wire, (row, model)) in enumerate({rows!r}.items()):
    fields = {{"wire": "openai", "base_url": {base!r}[row.get("wire", "openai")]}} | row
    provider = Provider.objects.create(name=f"Fake {{wire}}", max_retries=0, **fields)
    provider.set_api_key("sk-fake-Tq7Lw2Vn9Rx4Kc8Mz3")
    provider.save()
    voice = Panelist.objects.create(name=f"Voice {{wire}}", provider=provider, model=model, family=wire, search=True)
    Membership.objects.create(panel=panel, panelist=voice, position=position)
"""


@pytest.fixture(scope="module")
def five_wires(app_url, app_env, provider_server: FakeProviderServer) -> str:
    base = {wire: provider_server.base_url(wire) for wire in ("openai", "anthropic", "gemini")}
    rows = {wire: (row, model) for wire, (row, model, _) in WIRES.items()}
    code = ROSTER.format(rows=rows, base=base)
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "shell", "-c", code], cwd=ROOT, env=app_env, check=True)
    return app_url


def script(server: FakeProviderServer) -> None:
    server.reset()
    for wire, (_row, model, prose) in WIRES.items():
        blind = prose + CLAIMS.format(first=FIRST, second=SECOND)
        answer = "100 °C at sea level, about 70 °C on Everest"

        def said(request, blind=blind, answer=answer) -> str:
            return blind if "on your own" in request.prompt else DEBATE.format(answer=answer)

        server.script(model, Script(answer=said, sources=SOURCES[wire], tokens_per_second=60))
    server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=200))


def test_each_search_wires_reply_puts_each_source_on_its_own_claim(provider_server, five_wires, signed_in):
    script(provider_server)
    browser = signed_in("alice")
    browser.set_viewport_size(VIEWPORTS["laptop"])
    browser.goto("/")
    assert "5 voices may search the web" in browser.inner_text("form.ask")
    ask(browser, QUESTION)
    wait_for_the_end(browser)
    assert browser.console_errors == []
    browser.click("[data-toast-close]")

    blind = browser.locator(".round.kind-answer")
    blind.locator("details.fold").evaluate_all("folds => folds.forEach(fold => { fold.open = true; })")
    cards = blind.locator(".card", has=browser.locator(".footnotes"))
    assert cards.count() == len(WIRES)  # every wire's voice cites
    for index in range(cards.count()):
        notes = cards.nth(index).locator(".footnotes li")
        shown = {
            notes.nth(i).locator("a").get_attribute("href"): " ".join(notes.nth(i).inner_text().split())
            for i in range(notes.count())
        }
        assert {url.split("?")[0] for url in shown} == {SEA.url, SUMMIT.url}  # OpenAI's carry ?utm_source=openai
        sea = next(text for url, text in shown.items() if url.startswith(SEA.url))
        summit = next(text for url, text in shown.items() if url.startswith(SUMMIT.url))
        sea, summit = sea.split("supports “", 1)[1], summit.split("supports “", 1)[1]  # the sentence each backs
        assert FIRST in sea, sea
        assert SECOND not in sea, sea
        assert SECOND in summit, summit
        assert FIRST not in summit, summit
        assert TABLES.url not in shown  # looked up, never a footnote
    elsewhere.shoot(browser, "wires-cards", part=blind, prefix="sources")

    browser.click("#ledger details.claims > summary")
    rows = browser.locator("#ledger tr.claim")
    assert rows.count() == 2 * len(WIRES)
    for index in range(rows.count()):
        row = rows.nth(index)
        linked = [a.get_attribute("href") or "" for a in row.locator(".claim-sources a").all()]
        backing = SEA.url if FIRST in row.inner_text() else SUMMIT.url
        assert [url.split("?")[0] for url in linked] == [backing], (row.inner_text(), linked)
    assert "10 of 10 sourced" in browser.inner_text("#ledger details.claims > summary")
    elsewhere.shoot(browser, "wires-ledger", part=browser.locator("#ledger"), prefix="sources")
