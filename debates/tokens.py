"""API tokens: the plaintext is shown once at creation; only its SHA-256 digest is stored. Every
way in that takes a token (the JSON API, MCP over HTTP, the OpenAI-compatible endpoint) reads its
user here; MCP over HTTP reads the OAuth access tokens allauth's provider issued here too."""

import copy
import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from allauth.idp.oidc.models import Token
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone

from debates.lib.stamped import TOKENS, Stamped
from debates.models import ApiToken

PREFIX_LENGTH = 10
# A token's last use is kept to the minute, the grain the admin shows it in: writing it on every
# request cost each one a write transaction, and a script's burst of submissions one per question.
LAST_USE_GRAIN = timedelta(minutes=1)


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def assign_secret(token: ApiToken) -> str:
    """Give an unsaved token a fresh secret (digest and prefix) and return the plaintext."""
    raw = "tk_" + secrets.token_urlsafe(32)
    token.digest = digest(raw)
    token.prefix = raw[:PREFIX_LENGTH]
    return raw


def _read(token_digest: str) -> ApiToken | None:
    return ApiToken.objects.select_related("user").filter(digest=token_digest).first()


# Tokens with their users, as they are now: a script's every request reads one (debates.lib.stamped).
_TOKENS: Stamped[str, ApiToken] = Stamped(TOKENS, _read)


def bearer_user(authorization: str) -> AbstractBaseUser | AnonymousUser | None:
    """The user of a valid bearer token in an Authorization header's value, None without one,
    AnonymousUser for a bad one."""
    scheme, _, raw = authorization.partition(" ")
    if scheme.lower() != "bearer":
        return None
    token = _TOKENS.get(digest(raw.strip()))
    if token is None or not token.user.is_active:
        return AnonymousUser()
    now = timezone.now()
    if token.last_used_at is None or now - token.last_used_at >= LAST_USE_GRAIN:
        ApiToken.objects.filter(pk=token.pk).update(last_used_at=now)
    return copy.copy(token.user)  # the request's own: what it caches on its user (permissions) stays its own


@dataclass(frozen=True)
class Grant:
    """What an OAuth access token grants: whose it is, until when, for which resources and scopes."""

    user: AbstractBaseUser
    expires_at: datetime | None
    resources: tuple[str, ...]
    scopes: tuple[str, ...]


def access_grant(raw: str) -> Grant | None:
    """The grant of an access token allauth's OpenID provider issued (expired ones too, so that a client
    is told it expired), None for any other string or for a user no longer active."""
    token = Token.objects.by_value(raw).filter(type=Token.Type.ACCESS_TOKEN).select_related("user").first()
    if token is None or token.user is None or not token.user.is_active:
        return None
    return Grant(token.user, token.expires_at, tuple(token.get_resources()), tuple(token.get_scopes()))
