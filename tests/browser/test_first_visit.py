"""What a new user meets in Chromium, on a laptop and on a phone: example questions that fill the ask
form on a click, and an evaluation started from the Evaluations page whose progress moves live."""

from pathlib import Path

import pytest

from debates.examples import EXAMPLES
from tests.evaluation import scenario
from tests.fakes.provider_server import FakeProviderServer, Script

pytestmark = pytest.mark.browser
VIEWPORTS = [{"width": 1400, "height": 900}, {"width": 390, "height": 844}]
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"


@pytest.fixture(scope="module")
def app_env(app_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """The app's environment with a data set folder holding the scenario's six items."""
    folder = tmp_path_factory.mktemp("datasets")
    scenario.write_dataset(folder / "six.jsonl")
    return app_env | {"TEOREMA_DATASETS_DIR": str(folder)}


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["laptop", "phone"])
def test_the_question_field_takes_the_focus_only_where_the_title_stays_in_view(signed_in, viewport) -> None:
    """Issue 50: at 390 px the field's autofocus scrolled past the title and the demo banner."""
    page = signed_in("alice")
    page.set_viewport_size(viewport)
    page.goto("/")
    page.wait_for_load_state("load")
    wide = viewport["width"] > 640
    assert page.evaluate("document.activeElement.id") == ("id_text" if wide else "")
    assert page.evaluate("window.scrollY") == 0
    assert page.locator("h1").first.bounding_box()["y"] >= 0


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["laptop", "phone"])
def test_an_example_fills_the_ask_form(signed_in, viewport) -> None:
    page = signed_in("alice")
    page.set_viewport_size(viewport)
    page.goto("/")
    assert page.locator("button.example").count() == len(EXAMPLES)
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    trap, decision = EXAMPLES[2], EXAMPLES[1]

    page.click(f"button.example:has-text('{trap.title}')")

    assert page.input_value("#id_text") == trap.text
    assert page.evaluate("document.activeElement.id") == "id_text"
    assert page.input_value("#id_protocol") == ""

    page.click(f"button.example:has-text('{decision.title}')")

    assert page.input_value("#id_text") == decision.text
    assert page.input_value("#id_options").splitlines() == list(decision.options)
    assert page.input_value("#id_protocol") == "vote"
    assert page.locator("#id_options").is_visible()  # its folded section opened
    assert page.locator("#id_protocol").is_visible()
    box = page.locator("button.example").first.bounding_box()
    assert box is not None
    assert box["height"] >= 24
    assert page.console_errors == []


@pytest.mark.parametrize("viewport", VIEWPORTS, ids=["laptop", "phone"])
def test_an_evaluation_starts_from_the_page_and_its_progress_moves_live(
    provider_server: FakeProviderServer, signed_in, viewport, tmp_path: Path
) -> None:
    provider_server.reset()
    scenario.script(provider_server)
    provider_server.script("model-moderator", Script(answer=scenario.moderator, first_token_delay=2.0))
    page = signed_in("alice")
    page.set_viewport_size(viewport)
    page.goto("/evaluations/")
    assert page.evaluate(NO_SIDEWAYS_SCROLL)

    page.fill("#id_limit", "0")  # a number field takes no letters; the server refuses what it does take
    page.click(".start-evaluation button[type=submit]")
    assert "Run at least 1 item." in page.inner_text(".start-evaluation")
    page.console_errors.clear()  # Chromium logs the refusal's 400 itself

    page.select_option("#id_dataset", "six.jsonl")
    page.select_option("#id_panel", "house")
    page.fill("#id_limit", "3")
    page.click(".start-evaluation button[type=submit]")

    page.wait_for_url("**/evaluations/*/")
    page.wait_for_selector("#evaluation-results[hx-trigger]")  # running: the page polls
    page.wait_for_function("() => /[1-2] of 3 items/.test(document.querySelector('.eval-progress').textContent)")
    page.wait_for_function("() => document.querySelector('.eval-progress .badge').textContent === 'Done'")
    assert page.inner_text(".eval-progress .count") == "3 of 3 items"
    assert page.evaluate(NO_SIDEWAYS_SCROLL)
    page.goto("/history/")
    assert "How many moons does Mars have?" not in page.inner_text("main")
    page.select_option("select[name=evaluations]", "1")
    page.click(".search button[type=submit]")
    assert "How many moons does Mars have?" in page.inner_text("main")
    assert page.console_errors == []
