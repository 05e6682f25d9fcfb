"""Provider keys at rest: encrypted with keys kept outside the database, rotatable, never shown."""

import io
from collections.abc import Callable, Iterator

import pytest
from cryptography.fernet import Fernet
from django.core.management import CommandError, call_command
from django.db import connection
from django.test import Client
from django.urls import reverse

from debates.lib import crypto
from debates.models import Provider

KEY = "sk-ant-PLAINTEXT-0123456789abcd"
OLD, NEW = Fernet.generate_key().decode(), Fernet.generate_key().decode()

pytestmark = pytest.mark.django_db


@pytest.fixture
def fernet_keys(settings) -> Iterator[Callable[..., None]]:
    """Set TEOREMA_FERNET_KEYS per test; crypto caches the Fernet built from them."""

    def use(*keys: str) -> None:
        settings.TEOREMA_FERNET_KEYS = list(keys)
        crypto._fernet.cache_clear()

    yield use
    crypto._fernet.cache_clear()


def stored_provider(name: str = "Anthropic") -> Provider:
    provider = Provider(name=name, preset="anthropic", wire="anthropic", base_url="https://api.anthropic.com")
    provider.set_api_key(KEY)
    provider.save()
    return provider


def test_the_database_column_never_holds_the_plaintext_key() -> None:
    provider = stored_provider()

    with connection.cursor() as cursor:
        cursor.execute("SELECT * FROM debates_provider WHERE id = %s", [provider.pk])
        row = cursor.fetchone()

    assert not any(KEY in str(value) for value in row)
    assert Provider.objects.get().api_key == KEY


def test_rotation_reads_keys_encrypted_with_the_old_fernet_key(fernet_keys) -> None:
    fernet_keys(OLD)
    provider = stored_provider()

    fernet_keys(NEW, OLD)

    assert Provider.objects.get(pk=provider.pk).api_key == KEY


def test_rotation_encrypts_new_keys_with_the_first_fernet_key(fernet_keys) -> None:
    fernet_keys(NEW, OLD)
    provider = stored_provider()

    fernet_keys(NEW)

    assert Provider.objects.get(pk=provider.pk).api_key == KEY


def test_a_key_encrypted_with_a_lost_fernet_key_gives_a_clear_error(fernet_keys) -> None:
    fernet_keys(OLD)
    provider = stored_provider()
    fernet_keys(NEW)

    with pytest.raises(crypto.KeyUnreadable, match="cannot be decrypted with TEOREMA_FERNET_KEYS: enter it again"):
        Provider.objects.get(pk=provider.pk).api_key  # noqa: B018


def test_the_admin_says_an_unreadable_key_must_be_entered_again(fernet_keys, admin_client: Client) -> None:
    fernet_keys(OLD)
    stored_provider()
    fernet_keys(NEW)

    page = admin_client.get(reverse("admin:debates_provider_changelist")).content.decode()

    assert "unreadable with TEOREMA_FERNET_KEYS: enter it again" in page


@pytest.mark.parametrize(
    ("key", "masked"),
    [("sk-proj-abcdefgh1234", "sk-…1234"), ("short", "…rt"), ("", "")],
)
def test_a_masked_key_shows_too_little_to_use(key: str, masked: str) -> None:
    assert crypto.mask(key) == masked


def test_rotate_keys_reencrypts_every_stored_key_with_the_new_fernet_key(fernet_keys):
    fernet_keys(OLD)
    provider = Provider.objects.create(name="Rotated", wire="openai", base_url="http://127.0.0.1:9/v1")
    provider.set_api_key(KEY)
    provider.save()
    fernet_keys(NEW, OLD)
    call_command("rotate_keys", stdout=io.StringIO())
    fernet_keys(NEW)
    provider.refresh_from_db()
    assert provider.api_key == KEY


def test_rotate_keys_changes_nothing_when_a_key_is_unreadable(fernet_keys):
    fernet_keys(OLD)
    provider = Provider.objects.create(name="Lost", wire="openai", base_url="http://127.0.0.1:9/v1")
    provider.set_api_key(KEY)
    provider.save()
    stored = provider.api_key_encrypted
    fernet_keys(NEW)
    with pytest.raises(CommandError, match="Lost"):
        call_command("rotate_keys", stdout=io.StringIO())
    provider.refresh_from_db()
    assert provider.api_key_encrypted == stored
