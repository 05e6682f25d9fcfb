"""The sign-in providers come from the environment: a complete set is offered with no database row;
a wrong one stops the start in words that name the variable; so does a group that does not exist."""

import json
from pathlib import Path

import pytest
from django.contrib.auth.models import Group
from django.core import checks

from tests.test_settings import manage

OIDC = {
    "TEOREMA_OIDC_SERVER_URL": "https://id.acme.example/realms/staff",
    "TEOREMA_OIDC_CLIENT_ID": "teorema",
    "TEOREMA_OIDC_SECRET": "s3cret",
}
READ = (
    "import json; from django.conf import settings; "
    "print(json.dumps([settings.SOCIALACCOUNT_PROVIDERS, settings.SECURE_CSP['form-action']]))"
)


def test_each_provider_is_read_from_its_variables(tmp_path: Path) -> None:
    env = OIDC | {
        "TEOREMA_OIDC_NAME": "Acme ID",
        "TEOREMA_GITHUB_CLIENT_ID": "gh-id",
        "TEOREMA_GITHUB_SECRET": "gh-secret",
        "TEOREMA_GOOGLE_CLIENT_ID": "g-id",
        "TEOREMA_GOOGLE_SECRET": "g-secret",
        "TEOREMA_MICROSOFT_CLIENT_ID": "ms-id",
        "TEOREMA_MICROSOFT_SECRET": "ms-secret",
        "TEOREMA_MICROSOFT_TENANT": "acme.onmicrosoft.com",
    }

    result = manage("shell", "-v0", "-c", READ, env=env, data_dir=tmp_path)

    assert result.returncode == 0, result.stderr
    providers, form_action = json.loads(result.stdout)
    oidc = providers["openid_connect"]["APPS"]
    assert oidc == [
        {
            "provider_id": "oidc",
            "name": "Acme ID",
            "client_id": "teorema",
            "secret": "s3cret",
            "settings": {"server_url": "https://id.acme.example/realms/staff"},
        }
    ]
    assert providers["github"]["APPS"] == [{"client_id": "gh-id", "secret": "gh-secret"}]
    assert providers["google"]["APPS"] == [{"client_id": "g-id", "secret": "g-secret"}]
    assert providers["microsoft"]["APPS"][0]["settings"] == {"tenant": "acme.onmicrosoft.com"}
    # The buttons post to Teorema, which redirects to each provider: the CSP lets those redirects through.
    assert form_action == [
        "'self'",
        "https://id.acme.example",
        "https://github.com",
        "https://accounts.google.com",
        "https://login.microsoftonline.com",
    ]


def test_without_variables_no_provider_is_offered_and_forms_post_only_here(tmp_path: Path) -> None:
    result = manage("shell", "-v0", "-c", READ, env={}, data_dir=tmp_path)

    assert json.loads(result.stdout) == [{}, ["'self'"]]


@pytest.mark.parametrize(
    ("env", "said"),
    [
        (
            {"TEOREMA_OIDC_SERVER_URL": "https://id.acme.example"},
            "TEOREMA_OIDC_SERVER_URL is set but TEOREMA_OIDC_CLIENT_ID is not",
        ),
        (
            OIDC | {"TEOREMA_OIDC_SERVER_URL": ""},
            "TEOREMA_OIDC_CLIENT_ID is set but TEOREMA_OIDC_SERVER_URL is not",
        ),
        (OIDC | {"TEOREMA_OIDC_SECRET": ""}, "TEOREMA_OIDC_SECRET is not set: a provider needs both"),
        (
            OIDC | {"TEOREMA_OIDC_SERVER_URL": "id.acme.example"},
            "TEOREMA_OIDC_SERVER_URL='id.acme.example' is not an http:// or https:// address",
        ),
        (OIDC | {"TEOREMA_OIDC_ID": "Acme ID"}, "TEOREMA_OIDC_ID='Acme ID' is not a slug"),
        ({"TEOREMA_GITHUB_CLIENT_ID": "gh-id"}, "TEOREMA_GITHUB_SECRET is not set"),
        ({"TEOREMA_GOOGLE_SECRET": "g-secret"}, "TEOREMA_GOOGLE_CLIENT_ID is not set"),
        ({"TEOREMA_SSO_GROUP": "Engineers"}, "TEOREMA_SSO_GROUP is set but no sign-in provider is"),
    ],
)
def test_a_wrong_provider_setting_stops_the_start_with_its_name(tmp_path: Path, env: dict[str, str], said: str) -> None:
    result = manage("check", env=env, data_dir=tmp_path)

    assert result.returncode != 0
    assert f"ImproperlyConfigured: {said}" in result.stderr


@pytest.mark.django_db
def test_a_group_that_does_not_exist_fails_the_database_checks(settings) -> None:
    settings.TEOREMA_SSO_GROUP = "Engineers"

    found = checks.run_checks(tags=[checks.Tags.database], databases=["default"])

    assert [(each.id, each.msg) for each in found if each.id.startswith("teorema.")] == [
        (
            "teorema.E001",
            "TEOREMA_SSO_GROUP='Engineers' names no group: create it in the admin "
            "(Authentication and Authorization › Groups), or name one that exists.",
        )
    ]
    Group.objects.create(name="Engineers")
    assert not [each for each in checks.run_checks(databases=["default"]) if each.id.startswith("teorema.")]


def test_without_a_database_the_group_is_not_looked_up(settings) -> None:
    """`check` without --database, or makemigrations: Django asks no database check for a database."""
    settings.TEOREMA_SSO_GROUP = "Engineers"

    assert not [each for each in checks.run_checks() if each.id.startswith("teorema.")]
