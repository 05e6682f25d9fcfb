"""The Models page in a real browser, end to end: two debates on the fake providers, their verdicts
judged on the question page, then the track record on a laptop and on a phone, without scrolling
sideways, in light and dark."""

import re

import pytest

from tests.browser.test_live_viewer import ask, wait_for_the_end
from tests.engine.test_ledger import REPLICAS_A, REPLICAS_B, SHARD_C
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


def judge(page, question: int, outcome: str, note: str = "") -> None:
    page.goto(f"/q/{question}/")
    page.check(f"#verdict-outcome input[value={outcome}]")
    page.fill("#outcome-note", note)
    page.click("#verdict-outcome button[type=submit]")
    page.wait_for_selector(f"#verdict-outcome .badge.outcome-{outcome}")


def row(page, name: str) -> str:
    return page.locator("table.track tbody tr", has_text=name).inner_text()


def test_judged_debates_make_a_track_record_that_reads_on_a_laptop_and_a_phone(provider_server, signed_in):
    provider_server.reset()
    for family, text in (("alpha", REPLICAS_A), ("beta", REPLICAS_B), ("gamma", SHARD_C)):
        provider_server.script(f"model-{family}", text)  # Gamma dissents from Alpha and Beta, every time
    provider_server.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=400))
    page = signed_in("alice")
    page.set_viewport_size(LAPTOP)
    questions = []
    for text in (
        "Read replicas or shard the database for reporting?",
        "Read replicas or shard the database for audits?",
    ):
        page.goto("/")
        questions.append(ask(page, text))
        wait_for_the_end(page)
    judge(page, questions[0], "right")
    judge(page, questions[1], "wrong", "The audit log outgrew one node in a month.")
    assert "The audit log outgrew one node" in page.inner_text("#verdict-outcome")

    page.goto("/models/")
    assert page.locator("svg.chart").count() == 3
    assert "2 finished questions" in page.inner_text(".lede")
    assert "2 with an outcome" in page.inner_text(".lede")
    assert re.search(r"3 voices\s+independence not measured yet", page.inner_text(".panel-card"))
    gamma = row(page, "Gamma house")
    assert "0%" in gamma
    assert "0 of 2" in gamma
    assert "right 1 of 2 judged" in gamma  # its lone dissent from the wrong verdict was right
    assert "100%" in row(page, "Alpha house")
    assert page.locator("#calibration circle.point").count() >= 1
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    assert page.locator("table.track thead th >> nth=1").is_visible()  # a real table on a laptop

    for scheme in ("light", "dark"):
        page.emulate_media(color_scheme=scheme)
        page.set_viewport_size(PHONE)
        page.reload()
        assert page.evaluate(NO_SIDEWAYS_SCROLL)
        assert page.locator("table.track thead th >> nth=1").is_hidden()  # each model a card of labelled figures
        for chart in page.locator("svg.chart").all():
            box = chart.bounding_box()
            assert box is not None
            assert box["width"] <= PHONE["width"]
    assert page.evaluate("() => window.__csp") == []
    assert page.console_errors == []
