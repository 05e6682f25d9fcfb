"""MCP's own authorization: the official ``mcp`` client's OAuth support meets the 401, discovers this
site as its authorization server, registers itself, sends "the browser" (an HTTP client holding
alice's signed-in session) through Teorema's sign-in and consent, and asks as alice; tokens that
are wrong, expired, for another resource or without the scope are refused with the challenge."""

import base64
import hashlib
import sqlite3
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx
import httpx2
import pytest
from mcp import ClientSession
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from debates.integrations.mcp import oauth
from tests.integrations.conftest import Teorema

CALLBACK = "http://127.0.0.1:33418/callback"  # never opened: "the browser" stops at the redirect to it
QUESTION = "Read replicas or sharding for our reporting load?"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Inputs(HTMLParser):
    """A page's form inputs (name -> value), as a browser would send them."""

    def __init__(self) -> None:
        super().__init__()
        self.values: dict[str, str] = {}

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if tag == "input" and found.get("name"):
            self.values[found["name"] or ""] = found.get("value") or ""


def inputs(html: str) -> dict[str, str]:
    parser = Inputs()
    parser.feed(html)
    return parser.values


def signed_in(teorema: Teorema, user: str) -> httpx.Client:
    """A browser with ``user`` signed in on Teorema's own sign-in page."""
    browser = httpx.Client(base_url=teorema.url, timeout=30)
    page = browser.get("/accounts/login/")
    form = inputs(page.text) | {"login": user, "password": f"pw-{user}-123", "next": "/"}
    assert browser.post("/accounts/login/", data=form).status_code == 302
    return browser


def consent(browser: httpx.Client, authorize_url: str) -> str:
    """What a user does on the consent page (allow what is asked), to the client's redirect: its address."""
    page = browser.get(authorize_url)
    assert page.status_code == 200, page.text
    assert "Allow" in page.text
    form = inputs(page.text)
    granted = parse_qs(urlsplit(authorize_url).query).get("scope", [oauth.SCOPE])[0].split()
    answer = browser.post(
        urlsplit(authorize_url).path, data={**form, "scopes": granted, "action": "grant"}, follow_redirects=False
    )
    assert answer.status_code == 302, answer.text
    return answer.headers["Location"]


class Memory(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


@pytest.mark.anyio
async def test_the_sdks_oauth_client_signs_in_through_the_browser_and_asks_as_that_user(teorema, scripted):
    browser = signed_in(teorema, "alice")
    landed: list[str] = []

    async def redirect(url: str) -> None:
        landed.append(consent(browser, url))

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(landed[-1]).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0])

    storage = Memory()
    metadata = OAuthClientMetadata(
        client_name="An MCP client", redirect_uris=[CALLBACK], token_endpoint_auth_method="none"
    )
    sdk = OAuthClientProvider(f"{teorema.url}/mcp", metadata, storage, redirect, callback)
    async with (
        httpx2.AsyncClient(auth=sdk, timeout=60) as http,
        streamable_http_client(f"{teorema.url}/mcp", http_client=http) as (read, write, *_),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        result = await session.call_tool("ask_panel", {"question": QUESTION})
    assert not result.is_error, result.content
    assert landed[0].startswith(CALLBACK + "?")
    assert storage.client is not None
    assert storage.client.client_secret is None
    assert storage.tokens is not None
    assert not storage.tokens.access_token.startswith("tk_")
    asker = teorema.query(
        "SELECT u.username FROM debates_question q JOIN auth_user u ON u.id = q.owner_id WHERE q.id = ?",
        result.structured_content["id"],
    )
    assert asker == [("alice",)]
    bound = teorema.query(
        "SELECT json_extract(data, '$.resources') FROM allauth_idp_oidc_token WHERE hash = ?",
        hashed(storage.tokens.access_token),
    )
    assert bound == [(f'["{teorema.url}/mcp"]',)]


def test_the_metadata_names_this_site_as_the_authorization_server_of_its_mcp(teorema):
    resource = httpx.get(f"{teorema.url}/.well-known/oauth-protected-resource/mcp").json()
    assert resource["resource"] == f"{teorema.url}/mcp"
    assert resource["authorization_servers"] == [teorema.url]
    assert resource["scopes_supported"] == ["mcp"]
    for path in ("/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"):
        server = httpx.get(teorema.url + path).json()
        assert server["issuer"] == teorema.url
        assert server["registration_endpoint"] == f"{teorema.url}/identity/o/api/clients"
        assert server["code_challenge_methods_supported"] == ["S256"]
        assert "none" in server["token_endpoint_auth_methods_supported"]
        assert "mcp" in server["scopes_supported"]


@pytest.fixture(scope="module")
def client_id(teorema) -> str:
    """A public client registered as an MCP client registers itself (once: registrations are rate limited)."""
    registered = httpx.post(
        f"{teorema.url}/identity/o/api/clients",
        json={
            "client_name": "A script",
            "redirect_uris": [CALLBACK],
            "token_endpoint_auth_method": "none",
            "scope": "openid mcp",
            "grant_types": ["authorization_code", "refresh_token"],
        },
    )
    assert registered.status_code == 201, registered.text
    assert "client_secret" not in registered.json()
    return registered.json()["client_id"]


def authorization(client_id: str, challenge: str = "c" * 43, **asked: str) -> str:
    """The authorization request an MCP client opens for /mcp (PKCE, S256), with what ``asked`` adds."""
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": CALLBACK,
        "state": "s",
        "code_challenge": challenge,
        "code_challenge_method": "S256",
        "scope": "mcp",
    } | asked
    return f"/identity/o/authorize?{urlencode(params)}"


def tokens_for(teorema: Teorema, client_id: str, **asked: str) -> dict[str, str]:
    """Tokens by hand (authorize, consent, code with PKCE), for what ``asked`` names: the token response."""
    verifier = "v" * 64
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).decode().rstrip("=")
    landed = consent(signed_in(teorema, "alice"), authorization(client_id, challenge, **asked))
    code = parse_qs(urlsplit(landed).query)["code"][0]
    exchange = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": CALLBACK,
        "client_id": client_id,
        "code_verifier": verifier,
    } | ({"resource": asked["resource"]} if "resource" in asked else {})
    answer = httpx.post(
        f"{teorema.url}/identity/o/api/token", data=exchange, headers={"Origin": "http://localhost:6274"}
    )
    assert answer.status_code == 200, answer.text
    assert answer.headers["Access-Control-Allow-Origin"] == "*"  # a client in a browser page (MCP Inspector) reads it
    return answer.json()


def hashed(token: str) -> str:
    """How allauth keeps a token: its SHA-256, never the token."""
    return hashlib.sha256(token.encode()).hexdigest()


def tools(teorema: Teorema, token: str) -> httpx.Response:
    return httpx.post(
        f"{teorema.url}/mcp",
        headers={"Authorization": f"Bearer {token}", "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )


def test_a_token_for_this_mcp_lists_the_tools_and_no_other_way_in_takes_it(teorema, client_id):
    token = tokens_for(teorema, client_id, resource=f"{teorema.url}/mcp")["access_token"]
    assert tools(teorema, token).status_code == 200
    api = httpx.get(f"{teorema.url}/api/questions/1", headers={"Authorization": f"Bearer {token}"})
    assert api.status_code == 401  # the API takes its own tokens: an access token is for /mcp alone


def challenged(answer: httpx.Response, teorema: Teorema, status: int, error: str, words: str) -> None:
    assert answer.status_code == status
    header = answer.headers["WWW-Authenticate"]
    assert header.startswith(
        f'Bearer realm="teorema", resource_metadata="{teorema.url}/.well-known/oauth-protected-resource/mcp", '
        'scope="mcp"'
    )
    assert (f'error="{error}"' in header) if error else ("error=" not in header)
    assert answer.json()["error"]["message"].startswith(words)


@pytest.mark.parametrize(
    ("authorization", "error", "words"),
    [
        ("", "", "Authentication required: sign in through your MCP client"),
        ("Basic YWxpY2U6cHc=", "", "Authentication required"),
        ("Bearer tk_wrong", "invalid_token", "That token is not valid"),
        ("Bearer an-access-token-never-issued", "invalid_token", "That token is not valid"),
    ],
)
def test_a_request_without_a_good_token_is_challenged_toward_the_sign_in(teorema, authorization, error, words):
    answer = httpx.post(
        f"{teorema.url}/mcp",
        headers={"Authorization": authorization, "Accept": "application/json, text/event-stream"},
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
    )
    challenged(answer, teorema, 401, error, words)


def test_a_refreshed_token_is_bound_to_this_mcp_as_the_first_was(teorema, client_id):
    first = tokens_for(teorema, client_id, resource=f"{teorema.url}/mcp")
    refresh = {"grant_type": "refresh_token", "refresh_token": first["refresh_token"], "client_id": client_id}
    answer = httpx.post(f"{teorema.url}/identity/o/api/token", data=refresh)
    assert answer.status_code == 200, answer.text
    assert tools(teorema, answer.json()["access_token"]).status_code == 200


def test_an_expired_access_token_is_refused_as_expired(teorema, client_id):
    token = tokens_for(teorema, client_id, resource=f"{teorema.url}/mcp")["access_token"]
    with sqlite3.connect(teorema.database) as db:
        db.execute(
            "UPDATE allauth_idp_oidc_token SET expires_at = '2000-01-01 00:00:00' WHERE hash = ?", (hashed(token),)
        )
    challenged(tools(teorema, token), teorema, 401, "invalid_token", "That access token has expired")


def test_a_token_bound_to_no_resource_is_not_one_for_this_mcp(teorema, client_id):
    challenged(
        tools(teorema, tokens_for(teorema, client_id)["access_token"]), teorema, 401, "invalid_token", oauth.FOREIGN
    )


def test_a_token_without_the_mcp_scope_is_refused_as_insufficient(teorema, client_id):
    token = tokens_for(teorema, client_id, resource=f"{teorema.url}/mcp", scope="openid")["access_token"]
    challenged(tools(teorema, token), teorema, 403, "insufficient_scope", oauth.NO_SCOPE)


def test_a_token_for_another_resource_is_never_issued(teorema, client_id):
    params = {
        "response_type": "code",
        "client_id": client_id,
        "redirect_uri": CALLBACK,
        "state": "s",
        "code_challenge": "c" * 43,
        "code_challenge_method": "S256",
        "resource": "https://other.example/mcp",
    }
    page = signed_in(teorema, "alice").get(f"/identity/o/authorize?{urlencode(params)}")
    refused = f"This server issues tokens for {teorema.url}/mcp only, not https://other.example/mcp."
    assert refused in page.text
    trade = {"grant_type": "authorization_code", "code": "any", "client_id": client_id, "resource": params["resource"]}
    answer = httpx.post(f"{teorema.url}/identity/o/api/token", data=trade)
    assert answer.status_code == 400
    assert answer.json() == {"error": "invalid_target", "error_description": refused}


def test_the_consent_page_lets_its_form_end_at_the_clients_redirect(teorema, client_id):
    page = signed_in(teorema, "alice").get(authorization(client_id))
    assert "A script" in page.text
    assert CALLBACK in page.text
    assert "form-action 'self' http://127.0.0.1:33418" in page.headers["Content-Security-Policy"]


def test_a_client_asking_the_user_to_sign_in_again_is_asked_for_the_password_once_more(teorema, client_id):
    browser = signed_in(teorema, "alice")
    answer = browser.get(authorization(client_id, prompt="login"))
    assert answer.status_code == 302, answer.text[:300]
    assert answer.headers["Location"].startswith("/accounts/reauthenticate/?next=%2Fidentity%2Fo%2Fauthorize")
    again = browser.get(answer.headers["Location"])
    assert again.status_code == 200
    assert 'name="password"' in again.text


@pytest.mark.parametrize(
    ("metadata", "words"),
    [
        ({"client_name": "x"}, "redirect_uris"),
        ({"redirect_uris": 5}, "redirect_uris must be an array of strings"),
        ({"redirect_uris": ["http://evil.example/cb"]}, "plain http to another machine"),
        ({"redirect_uris": ["javascript:alert(1)"]}, "is not an address a browser may be sent back to"),
        ({"redirect_uris": ["https://app.example/cb#x"]}, "has a fragment"),
        ({"redirect_uris": [CALLBACK], "grant_types": ["client_credentials"]}, "not client_credentials"),
        ({"redirect_uris": [CALLBACK], "scope": "mcp admin"}, "Unknown scope(s): admin"),
        ({"redirect_uris": [CALLBACK], "token_endpoint_auth_method": "private_key_jwt"}, "Unsupported token"),
    ],
)
def test_a_registration_with_bad_metadata_is_refused_in_words(teorema, metadata, words):
    answer = httpx.post(f"{teorema.url}/identity/o/api/clients", json=metadata)
    assert answer.status_code == 400
    assert answer.json()["error"] in {"invalid_client_metadata", "invalid_redirect_uri"}
    assert words in answer.json()["error_description"]


def test_a_browser_page_may_register_from_its_own_origin(teorema):
    preflight = httpx.options(
        f"{teorema.url}/identity/o/api/clients",
        headers={"Origin": "http://localhost:6274", "Access-Control-Request-Method": "POST"},
    )
    assert preflight.status_code == 204
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "Content-Type" in preflight.headers["Access-Control-Allow-Headers"]
    refused = httpx.post(f"{teorema.url}/identity/o/api/clients", json={}, headers={"Origin": "http://localhost:6274"})
    assert refused.headers["Access-Control-Allow-Origin"] == "*"  # the page reads why, too


def test_a_registration_that_is_not_json_is_refused(teorema):
    answer = httpx.post(f"{teorema.url}/identity/o/api/clients", content=b"redirect_uris=x")
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_client_metadata"
