"""Provider keys at rest: Fernet (from `cryptography`) with keys kept outside the database."""

from functools import cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings


class KeyUnreadable(Exception):
    """The stored key was encrypted with a Fernet key we no longer have."""


@cache
def _fernet() -> MultiFernet:
    return MultiFernet([Fernet(key.encode()) for key in settings.TEOREMA_FERNET_KEYS])


def encrypt(plain: str) -> str:
    return _fernet().encrypt(plain.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise KeyUnreadable("The stored API key cannot be decrypted with TEOREMA_FERNET_KEYS: enter it again.") from exc


def rotate(token: str) -> str:
    """Re-encrypt a stored key with the first Fernet key (after a rotation)."""
    try:
        return _fernet().rotate(token.encode()).decode()
    except InvalidToken as exc:
        raise KeyUnreadable("A stored API key cannot be decrypted with TEOREMA_FERNET_KEYS.") from exc


def mask(key: str) -> str:
    """`sk-…abcd`: enough to recognise a key, never enough to use it."""
    if not key:
        return ""
    if len(key) <= 8:
        return "…" + key[-2:]
    return f"{key[:3]}…{key[-4:]}"
