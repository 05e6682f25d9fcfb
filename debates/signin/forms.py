"""The sign-in form: allauth's, its username field keeping the id Django's own form gave it."""

from allauth.account.forms import LoginForm as AllauthLoginForm


class LoginForm(AllauthLoginForm):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # The page said id_username before allauth: scripts and tests that fill it keep working.
        self.fields["login"].widget.attrs["id"] = "id_username"
