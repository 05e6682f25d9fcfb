"""Settings from the environment: production passes `check --deploy`; bad values say what is wrong."""

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from teorema.settings import env_bool, env_number, env_url

ROOT = Path(__file__).resolve().parent.parent


def manage(*args: str, env: dict[str, str], data_dir: Path) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("TEOREMA_") and k != "DJANGO_SETTINGS_MODULE"}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=clean | {"TEOREMA_DATA_DIR": str(data_dir)} | env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_production_settings_pass_the_deploy_check(tmp_path: Path) -> None:
    env = {
        "TEOREMA_PRODUCTION": "1",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "teorema.example.com",
        "CSRF_TRUSTED_ORIGINS": "https://teorema.example.com",
    }

    result = manage("check", "--deploy", "--fail-level", "WARNING", env=env, data_dir=tmp_path)

    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


def test_a_bad_yes_no_value_stops_startup_with_its_name(tmp_path: Path) -> None:
    result = manage("check", env={"TEOREMA_DEBUG": "maybe"}, data_dir=tmp_path)

    assert result.returncode != 0
    assert "ImproperlyConfigured: TEOREMA_DEBUG='maybe' is not a yes/no value (use 1 or 0)." in result.stderr


def test_local_auto_login_is_refused_in_production(tmp_path: Path) -> None:
    env = {"TEOREMA_PRODUCTION": "1", "TEOREMA_LOCAL_USER": "admin", "SECRET_KEY": secrets.token_urlsafe(50)}

    result = manage("check", env=env, data_dir=tmp_path)

    assert "TEOREMA_LOCAL_USER (auto-login) cannot be used with TEOREMA_PRODUCTION=1." in result.stderr


@pytest.mark.parametrize(("raw", "value"), [("1", True), ("yes", True), ("Off", False), ("", False)])
def test_yes_no_values_accept_the_usual_spellings(monkeypatch, raw: str, value: bool) -> None:
    monkeypatch.setenv("TEOREMA_SOMETHING", raw)

    assert env_bool("TEOREMA_SOMETHING") is value


def test_an_unknown_yes_no_value_is_a_configuration_error(monkeypatch) -> None:
    monkeypatch.setenv("TEOREMA_SOMETHING", "maybe")

    with pytest.raises(ImproperlyConfigured, match="TEOREMA_SOMETHING='maybe' is not a yes/no value"):
        env_bool("TEOREMA_SOMETHING")


@pytest.mark.parametrize(
    ("raw", "why"),
    [
        ("abc", "is not an integer"),
        ("12.5", "is not an integer"),
        ("0", "must be at least 1"),
        ("-3", "must be at least 1"),
    ],
)
def test_a_bad_number_is_a_configuration_error_naming_the_variable(monkeypatch, raw: str, why: str) -> None:
    monkeypatch.setenv("TEOREMA_QUESTIONS_PER_HOUR", raw)

    with pytest.raises(ImproperlyConfigured, match=f"TEOREMA_QUESTIONS_PER_HOUR='{raw}' {why}"):
        env_number("TEOREMA_QUESTIONS_PER_HOUR", 30, 1)


@pytest.mark.parametrize("raw", ["nan", "inf", "-inf", "Infinity"])
def test_a_number_that_is_not_finite_is_a_configuration_error(monkeypatch, raw: str) -> None:
    monkeypatch.setenv("TEOREMA_VOTE_SIMILARITY", raw)

    with pytest.raises(ImproperlyConfigured, match=f"TEOREMA_VOTE_SIMILARITY='{raw}' is not a finite number."):
        env_number("TEOREMA_VOTE_SIMILARITY", 85.0, 0, float)


def test_a_bad_number_stops_startup_with_its_name(tmp_path: Path) -> None:
    result = manage("check", env={"TEOREMA_LEASE_SECONDS": "soon"}, data_dir=tmp_path)

    assert result.returncode != 0
    assert "TEOREMA_LEASE_SECONDS='soon' is not a number." in result.stderr


def test_the_embedded_models_threads_come_from_the_environment(tmp_path: Path) -> None:
    show = "from debates.providers import threads; print(threads.THREADS)"
    shown = manage("shell", "--no-imports", "-c", show, env={"TEOREMA_LOCAL_THREADS": "2"}, data_dir=tmp_path)

    assert shown.stdout.strip() == str(min(2, len(os.sched_getaffinity(0))))
    refused = manage("check", env={"TEOREMA_LOCAL_THREADS": "two"}, data_dir=tmp_path)
    assert "TEOREMA_LOCAL_THREADS='two' is not an integer." in refused.stderr


def test_local_secrets_are_generated_outside_the_repository(tmp_path: Path) -> None:
    result = manage("check", env={}, data_dir=tmp_path)

    assert result.returncode == 0, result.stderr
    assert {p.name for p in tmp_path.iterdir()} >= {"secret_key", "fernet.key", "mcp-signing-key.pem"}
    assert (tmp_path / "fernet.key").stat().st_mode & 0o077 == 0
    assert (tmp_path / "mcp-signing-key.pem").stat().st_mode & 0o077 == 0
    assert (tmp_path / "mcp-signing-key.pem").read_text().startswith("-----BEGIN PRIVATE KEY-----")


@pytest.mark.parametrize("pem", ["not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"])
def test_a_signing_key_that_is_no_rsa_key_stops_startup_with_its_name(tmp_path: Path, pem: str) -> None:
    result = manage("check", env={"TEOREMA_MCP_SIGNING_KEY": pem}, data_dir=tmp_path)

    assert result.returncode != 0
    assert "TEOREMA_MCP_SIGNING_KEY is not an unencrypted RSA private key in PEM" in result.stderr
    assert not (tmp_path / "mcp-signing-key.pem").exists()  # the configured key is the one, none is made beside it


def test_an_ec_key_is_refused_as_a_signing_key() -> None:
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec

    from teorema.signing import checked_rsa_pem

    key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    with pytest.raises(ImproperlyConfigured, match="KEY is not an unencrypted RSA private key"):
        checked_rsa_pem(key.decode(), "KEY")


def test_the_sqlite_database_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    migrated = manage("migrate", "--no-input", "-v0", env={}, data_dir=tmp_path)
    assert migrated.returncode == 0, migrated.stderr
    database = tmp_path / "teorema.sqlite3"
    assert oct(database.stat().st_mode & 0o777) == oct(0o600)
    for extra in (tmp_path / "teorema.sqlite3-wal", tmp_path / "teorema.sqlite3-shm"):
        assert not extra.exists() or extra.stat().st_mode & 0o077 == 0


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        ("", ""),
        ("https://teorema.example.com/", "https://teorema.example.com"),
        ("http://127.0.0.1:8123", "http://127.0.0.1:8123"),
    ],
)
def test_the_sites_address_is_read_without_its_trailing_slash(monkeypatch, raw: str, value: str) -> None:
    monkeypatch.setenv("TEOREMA_PUBLIC_URL", raw)
    assert env_url("TEOREMA_PUBLIC_URL") == value


@pytest.mark.parametrize("raw", ["teorema.example.com", "ftp://teorema.example.com", "https://", "http://a b"])
def test_a_sites_address_that_is_no_web_address_is_refused_with_its_name(monkeypatch, raw: str) -> None:
    monkeypatch.setenv("TEOREMA_PUBLIC_URL", raw)
    with pytest.raises(ImproperlyConfigured, match=r"TEOREMA_PUBLIC_URL=.* is not an http:// or https:// address"):
        env_url("TEOREMA_PUBLIC_URL")
