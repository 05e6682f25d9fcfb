"""An MCP client's sign-in in a real browser: Chromium is sent to the authorization endpoint signed
out, signs in on Teorema's own page, allows the client, and its form ends at the client's loopback
redirect (a browser holds that redirect to the page's CSP ``form-action``); the code it brings back
is traded for a token ``/mcp`` takes."""

import base64
import hashlib
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx

from tests.browser.conftest import HOOKS

CALLBACK = "http://127.0.0.1:33419/callback"


def test_a_signed_out_user_signs_in_allows_the_client_and_its_redirect_gets_the_code(browser, app_url):
    registered = httpx.post(
        f"{app_url}/identity/o/api/clients",
        json={"client_name": "Claude Code", "redirect_uris": [CALLBACK], "token_endpoint_auth_method": "none"},
    ).json()
    verifier = "w" * 64
    params = {
        "response_type": "code",
        "client_id": registered["client_id"],
        "redirect_uri": CALLBACK,
        "state": "st",
        "code_challenge": base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("="),
        "code_challenge_method": "S256",
        "resource": f"{app_url}/mcp",
    }
    context = browser.new_context(base_url=app_url)
    context.set_default_timeout(60_000)
    context.add_init_script(HOOKS)
    landed: list[str] = []
    # The client's loopback listener: whatever reaches it is what the client gets.
    context.route(f"{CALLBACK}**", lambda route: (landed.append(route.request.url), route.fulfill(body="done")))
    page = context.new_page()
    page.goto(f"/identity/o/authorize?{urlencode(params)}")
    assert urlsplit(page.url).path == "/accounts/login/"
    page.fill("#id_username", "alice")
    page.fill("#id_password", "pw-alice-123")
    page.click("button[type=submit]")
    page.wait_for_selector("text=Allow Claude Code?")
    assert CALLBACK in page.inner_text("form.login")  # the page says where the browser goes back to
    page.click("button[value=grant]")
    page.wait_for_url(f"{CALLBACK}**")
    assert page.evaluate("window.__csp") == []
    context.close()

    query = parse_qs(urlsplit(landed[0]).query)
    assert query["state"] == ["st"]
    exchange = {
        "grant_type": "authorization_code",
        "code": query["code"][0],
        "redirect_uri": CALLBACK,
        "client_id": registered["client_id"],
        "code_verifier": verifier,
        "resource": f"{app_url}/mcp",
    }
    token = httpx.post(f"{app_url}/identity/o/api/token", data=exchange).json()["access_token"]
    listed = httpx.post(
        f"{app_url}/mcp",
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    assert listed.status_code == 200
    assert "ask_panel" in listed.text
