"""MCP's own authorization (the MCP specification's, OAuth 2.1): ``/mcp`` is a protected resource
(RFC 9728) whose authorization server is allauth's OpenID provider on the same site.

A client that meets the 401 follows its ``resource_metadata`` here, finds the authorization server
(this site), registers itself (RFC 7591), sends the user's browser to sign in on Teorema's page and
consent, and trades the code (PKCE) for an access token bound to ``/mcp`` (RFC 8707): good there
only, for the user who consented, until it expires. API tokens made in the admin work beside it.
"""

from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from typing import Any
from urllib.parse import urlsplit

from allauth.idp.oidc import views as idp
from allauth.idp.oidc.adapter import DefaultOIDCAdapter, get_adapter
from allauth.idp.oidc.internal.resources import InvalidTargetError
from allauth.idp.oidc.models import Client
from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.response import TemplateResponse
from django.utils import timezone
from django.utils.csp import CSP
from django.views.decorators.csrf import csrf_exempt

from debates.tokens import access_grant

PATH = "/mcp"
METADATA_PATH = "/.well-known/oauth-protected-resource"
SCOPE = "mcp"
KNOWN_SCOPES = {"openid", "profile", "email", SCOPE}
# A client that registers itself signs a user in through the browser: no grant without one.
REGISTERED_GRANTS = {Client.GrantType.AUTHORIZATION_CODE, Client.GrantType.REFRESH_TOKEN}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}
NO_REDIRECT_SCHEMES = {"javascript", "data", "file", "vbscript", "blob", "about"}

WRONG_TOKEN = (
    "That token is not valid (wrong, revoked or expired): sign in again through your MCP client, or make "
    "an API token in the admin and send 'Authorization: Bearer <token>'."
)
EXPIRED = "That access token has expired: your MCP client signs in again (or refreshes it) to go on."
FOREIGN = "That access token was not issued for this server's /mcp: sign in again through your MCP client."
NO_SCOPE = f"That access token does not grant the '{SCOPE}' scope: sign in again and allow it."


def resource(request: HttpRequest) -> str:
    """This site's ``/mcp`` as an OAuth resource: what its tokens must be bound to."""
    return request.build_absolute_uri(PATH)


def metadata_url(request: HttpRequest) -> str:
    """Where ``/mcp``'s protected-resource metadata is (RFC 9728 §3: the path after the well-known one)."""
    return request.build_absolute_uri(METADATA_PATH + PATH)


def protected_resource(request: HttpRequest) -> JsonResponse:
    """RFC 9728: the resource, and the server that issues its tokens (this site, as allauth names it)."""
    response = JsonResponse(
        {
            "resource": resource(request),
            "authorization_servers": [get_adapter().get_issuer()],
            "scopes_supported": [SCOPE],
            "bearer_methods_supported": ["header"],
            "resource_name": "Teorema",
        }
    )
    response["Access-Control-Allow-Origin"] = "*"  # browser clients (MCP Inspector) read it from their own origin
    return response


@csrf_exempt  # as allauth's view is: it checks the token itself on a consent, not on a client's first POST
def authorization(request: HttpRequest) -> HttpResponse:
    """allauth's consent page, whose form may end at the client's redirect URI: browsers hold a form's
    redirect to ``form-action`` too, so the page allows that one origin (allauth checked it against
    the client's registered URIs before it showed the form)."""
    response = idp.authorization(request)
    redirect = request.GET.get("redirect_uri", "")
    if isinstance(response, TemplateResponse) and ":" in redirect:
        parts = urlsplit(redirect)
        target = f"{parts.scheme}://{parts.netloc}" if parts.netloc else f"{parts.scheme}:"
        response._csp_config = {**settings.SECURE_CSP, "form-action": [CSP.SELF, target]}  # type: ignore[attr-defined]
    return response


def for_pages(view: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """allauth's ``view`` open to a client in a browser page (MCP Inspector registers and trades its
    code from its own page): it reads no cookie, so any origin may call it; its preflight is answered.
    (oauthlib's own CORS is for https origins a client listed, and such a page is http://localhost.)"""

    @csrf_exempt
    @wraps(view)
    def opened(request: HttpRequest) -> HttpResponse:
        if request.method == "OPTIONS":
            response = HttpResponse(status=204)
            response["Access-Control-Allow-Methods"] = "POST"
            response["Access-Control-Allow-Headers"] = "Content-Type, Authorization"
        else:
            response = view(request)
        response["Access-Control-Allow-Origin"] = "*"
        return response

    return opened


registration = for_pages(idp.client_registration)
token = for_pages(idp.token)
revoke = for_pages(idp.revoke)


class ForeignResource(InvalidTargetError, ValidationError):
    """A resource this server issues no tokens for (RFC 8707 ``invalid_target``), raised where allauth
    catches either kind: the authorization page shows it, the token endpoint answers it in JSON."""

    def __init__(self, description: str) -> None:
        InvalidTargetError.__init__(self, description=description)
        ValidationError.__init__(self, description)


class McpAdapter(DefaultOIDCAdapter):
    """allauth's OpenID provider as the authorization server of ``/mcp``."""

    scope_display = {
        **DefaultOIDCAdapter.scope_display,
        SCOPE: "Ask your panels, and read and judge your questions, from this MCP client",
    }

    def validate_client_registration(self, *, client: Client, client_metadata: dict[str, Any], **kwargs: Any) -> None:
        """A client that registers itself is an MCP client: it signs a user in through the browser,
        its redirect URIs are ones a browser may be sent to, and it is given the ``mcp`` scope (by
        default too, for a client that asks for no scope)."""
        unknown = set(client.get_scopes()) - KNOWN_SCOPES
        if unknown:
            raise ValidationError(
                f"Unknown scope(s): {', '.join(sorted(unknown))} (this server has {', '.join(sorted(KNOWN_SCOPES))})."
            )
        grants = set(client.get_grant_types()) - REGISTERED_GRANTS
        if grants:
            raise ValidationError(
                f"A registered client may use authorization_code and refresh_token, not {', '.join(sorted(grants))}."
            )
        for uri in client.get_redirect_uris():
            refused = redirect_refusal(uri)
            if refused:
                raise ValidationError(f"redirect_uris: {uri!r} {refused}.")
        # allauth gives a client that names no scope "openid"; such a client gets "mcp" alone.
        requested = [scope for scope in client.get_scopes() if scope != "openid" or "scope" in client_metadata]
        client.set_scopes(sorted({*requested, SCOPE}))
        client.set_default_scopes([SCOPE])

    def validate_resource_uris(self, *, uris: list[str], **kwargs: Any) -> None:
        """The one resource this server issues tokens for is its own ``/mcp``."""
        ours = resource(self.request)
        for uri in uris:
            if uri != ours:
                raise ForeignResource(f"This server issues tokens for {ours} only, not {uri}.")

    def populate_server_metadata(self, data: dict[str, Any]) -> None:
        data["scopes_supported"] = [*data["scopes_supported"], SCOPE]


def redirect_refusal(uri: str) -> str:
    """Why a redirect URI may not be registered, "" when it may: https, plain http to loopback only
    (OAuth 2.1 §2.3.1), or an app's own scheme (cursor://); never a fragment or a script."""
    parts = urlsplit(uri)
    scheme = parts.scheme.lower()
    if not scheme or scheme in NO_REDIRECT_SCHEMES:
        return "is not an address a browser may be sent back to"
    if parts.fragment:
        return "has a fragment (#...), which a redirect URI may not have"
    if scheme == "http" and parts.hostname not in LOOPBACK:
        return "is plain http to another machine: use https, or http to 127.0.0.1/localhost"
    return ""


@dataclass(frozen=True)
class Challenge:
    """Why a bearer was refused at ``/mcp``, as RFC 6750 §3 says it: the status, the words, the error code."""

    status: int
    message: str
    error: str = ""


def token_user(raw: str, request: HttpRequest) -> AbstractBaseUser | Challenge:
    """The user who granted an OAuth access token, when the token is live, bound to this ``/mcp`` and
    grants its scope."""
    grant = access_grant(raw)
    if grant is None:
        return Challenge(401, WRONG_TOKEN, "invalid_token")
    if grant.expires_at is not None and grant.expires_at <= timezone.now():
        return Challenge(401, EXPIRED, "invalid_token")
    if resource(request) not in grant.resources:
        return Challenge(401, FOREIGN, "invalid_token")
    if SCOPE not in grant.scopes:
        return Challenge(403, NO_SCOPE, "insufficient_scope")
    return grant.user
