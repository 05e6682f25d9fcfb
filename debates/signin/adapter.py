"""Who may sign up, and where a new user goes: allauth asks these adapters."""

from allauth.account.adapter import DefaultAccountAdapter
from allauth.socialaccount.adapter import DefaultSocialAccountAdapter
from allauth.socialaccount.models import SocialLogin
from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import Group
from django.core.exceptions import ImproperlyConfigured
from django.forms import Form
from django.http import HttpRequest


class AccountAdapter(DefaultAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest) -> bool:
        """Closed: every question spends money, so a local account is made by the admin."""
        return False


class SocialAccountAdapter(DefaultSocialAccountAdapter):
    def is_open_for_signup(self, request: HttpRequest, sociallogin: SocialLogin) -> bool:
        """Open: a provider the operator configured vouches for everyone it signs in."""
        return True

    def save_user(self, request: HttpRequest, sociallogin: SocialLogin, form: Form | None = None) -> AbstractBaseUser:
        """The new user, in TEOREMA_SSO_GROUP when one is named."""
        user = super().save_user(request, sociallogin, form)
        if settings.TEOREMA_SSO_GROUP:
            user.groups.add(sso_group())
        return user


def sso_group() -> Group:
    """The group TEOREMA_SSO_GROUP names; a configuration error when no group has that name."""
    name = settings.TEOREMA_SSO_GROUP
    group = Group.objects.filter(name=name).first()
    if group is None:
        raise ImproperlyConfigured(missing_group(name))
    return group


def missing_group(name: str) -> str:
    return (
        f"TEOREMA_SSO_GROUP={name!r} names no group: create it in the admin "
        "(Authentication and Authorization › Groups), or name one that exists."
    )
