"""Every page in Chromium, on a laptop and on a phone, light and dark: nothing scrolls sideways,
"Sign out" stays in full view, the main actions are big enough to tap, a favicon and a title say
what the page is; the theme control overrides the OS preference, remembers it, and applies it
before the first paint; without JavaScript the OS preference alone decides."""

import re
import subprocess
import sys

import pytest

from tests.browser.conftest import HOOKS, ROOT
from tests.browser.test_live_viewer import wait_for_the_end
from tests.fakes.provider_server import FakeProviderServer

pytestmark = pytest.mark.browser
VIEWPORTS = {"laptop": {"width": 1400, "height": 900}, "phone": {"width": 390, "height": 844}}
STAFF = "margaret.hamilton"  # a long name and the Admin link: the widest header there is
QUESTION = "Should we add read replicas or shard the database behind the reporting service?"
TOO_MANY_FIELDS = "/history/?" + "&".join(f"f{i}=" for i in range(1001))  # Django answers 400
TITLES = {
    "ask": "Ask · Teorema",
    "history": "History · Teorema",
    "question": re.compile(re.escape(QUESTION[:40])),
    "shared": re.compile(re.escape(QUESTION[:40])),
    "models": "Models · Teorema",
    "evaluations": "Evaluations · Teorema",
    "bad request": "Bad request · Teorema",
    "sign in": "Sign in · Teorema",
}
SIGNED_OUT = {"sign in", "shared"}
DARK = "() => getComputedStyle(document.body).backgroundColor"
# Records the theme when <body> is first parsed: nothing can be painted before that.
THEME_AT_FIRST_PAINT = """
new MutationObserver(function (records, observer) {
  if (document.body) {
    window.__themeAtBody = document.documentElement.getAttribute("data-theme");
    observer.disconnect();
  }
}).observe(document, { childList: true, subtree: true });
"""


def manage(app_env: dict[str, str], code: str) -> str:
    command = [sys.executable, str(ROOT / "manage.py"), "shell", "-v0", "-c", code]
    return subprocess.run(command, cwd=ROOT, env=app_env, check=True, capture_output=True, text=True).stdout


def is_dark(rgb: str) -> bool:
    red, green, blue = (int(x) for x in re.findall(r"\d+", rgb)[:3])
    return red + green + blue < 3 * 128


@pytest.fixture(scope="module")
def site(browser, app_url: str, app_env: dict[str, str], provider_server: FakeProviderServer) -> dict:
    """A staff user's session, and the path of each page: a finished question, shared by link, among them."""
    provider_server.reset()
    manage(
        app_env,
        "from django.contrib.auth import get_user_model\n"
        f"get_user_model().objects.create_user({STAFF!r}, password='pw-{STAFF}-123', is_staff=True)",
    )
    context = browser.new_context(base_url=app_url)
    context.set_default_timeout(60_000)
    page = context.new_page()
    page.goto("/accounts/login/")
    page.fill("#id_username", STAFF)
    page.fill("#id_password", f"pw-{STAFF}-123")
    page.click("button[type=submit]")
    page.wait_for_url(f"{app_url}/")
    page.fill("#id_text", QUESTION)
    page.click("button.primary")
    page.wait_for_url(re.compile(r"/q/\d+/$"))
    question = page.url.removeprefix(app_url)
    wait_for_the_end(page)
    shared = manage(
        app_env,
        "from debates.conversations import sharing\nfrom debates.models import Question\n"
        f"q = Question.objects.get(pk={question.split('/')[2]})\n"
        "sharing.share(q, 'link', hide_cost=False)\nprint(sharing.link_path(q))",
    ).strip()
    session = context.storage_state()
    context.close()
    paths = {
        "ask": "/",
        "history": "/history/",
        "question": question,
        "shared": shared,
        "models": "/models/",
        "evaluations": "/evaluations/",
        "bad request": TOO_MANY_FIELDS,
        "sign in": "/accounts/login/",
    }
    return {"session": session, "paths": paths}


@pytest.fixture
def open_page(browser, app_url: str, site: dict):
    """Opens a page in a fresh context with the given viewport, colour scheme and JavaScript."""
    contexts = []

    def open_(name: str, viewport: str = "phone", scheme: str = "light", javascript: bool = True):
        session = None if name in SIGNED_OUT else site["session"]
        context = browser.new_context(
            base_url=app_url,
            viewport=VIEWPORTS[viewport],
            color_scheme=scheme,
            storage_state=session,
            java_script_enabled=javascript,
        )
        context.add_init_script(HOOKS)
        context.add_init_script(THEME_AT_FIRST_PAINT)
        contexts.append(context)
        page = context.new_page()
        page.goto(site["paths"][name])
        return page

    yield open_
    for context in contexts:
        context.close()


def box_of(locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, f"{locator} is not displayed"
    return box


def fully_visible(page, selector: str) -> bool:
    """In the viewport, not clipped, and the topmost thing at its centre."""
    return page.eval_on_selector(
        selector,
        """(el) => {
             const box = el.getBoundingClientRect();
             const inside = box.width > 0 && box.left >= 0 && box.top >= 0
               && box.right <= innerWidth && box.bottom <= innerHeight;
             const top = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
             return inside && (top === el || el.contains(top));
           }""",
    )


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("name", TITLES)
def test_every_page_fits_its_screen_in_either_scheme(open_page, name: str, viewport: str, scheme: str):
    page = open_page(name, viewport, scheme)
    assert page.evaluate("() => document.documentElement.scrollWidth <= innerWidth"), page.evaluate(
        "() => document.documentElement.scrollWidth"
    )
    if name not in SIGNED_OUT:
        assert fully_visible(page, ".signout button")
    assert fully_visible(page, "header.site .brand")
    assert is_dark(page.evaluate(DARK)) == (scheme == "dark")
    title = TITLES[name]
    assert re.search(title, page.title()) if isinstance(title, re.Pattern) else page.title() == title
    assert page.evaluate("window.__csp") == []


@pytest.mark.parametrize("name", TITLES)
def test_every_page_links_the_favicon(open_page, name: str):
    page = open_page(name, "laptop")
    href = page.get_attribute("link[rel=icon]", "href")
    response = page.request.get(href)
    assert response.ok
    assert response.headers["content-type"] == "image/svg+xml"


def test_the_main_actions_are_big_enough_to_tap_on_a_phone(open_page):
    targets = {
        "ask": ["header.site nav a", ".signout button", "[data-theme-choice]", "button.primary"],
        "history": [".search input", ".search select", ".search button"],
        "sign in": ["button.primary", "[data-theme-choice]"],
    }
    for name, selectors in targets.items():
        page = open_page(name)
        for selector in selectors:
            elements = page.locator(selector).all()
            assert elements, f"no {selector} on the {name} page: nothing of it was measured"
            for element in elements:
                assert box_of(element)["height"] >= 44, (name, selector)


def test_the_history_becomes_cards_on_a_phone(open_page):
    page = open_page("history")
    assert box_of(page.locator(".history-list tbody tr").first)["width"] > 300  # a card across the screen
    assert box_of(page.locator(".history-list thead"))["width"] <= 1  # column names left to screen readers
    assert box_of(page.locator(".search input"))["width"] > 300
    page.locator(".history-list tbody tr").first.click(position={"x": 250, "y": 5})  # anywhere on the card
    page.wait_for_url(re.compile(r"/q/\d+/$"))


def test_the_theme_control_overrides_the_os_and_is_remembered(open_page):
    page = open_page("ask", scheme="light")
    choice = page.locator("[data-theme-choice]")
    assert choice.is_visible()
    assert choice.input_value() == "system"
    assert not is_dark(page.evaluate(DARK))

    choice.select_option("dark")
    assert page.get_attribute("html", "data-theme") == "dark"
    assert is_dark(page.evaluate(DARK))
    page.reload()
    assert page.evaluate("window.__themeAtBody") == "dark"  # applied before anything could be painted
    assert is_dark(page.evaluate(DARK))
    assert page.locator("[data-theme-choice]").input_value() == "dark"
    page.goto("/history/")  # and on every other page
    assert is_dark(page.evaluate(DARK))

    page.locator("[data-theme-choice]").select_option("system")
    assert page.get_attribute("html", "data-theme") is None
    assert not is_dark(page.evaluate(DARK))
    page.reload()
    assert not is_dark(page.evaluate(DARK))
    assert page.evaluate("localStorage.length") == 0


def test_light_wins_over_a_dark_os_when_chosen(open_page):
    page = open_page("sign in", scheme="dark")
    assert is_dark(page.evaluate(DARK))
    page.locator("[data-theme-choice]").select_option("light")
    assert not is_dark(page.evaluate(DARK))
    page.reload()
    assert page.evaluate("window.__themeAtBody") == "light"
    assert not is_dark(page.evaluate(DARK))


def test_without_javascript_the_os_preference_decides_and_no_dead_control_shows(open_page):
    for scheme in ("light", "dark"):
        page = open_page("ask", scheme=scheme, javascript=False)
        assert is_dark(page.evaluate(DARK)) == (scheme == "dark")
        assert page.locator(".theme-choice").is_hidden()
        assert fully_visible(page, ".signout button")
