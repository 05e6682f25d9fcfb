"""API tokens: the plaintext is shown once at creation; only its SHA-256 digest is stored."""

import hashlib
import secrets

from debates.models import ApiToken

PREFIX_LENGTH = 10


def digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


def assign_secret(token: ApiToken) -> str:
    """Give an unsaved token a fresh secret (digest and prefix) and return the plaintext."""
    raw = "tk_" + secrets.token_urlsafe(32)
    token.digest = digest(raw)
    token.prefix = raw[:PREFIX_LENGTH]
    return raw
