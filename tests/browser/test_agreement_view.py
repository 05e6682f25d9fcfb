"""Same answer, other words, in a real browser: a panel agreeing in its own words and one split in
shared words, at 1400 and 390 px, light and dark. The stances, the emerging answer and the
moderator's synthesis must tell one story; where the moderator reads a voice otherwise the page
shows both. Screenshots go to /tmp/shots (agreement-*.png) for a person to look at."""

import pytest

from tests.browser.test_elsewhere import SHOTS, VIEWPORTS, shoot
from tests.browser.test_live_viewer import ask, wait_for_the_end
from tests.fakes import judge
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
QUESTION = "Should we split our monolith into microservices this year?"
REASONS = (
    "The team is six engineers and the pain we measured is a 40-minute CI and blocking jobs, "
    "not coupling between deployables."
)


def answer(line: str) -> str:
    return (
        f"{REASONS}\n\nANSWER: {line}\nCLAIMS:\n"
        "1. [fact] The CI takes 40 minutes | confidence: 80% | falsified if: the CI logs show under 15 minutes\n"
        "2. [inference] Splitting multiplies the deploy surface | confidence: 70% | falsified if: deploys stay under "
        "5 a week after the split\n"
    )


def synthesis(stances: str) -> str:
    return (
        "## Consensus\nThe panel would not split the monolith this year: the measured pain is CI time.\n\n"
        "## Disagreements\nWhen to revisit the split, and whether billing is the first candidate.\n\n"
        "## Verdict\nKeep the modular monolith this year; fix CI and add a job worker first.\n\n"
        "VERDICT: Keep the modular monolith this year; fix CI and add a job worker first.\n"
        f"CONFIDENCE: 0.8\nSTANCES: {stances}\n"
    )


def script(server: FakeProviderServer, lines: dict[str, str], meaning: dict[str, str], stances: str) -> None:
    server.reset()
    for model, line in lines.items():
        reply = lambda r, line=line: answer(line) if "on your own" in r.prompt else f"I keep my answer.\nANSWER: {line}"  # noqa: E731
        server.script(model, Script(answer=reply, tokens_per_second=40))
    server.script("model-moderator", Script(answer=synthesis(stances), tokens_per_second=80))
    server.script_judge(judge.grouping(meaning))


def shoot_parts(page, name: str) -> None:
    """The parts this test is about, whole, at both sizes and in both schemes: the panel's standing
    and the judge's card (folded on a finished page: opened first)."""
    page.locator(".round.kind-answer details.fold").last.evaluate("fold => fold.open = true")
    for size, viewport in VIEWPORTS.items():
        page.set_viewport_size(viewport)
        for scheme in ("light", "dark"):
            page.emulate_media(color_scheme=scheme)
            page.wait_for_timeout(150)
            page.locator("#ledger .stances").screenshot(path=str(SHOTS / f"{name}-stances-{size}-{scheme}.png"))
            judge_card = page.locator(".round.kind-answer .card-body.judgement")
            judge_card.screenshot(path=str(SHOTS / f"{name}-judge-{size}-{scheme}.png"))
            page.locator("#rounds").screenshot(path=str(SHOTS / f"{name}-rounds-{size}-{scheme}.png"))
    page.emulate_media(color_scheme="light")


def test_a_panel_agreeing_in_its_own_words_reads_as_one_answer(provider_server, signed_in):
    lines = {
        "model-alpha": "No - stay a modular monolith this year",
        "model-beta": "No: keep the modular monolith",
        "model-gamma": "No - postpone; fix CI and add a worker first",
    }
    script(provider_server, lines, {line: "no" for line in lines.values()}, "A agrees; B agrees; C agrees")
    page = signed_in("alice")
    ask(page, QUESTION)
    wait_for_the_end(page)
    stances = page.inner_text("#ledger .stance-list")
    assert stances.count("agrees") == 3
    assert "not known" not in stances
    emerging = page.inner_text("#ledger .emerging")
    assert any(line in emerging for line in lines.values())  # the judge names the group in one voice's words
    assert "Grouped by meaning by the panel's judge" in page.inner_text("#ledger")
    assert "split evenly" not in page.inner_text("main")
    shoot(page, "agreement-paraphrased")
    shoot_parts(page, "agreement-paraphrased")


def test_a_split_in_shared_words_stays_a_split_and_the_moderators_other_reading_shows(provider_server, signed_in):
    lines = {
        "model-alpha": "Yes, extract billing as a service now",
        "model-beta": "No - keep the modular monolith",
        "model-gamma": "No: stay a monolith this year",
    }
    meaning = {lines["model-alpha"]: "yes", lines["model-beta"]: "no", lines["model-gamma"]: "no"}
    script(provider_server, lines, meaning, "A agrees; B agrees; C agrees")
    page = signed_in("alice")
    ask(page, QUESTION)
    wait_for_the_end(page)
    stances = page.inner_text("#ledger .stance-list")
    assert stances.count("disagrees") == 1
    assert "the moderator reads it otherwise: agrees" in stances
    emerging = page.inner_text("#ledger .emerging")
    assert lines["model-beta"] in emerging or lines["model-gamma"] in emerging
    shoot(page, "agreement-split")
    shoot_parts(page, "agreement-split")
