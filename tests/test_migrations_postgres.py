"""The migrations apply on PostgreSQL (the server setup's database), in a database of their own."""

import os
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent
SERVER = "host=127.0.0.1 port=5432 user=root dbname=postgres connect_timeout=3"


@pytest.fixture
def postgres_database() -> Iterator[str]:
    """A fresh database on the loopback PostgreSQL, dropped afterwards; its DATABASE_URL."""
    try:
        server = psycopg.connect(SERVER, autocommit=True)
    except psycopg.OperationalError as exc:
        if os.environ.get("TEOREMA_REQUIRE_SERVICES") == "1":
            pytest.fail(f"PostgreSQL is required (TEOREMA_REQUIRE_SERVICES=1) but unreachable: {exc}")
        pytest.skip(f"PostgreSQL unreachable on 127.0.0.1:5432: {exc}")
    name = f"teorema_test_{secrets.token_hex(6)}"
    with server:
        server.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"postgres://root@127.0.0.1:5432/{name}"
        finally:
            server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.mark.services
def test_migrations_and_bootstrap_apply_on_postgresql(postgres_database: str, tmp_path: Path) -> None:
    env = os.environ | {"DATABASE_URL": postgres_database, "TEOREMA_DATA_DIR": str(tmp_path)}
    env.pop("DJANGO_SETTINGS_MODULE", None)

    for command in (["migrate", "--no-input"], ["bootstrap"]):
        result = subprocess.run(
            [sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True, timeout=180
        )
        assert result.returncode == 0, result.stdout + result.stderr
    assert "Imported the default roster" in result.stdout
