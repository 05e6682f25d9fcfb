"""The sign-in forms: allauth's on the sign-in page, and the admin's own, which leaves the second
factor to allauth's."""

from allauth.account.forms import LoginForm as AllauthLoginForm
from allauth.mfa.models import Authenticator
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.models import User
from django.core.exceptions import ValidationError


class LoginForm(AllauthLoginForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The page said id_username before allauth: scripts and tests that fill it keep working.
        self.fields["login"].widget.attrs["id"] = "id_username"


class AdminLoginForm(AdminAuthenticationForm):
    """Django's admin sign-in knows no second factor: an account that has one is sent to the sign-in
    page, which asks it, instead of being let in on its password alone."""

    def confirm_login_allowed(self, user: User) -> None:
        super().confirm_login_allowed(user)
        if Authenticator.objects.filter(user=user).exists():
            raise ValidationError(
                "This account has two-factor authentication: sign in at /accounts/login/, which asks for the code.",
                code="second_factor",
            )
