"""Admin forms: a write-only provider key, exactly one default panel, the human decision."""

import json
from typing import Any

from django import forms

from debates.forms import OptionsField
from debates.models import Panel, Provider
from debates.presets import PRESETS


class ProviderForm(forms.ModelForm):
    """The key is write-only: never rendered back, kept when left blank, cleared on request."""

    api_key = forms.CharField(
        label="New API key",
        required=False,
        strip=True,
        widget=forms.PasswordInput(render_value=False, attrs={"autocomplete": "new-password"}),
        help_text="Stored encrypted. Leave blank to keep the current key.",
    )
    clear_key = forms.BooleanField(label="Clear the stored key", required=False)

    class Meta:
        model = Provider
        fields = [
            *("name", "preset", "wire", "base_url", "api_key_env", "connect_timeout", "stall_timeout"),
            *("total_timeout", "max_retries", "enabled"),
        ]
        labels = {"api_key_env": "Key from environment variable"}

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        # A preset fills the wire protocol and base URL when they are left blank (Provider.clean).
        self.fields["wire"].required = False
        presets = {key: {"wire": p.wire.value, "base_url": p.base_url} for key, p in PRESETS.items()}
        self.fields["preset"].widget.attrs["data-presets"] = json.dumps(presets)

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("api_key") and data.get("clear_key"):
            raise forms.ValidationError("Enter a new key or clear the stored one, not both.")
        return data

    def save(self, commit: bool = True) -> Provider:
        provider = super().save(commit=False)
        if self.cleaned_data["clear_key"]:
            provider.set_api_key("")
        elif self.cleaned_data["api_key"]:
            provider.set_api_key(self.cleaned_data["api_key"])
        if commit:
            provider.save()
        return provider


class PanelForm(forms.ModelForm):
    options = OptionsField(
        required=False,
        help_text="Vote: the decisions voters must choose from, one per line (verbatim). Empty: free decisions.",
    )

    class Meta:
        model = Panel
        fields = [
            *("name", "slug", "description", "protocol", "is_default", "moderator", "tie_breaker"),
            *("fallback_moderator", "rounds", "merge_critique", "revote_on_dissent", "failure_policy", "quorum"),
            *("default_criticality", "options"),
        ]

    def clean_is_default(self) -> bool:
        # Saving a default unmarks the others (Panel.save); here we refuse to leave none.
        is_default = self.cleaned_data["is_default"]
        others = Panel.objects.exclude(pk=self.instance.pk).filter(is_default=True)
        if not is_default and not others.exists():
            raise forms.ValidationError(
                "Exactly one panel is the default: keep this one, or mark another panel as default."
            )
        return is_default


class HumanDecisionForm(forms.Form):
    decision = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 6, "cols": 80}),
        help_text="What the reviewer decided, and why. Recorded with your name and the time.",
    )
