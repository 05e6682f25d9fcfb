"""Local accounts under allauth: the password as before, a second factor once a user turns it on,
nobody signing up by themselves, and the local browser still signed in as the local user."""

import time

import pytest
from allauth.mfa.recovery_codes.internal.auth import RecoveryCodes
from allauth.mfa.totp.internal.auth import TOTP, format_hotp_value, generate_totp_secret, hotp_value
from django.contrib.auth import get_user_model

PASSWORD = "pw-alice-123"


def current_code(secret: str) -> str:
    return format_hotp_value(hotp_value(secret, int(time.time()) // 30))


def sign_in(client, username: str = "alice", password: str = PASSWORD):
    return client.post("/accounts/login/", {"login": username, "password": password})


def test_a_local_account_signs_in_with_its_password(client, alice) -> None:
    response = sign_in(client)

    assert response.status_code == 302
    assert response["Location"] == "/"
    assert client.get("/").context["user"] == alice


def test_the_header_signs_out(client, alice) -> None:
    sign_in(client)

    response = client.post("/accounts/logout/")

    assert response["Location"] == "/accounts/login/"
    assert client.get("/")["Location"].startswith("/accounts/login/")


def test_a_wrong_password_is_refused_in_words(client, alice) -> None:
    response = sign_in(client, password="not-the-password")

    assert response.status_code == 200
    assert "not correct" in response.content.decode()
    assert not response.context["user"].is_authenticated


def test_with_totp_on_the_password_alone_does_not_sign_in(client, alice) -> None:
    secret = generate_totp_secret()
    TOTP.activate(alice, secret)

    response = sign_in(client)

    assert response["Location"] == "/accounts/2fa/authenticate/"
    assert client.get("/")["Location"].startswith("/accounts/login/")
    refused = client.post("/accounts/2fa/authenticate/", {"code": format_hotp_value(hotp_value(secret, 1))})  # 1970's
    assert refused.status_code == 200
    assert "Incorrect code" in refused.content.decode()
    assert client.post("/accounts/2fa/authenticate/", {"code": current_code(secret)})["Location"] == "/"
    assert client.get("/").status_code == 200


def test_a_recovery_code_stands_in_for_the_authenticator_once(client, alice) -> None:
    TOTP.activate(alice, generate_totp_secret())
    code = RecoveryCodes.activate(alice).get_unused_codes()[0]

    sign_in(client)
    assert client.post("/accounts/2fa/authenticate/", {"code": code})["Location"] == "/"

    client.logout()
    sign_in(client)
    assert client.post("/accounts/2fa/authenticate/", {"code": code}).status_code == 200  # used: asked again


def test_the_admin_sign_in_lets_no_account_with_a_second_factor_in_on_its_password(client, staff) -> None:
    TOTP.activate(staff, generate_totp_secret())

    response = client.post("/admin/login/?next=/admin/", {"username": "staff", "password": "pw-staff-123"})

    assert response.status_code == 200
    assert "This account has two-factor authentication: sign in at /accounts/login/" in response.content.decode()
    assert not response.context["user"].is_authenticated


def test_the_admin_sign_in_is_as_it_was_for_an_account_without_one(client, staff) -> None:
    response = client.post("/admin/login/?next=/admin/", {"username": "staff", "password": "pw-staff-123"})

    assert response["Location"] == "/admin/"


def test_nobody_signs_up_with_a_password(client, db) -> None:
    response = client.post(
        "/accounts/signup/", {"username": "mallory", "email": "m@example.com", "password1": "Zx9!long-enough"}
    )

    assert "Sign Up Closed" in response.content.decode()
    assert not get_user_model().objects.filter(username="mallory").exists()


def test_the_local_browser_is_still_signed_in_as_the_local_user(client, settings, alice) -> None:
    settings.TEOREMA_LOCAL_USER = "alice"

    response = client.get("/", REMOTE_ADDR="127.0.0.1")

    assert response.status_code == 200
    assert response.context["user"] == alice


@pytest.mark.parametrize("address", ["10.0.0.7", "192.168.1.20"])
def test_a_browser_elsewhere_is_not_signed_in_as_the_local_user(client, settings, alice, address: str) -> None:
    settings.TEOREMA_LOCAL_USER = "alice"

    response = client.get("/", REMOTE_ADDR=address)

    assert response["Location"].startswith("/accounts/login/")


def test_the_two_factor_pages_are_in_teoremas_frame(client, alice) -> None:
    sign_in(client)

    index = client.get("/accounts/2fa/").content.decode()
    asked = client.get("/accounts/2fa/totp/activate/", follow=True)  # allauth asks the password again first
    client.post(asked.redirect_chain[-1][0], {"password": PASSWORD})
    activate = client.get("/accounts/2fa/totp/activate/").content.decode()

    assert '<main class="account">' in index
    assert '<main class="account">' in asked.content.decode()
    assert 'src="data:image/svg+xml' in activate  # the QR code: the CSP allows data: images
