"""A new admin's path in a real browser: add a provider with its key, test the connection, pick a
model from the provider's list, add it as a panelist, seat it on a new panel, and find that panel
on the ask page. Every page of the path reads on a laptop and on a phone without scrolling sideways."""

import re
import subprocess
import sys
from collections.abc import Callable

import pytest

from tests.browser.conftest import ROOT
from tests.fakes.provider_server import FakeProviderServer

pytestmark = pytest.mark.browser
LAPTOP = {"width": 1400, "height": 900}
PHONE = {"width": 390, "height": 844}
NO_SIDEWAYS_SCROLL = "() => document.documentElement.scrollWidth <= window.innerWidth"
KEY = "sk-proj-Browser7Kq2Vd9Lw"
ADMIN = """
from django.contrib.auth import get_user_model
get_user_model().objects.create_superuser("root", password="pw-root-123")
"""

Look = Callable[[object, str], None]


@pytest.fixture
def admin_page(browser, app_url: str, app_env: dict[str, str]):
    """A browser signed in to the admin as a superuser made for this test."""
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "shell", "-c", ADMIN], cwd=ROOT, env=app_env, check=True)
    context = browser.new_context(base_url=app_url, viewport=LAPTOP)
    context.set_default_timeout(30_000)
    page = context.new_page()
    page.goto("/admin/login/")
    page.fill("#id_username", "root")
    page.fill("#id_password", "pw-root-123")
    page.click("input[type=submit]")
    page.wait_for_url(f"{app_url}/admin/")
    yield page
    context.close()


def on_a_phone_too(page, step: str) -> None:
    """The guided pages (not Django's own forms) read at 390 px wide without scrolling sideways."""
    if "/models/" in page.url or "/seat/" in page.url:
        page.set_viewport_size(PHONE)
        assert page.evaluate(NO_SIDEWAYS_SCROLL), f"{step} scrolls sideways on a phone"
        page.set_viewport_size(LAPTOP)


def messages(page) -> str:
    return page.inner_text("ul.messagelist")


def follow(page, selector: str) -> None:
    """Click what leads to another page, and wait for that page."""
    with page.expect_navigation():
        page.click(selector)


def walk(page, server: FakeProviderServer, look: Look) -> None:
    """The whole path, as a new admin clicks it; ``look`` sees each step's page."""
    page.goto("/admin/debates/provider/add/")
    page.fill("#id_name", "Fake OpenAI")
    page.select_option("#id_preset", "openai")  # fills the wire protocol and base URL
    assert page.input_value("#id_wire") == "openai"
    assert page.input_value("#id_base_url") == "https://api.openai.com/v1"
    page.fill("#id_base_url", server.base_url("openai"))  # the fake stands in for OpenAI
    page.fill("#id_api_key", KEY)
    look(page, "01-add-provider")
    follow(page, "input[name=_save]")

    assert re.search(r"/admin/debates/provider/\d+/change/$", page.url)
    assert "Next: test the connection, then pick its models." in messages(page)
    assert page.locator("button.setup-tool", has_text="Test connection").is_visible()
    look(page, "02-provider-saved")
    follow(page, "button.setup-tool")

    assert re.search(r"Fake OpenAI answered in \d+ ms: it lists 3 models\.", messages(page))
    assert server.listings[-1].headers["authorization"] == f"Bearer {KEY}"
    look(page, "03-connection-tested")
    follow(page, "a.setup-tool:has-text('Models')")

    assert page.url.endswith("/models/")
    assert page.locator(".model-list tbody tr").count() == 3
    page.fill("#model-filter", "beta")
    follow(page, ".model-filter button")
    assert page.url.endswith("/models/?q=beta")
    assert page.locator(".model-list tbody tr").count() == 1
    look(page, "04-models-filtered")
    follow(page, "text=Add as a panelist")

    assert page.url.endswith("/models/add/?model=model-beta")
    assert page.input_value("#id_name") == "model-beta (Fake OpenAI)"
    assert page.input_value("#id_model") == "model-beta"
    page.select_option("#id_method", "outside_view")
    look(page, "05-add-as-panelist")
    follow(page, "input[type=submit]")

    assert re.search(r"/panelist/\d+/seat/$", page.url)
    assert "Added the panelist “model-beta (Fake OpenAI)”" in messages(page)
    page.fill("#id_new-name", "Guided panel")
    look(page, "06-seat-on-a-panel")
    follow(page, "input[name=create]")

    assert page.url.endswith("/models/")
    assert "“model-beta (Fake OpenAI)” sits on the panel “Guided panel” (1 voice)." in messages(page)
    assert "model-beta (Fake OpenAI)" in page.inner_text(".model-list")  # now in use
    look(page, "07-seated")
    follow(page, "ul.messagelist a:has-text('Ask it a question')")

    assert re.fullmatch(r"http://127\.0\.0\.1:\d+/", page.url)
    offered = page.locator("input[name=panel][value=guided-panel]")
    assert offered.count() == 1
    assert offered.is_enabled()
    look(page, "08-ask-page")


def test_a_new_admin_goes_from_a_key_to_a_panel_the_ask_page_offers(
    provider_server: FakeProviderServer, admin_page
) -> None:
    provider_server.reset()
    walk(admin_page, provider_server, on_a_phone_too)
    assert provider_server.requests == []  # listing is all the path called: nothing was generated
