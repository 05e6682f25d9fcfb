"""Signing in with the company's identity, in a real browser: Chromium ↔ Teorema (the relying party)
↔ a real OpenID Connect provider, allauth's own (tests/signin/idp_settings.py), in another process on
loopback with its own database, user and registered client. Nothing between them is faked."""

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from tests.browser.conftest import ROOT, daphne, serving

pytestmark = pytest.mark.browser
CLIENT_ID, CLIENT_SECRET = "teorema", "the-client-secret-of-teorema"
PROVIDER, BUTTON, GROUP = "acme", "Acme ID", "Engineers"
SEED_IDP = """
from django.contrib.auth import get_user_model
from allauth.idp.oidc.models import Client
get_user_model().objects.create_user("carol", email="carol@acme.example", password="pw-carol-at-acme")
client = Client(id={client_id!r}, name="Teorema", skip_consent=True)
client.set_secret({secret!r})
client.set_scopes(["openid", "profile", "email"])
client.set_redirect_uris([{callback!r}])
client.save()
"""
MAKE_GROUP = f"from django.contrib.auth.models import Group; Group.objects.create(name={GROUP!r})"
WHO_JOINED = """
from django.contrib.auth import get_user_model
user = get_user_model().objects.get(socialaccount__provider={provider!r})
print(user.username, *user.groups.values_list("name", flat=True), user.has_usable_password())
"""


def private_key() -> str:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    return pem.decode()


def manage(env: dict[str, str], *args: str) -> str:
    command = [sys.executable, str(ROOT / "manage.py"), *args]
    return subprocess.run(command, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout


@contextmanager
def runserver(env: dict[str, str], log: Path) -> Iterator[str]:
    """The identity provider under Django's runserver on a free loopback port; its URL once it answers."""
    with serving(["-m", "django", "runserver", "--noreload", "127.0.0.1:{port}"], env, log) as url:
        yield url


@pytest.fixture(scope="module")
def idp_env(app_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    data = tmp_path_factory.mktemp("idp-data")
    env = app_env | {"DJANGO_SETTINGS_MODULE": "tests.signin.idp_settings", "IDP_DATA_DIR": str(data)}
    env["IDP_PRIVATE_KEY"] = private_key()
    manage(env, "migrate", "--no-input", "-v0")
    return env


@pytest.fixture(scope="module")
def sso_site(
    idp_env: dict[str, str], app_env: dict[str, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, str, dict[str, str]]]:
    """The provider's URL, Teorema's (registered with the provider as a client) and its environment."""
    with runserver(idp_env, Path(idp_env["IDP_DATA_DIR"]) / "runserver.log") as idp:
        data = tmp_path_factory.mktemp("sso-teorema-data")
        env = app_env | {
            "TEOREMA_DATA_DIR": str(data),
            "TEOREMA_OIDC_SERVER_URL": idp,
            "TEOREMA_OIDC_CLIENT_ID": CLIENT_ID,
            "TEOREMA_OIDC_SECRET": CLIENT_SECRET,
            "TEOREMA_OIDC_ID": PROVIDER,
            "TEOREMA_OIDC_NAME": BUTTON,
            "TEOREMA_SSO_GROUP": GROUP,
            "NO_PROXY": "127.0.0.1,localhost",  # the back channel to the provider never leaves loopback
        }
        manage(env, "migrate", "--no-input", "-v0")
        manage(
            env, "shell", "-c", f"from django.contrib.auth.models import Group; Group.objects.create(name={GROUP!r})"
        )
        with daphne(env, data) as teorema:
            callback = f"{teorema}/accounts/oidc/{PROVIDER}/login/callback/"
            seed = SEED_IDP.format(client_id=CLIENT_ID, secret=CLIENT_SECRET, callback=callback)
            manage(idp_env, "shell", "-c", seed)
            yield idp, teorema, env


@pytest.fixture
def context(browser, sso_site):
    context = browser.new_context(base_url=sso_site[1])
    context.set_default_timeout(60_000)
    yield context
    context.close()


def test_a_first_sign_in_through_the_company_provider_makes_a_user_in_the_chosen_group(context, sso_site) -> None:
    idp, teorema, env = sso_site
    page = context.new_page()
    page.goto("/accounts/login/")

    page.click(f"button:has-text('Sign in with {BUTTON}')")
    page.wait_for_url(f"{idp}/accounts/login/**")  # at the provider, which asks for its own password
    page.fill("#id_login", "carol")
    page.fill("#id_password", "pw-carol-at-acme")
    page.click("button[type=submit]")
    page.wait_for_url(f"{teorema}/")

    assert page.locator("header .who").inner_text() == "carol"
    assert manage(env, "shell", "-v0", "-c", WHO_JOINED.format(provider=PROVIDER)).split() == ["carol", GROUP, "False"]


def test_the_sign_in_page_offers_the_provider_beside_the_password_on_a_laptop_and_a_phone(context) -> None:
    page = context.new_page()
    for width, height in ((1400, 900), (390, 844)):
        page.set_viewport_size({"width": width, "height": height})
        page.goto("/accounts/login/")

        button = page.locator(f"button:has-text('Sign in with {BUTTON}')")
        assert button.is_visible()
        assert page.locator("#id_username").is_visible()
        assert page.locator("#id_password").is_visible()
        box, card = button.bounding_box(), page.locator(".login").bounding_box()
        assert box
        assert card
        assert card["x"] <= box["x"]
        assert box["x"] + box["width"] <= card["x"] + card["width"]
        sideways = page.evaluate("document.documentElement.scrollWidth > window.innerWidth")
        assert not sideways, f"the page scrolls sideways at {width}px"
