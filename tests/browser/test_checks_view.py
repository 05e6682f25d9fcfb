"""Numbers checked between rounds in a real browser: asked on the page, the voices' false
computations are marked ✗ in the ledger while the moderator is still writing, a verdict resting on
one is flagged under it, and the page reads on a laptop and on a phone. Screenshots go to
/tmp/shots (checks-*.png) for a person to look at."""

import pytest

from tests.browser.test_elsewhere import NO_SIDEWAYS_SCROLL, SHOTS, VIEWPORTS
from tests.browser.test_live_viewer import ask, until, wait_for_the_end
from tests.engine.test_checks import CONVERSION, RIGHT, WRONG, voice
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
RESTS_ON_A_REFUTED_CLAIM = (
    "## Consensus\nCache the pages: 12 % of 250 is 40 cold pages.\n\n## Disagreements\nNone lasting.\n\n"
    "## Verdict\nCache the pages.\n\nVERDICT: Cache the pages.\nCONFIDENCE: 0.8\n"
)


def script(server: FakeProviderServer) -> None:
    server.reset()
    for family, answer in zip(("alpha", "beta", "gamma"), (WRONG, CONVERSION, RIGHT), strict=True):
        server.script(f"model-{family}", voice(answer))
    server.script("model-moderator", Script(answer=RESTS_ON_A_REFUTED_CLAIM, first_token_delay=8))


def test_checked_claims_are_marked_live_and_a_verdict_on_a_refuted_one_is_flagged(provider_server, signed_in):
    script(provider_server)
    page = signed_in("alice")
    page.set_viewport_size(VIEWPORTS["laptop"])
    ask(page, "How much memory do the pages need?")
    # After the blind round, before the moderator's first word: the checks are in the ledger.
    until(page, "() => document.querySelectorAll('#ledger .checked.refuted').length >= 2")
    assert page.locator("#outcome").count() == 0
    listed = page.inner_text("#ledger .check-list")
    assert "2^10 = 1000 does not hold: 2^10 = 1024, not 1000" in listed
    assert "12 % of 250 is 40 does not hold: 12% of 250 = 30, not 40" in listed
    assert "1 day = 84,600 seconds does not hold: 1 day = 86400 seconds, not 84,600 seconds" in listed
    assert "“2^10 = 1024” holds" not in listed  # the list quotes with <q>, not with quote characters
    assert page.locator("#ledger .check.refuted").count() == 3
    assert page.locator(".kind-check .card").count() == 1  # the step's own card, labelled SymPy
    wait_for_the_end(page)

    flag = page.inner_text("#verdict .refuted-support")
    assert "rests on" in flag
    assert "“12 % of 250 is 40”" in flag
    page.click("#ledger details.claims > summary")  # folded to a line once the run is over
    SHOTS.mkdir(parents=True, exist_ok=True)
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        page.wait_for_timeout(150)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), size
        page.locator("#ledger").screenshot(path=str(SHOTS / f"checks-ledger-{size}.png"))
        page.locator("#verdict").screenshot(path=str(SHOTS / f"checks-verdict-{size}.png"))
        page.locator(".kind-check").first.screenshot(path=str(SHOTS / f"checks-round-{size}.png"))
    assert page.evaluate("window.__csp") == []
