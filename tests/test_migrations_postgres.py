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


@pytest.mark.services
def test_every_change_to_the_roster_or_the_tokens_on_postgresql_writes_a_new_stamp(postgres_database: str) -> None:
    """debates.lib.stamped trusts the database to note each change, whoever makes it: here a client of
    its own, with statements that touch no row, many rows, or empty a table."""
    env = os.environ | {"DATABASE_URL": postgres_database}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    migrate = [sys.executable, "manage.py", "migrate", "--no-input"]
    result = subprocess.run(migrate, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr

    with psycopg.connect(postgres_database, autocommit=True) as client:

        def stamps() -> dict[str, int]:
            return dict(client.execute("SELECT name, value FROM debates_stamp").fetchall())

        before = stamps()
        assert set(before) == {"roster", "tokens"}  # written by the migration: kept from the first read
        for statement, group in [
            ("UPDATE debates_provider SET enabled = false", "roster"),
            ("UPDATE debates_panelist SET enabled = false", "roster"),
            ("DELETE FROM debates_membership", "roster"),
            ("TRUNCATE debates_apitoken", "tokens"),
            ("UPDATE auth_user SET is_active = false", "tokens"),
        ]:
            client.execute(statement)
            after = stamps()
            assert after[group] != before[group], statement
            assert {k: v for k, v in after.items() if k != group} == {k: v for k, v in before.items() if k != group}
            before = after

        client.execute("DROP TRIGGER teorema_stamp ON debates_provider")  # as a table's rebuild would
    result = subprocess.run(migrate, cwd=ROOT, env=env, capture_output=True, text=True, timeout=180)
    assert result.returncode == 0, result.stdout + result.stderr
    with psycopg.connect(postgres_database, autocommit=True) as client:
        before = dict(client.execute("SELECT name, value FROM debates_stamp").fetchall())
        client.execute("UPDATE debates_provider SET enabled = true")
        after = dict(client.execute("SELECT name, value FROM debates_stamp").fetchall())
        assert after["roster"] != before["roster"]  # put back by the second migrate
