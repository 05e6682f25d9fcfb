"""`manage.py bootstrap`: a fresh install gets a roster and an admin, once, without a prompt."""

import io
import re

import pytest
from django.contrib.auth import authenticate
from django.core.management import call_command

from debates.models import Panel, Panelist, Provider

pytestmark = pytest.mark.django_db


def bootstrap() -> str:
    out = io.StringIO()
    call_command("bootstrap", stdout=out)
    return out.getvalue()


def test_a_fresh_install_gets_the_default_roster_and_an_admin_with_a_printed_password(monkeypatch) -> None:
    monkeypatch.delenv("TEOREMA_ADMIN_PASSWORD", raising=False)

    output = bootstrap()

    assert Panel.objects.get(is_default=True).slug == "local"
    password = re.search(r'"admin" with password (\S+)', output).group(1)
    assert authenticate(username="admin", password=password).is_superuser


def test_a_second_run_changes_nothing_and_never_prints_the_password_again(monkeypatch) -> None:
    monkeypatch.delenv("TEOREMA_ADMIN_PASSWORD", raising=False)
    first = bootstrap()
    password = re.search(r"password (\S+)", first).group(1)
    counts = (Provider.objects.count(), Panelist.objects.count(), Panel.objects.count())

    second = bootstrap()

    assert second == ""
    assert password not in second
    assert (Provider.objects.count(), Panelist.objects.count(), Panel.objects.count()) == counts
    assert authenticate(username="admin", password=password) is not None


def test_the_admin_password_comes_from_the_environment_and_is_not_printed(monkeypatch) -> None:
    monkeypatch.setenv("TEOREMA_ADMIN_PASSWORD", "correct horse battery staple")

    output = bootstrap()

    assert "correct horse battery staple" not in output
    assert "TEOREMA_ADMIN_PASSWORD" in output
    assert authenticate(username="admin", password="correct horse battery staple").is_superuser


def test_an_existing_panel_means_no_default_roster(monkeypatch) -> None:
    monkeypatch.setenv("TEOREMA_ADMIN_PASSWORD", "x" * 16)
    bootstrap()
    Panel.objects.filter(slug="local").update(name="Renamed", slug="renamed")

    bootstrap()

    assert list(Panel.objects.values_list("slug", flat=True)) == ["renamed"]
