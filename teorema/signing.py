"""The RSA key allauth's OpenID provider signs with (ID tokens, its JWKS): from the environment, or
made once and kept under DATA_DIR like the site's other secrets, so that no key lives in the repo."""

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from django.core.exceptions import ImproperlyConfigured


def new_rsa_pem() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()


def checked_rsa_pem(pem: str, source: str) -> str:
    """``pem`` when it is an unencrypted RSA private key; otherwise a configuration error naming
    ``source``, at startup rather than at the first token signed."""
    try:
        # The operator's own key: read, not proven (the full check costs 40 ms at every start).
        key = serialization.load_pem_private_key(pem.encode(), password=None, unsafe_skip_rsa_key_validation=True)
    except (ValueError, TypeError):
        key = None
    if not isinstance(key, rsa.RSAPrivateKey):
        raise ImproperlyConfigured(
            f"{source} is not an unencrypted RSA private key in PEM (-----BEGIN PRIVATE KEY-----)."
        )
    return pem
