"""Admin forms: a write-only provider key, exactly one default panel, the human decision, and the
guided setup's steps (a listed model as a panelist, a panelist seated on a panel)."""

import json
from typing import Any
from urllib.parse import urlsplit

from django import forms
from django.db import transaction
from django.db.models import Max, Q
from django.utils.text import slugify

from debates.engine.vocabulary import Protocol
from debates.forms import OptionsField
from debates.models import ZERO, Membership, Panel, Panelist, Provider
from debates.providers.catalog import family
from debates.providers.presets import PRESETS, Wire, search_preset


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
            *("name", "preset", "wire", "base_url", "command", "api_key_env", "connect_timeout", "stall_timeout"),
            *("total_timeout", "max_retries", "enabled"),
        ]
        labels = {"api_key_env": "Key from environment variable", "base_url": "Base URL"}

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
        if self.embedded():
            for name in ("api_key", "api_key_env"):
                if data.get(name):
                    self.add_error(
                        name,
                        "The embedded model runs inside Teorema and takes no key: leave this blank "
                        "(a key given here would never be used).",
                    )
        moved = self.moved_host()
        if moved and not data.get("api_key") and not data.get("clear_key"):
            self.add_error(
                "api_key",
                f"The base URL now points at another host ({moved}): enter the key again, or clear the "
                "stored one, so that a key is never sent to a host it was not given for.",
            )
        return data

    def embedded(self) -> bool:
        """The embedded model's wire, given or filled in by the preset (as Provider.clean fills it)."""
        preset = PRESETS.get(self.cleaned_data.get("preset") or "")
        return (self.cleaned_data.get("wire") or (preset.wire if preset else "")) == Wire.LOCAL

    def moved_host(self) -> str:
        """“old → new” when a stored key would go to another scheme, host or port than before; else "".

        Another path on the same host (``/v1`` to ``/v1beta``) is the same server: its key stays.
        """
        if self.instance.pk is None or not self.instance.api_key_encrypted or "base_url" not in self.cleaned_data:
            return ""
        preset = PRESETS.get(self.cleaned_data.get("preset") or "")
        new = self.cleaned_data["base_url"] or (preset.base_url if preset else "")  # as Provider.clean fills it
        old = self.instance.base_url
        return "" if origin(old) == origin(new) else f"{origin(old) or 'none'} → {origin(new) or 'none'}"

    def save(self, commit: bool = True) -> Provider:
        provider = super().save(commit=False)
        if self.cleaned_data["clear_key"]:
            provider.set_api_key("")
        elif self.cleaned_data["api_key"]:
            provider.set_api_key(self.cleaned_data["api_key"])
        if commit:
            provider.save()
        return provider


def origin(url: str) -> str:
    """Where a URL's requests go: scheme, host and port (the default port spelled out)."""
    parts = urlsplit(url)
    if not parts.hostname:
        return ""
    try:
        port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:  # a port that is not a number: no origin to compare
        return url
    return f"{parts.scheme}://{parts.hostname}:{port}"


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
            *("default_criticality", "options", "debate", "judge", "facilitator_brief", "deadline", "forbid_search"),
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


PRICES = ("price_in", "price_out", "price_search")


class PanelistFromModelForm(forms.ModelForm):
    """A panelist on a model the provider lists: the name and family come prefilled, prices are optional."""

    class Meta:
        model = Panelist
        fields = ["model", "name", "family", "method", "price_in", "price_out", "search", "price_search"]
        widgets = {"model": forms.TextInput(attrs={"readonly": True})}

    def __init__(self, *args: Any, provider: Provider, listed: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.provider, self.listed = provider, listed
        self.instance.provider = provider  # the model's clean reads it: whether it can search
        model = self.initial.get("model", "")
        self.initial.update(name=f"{model} ({provider.name})"[:80], family=family(model))
        for price in PRICES:
            self.fields[price].required = False
            self.fields[price].help_text = "Optional: it makes the cost shown before asking right."
        searching = search_preset(provider.preset, provider.wire, provider.base_url)
        if searching is None:  # nothing to offer: the model's clean would refuse it
            del self.fields["search"], self.fields["price_search"]
        else:
            self.initial["price_search"] = searching.search_price  # the provider's published price, to check
            self.fields[
                "price_search"
            ].help_text = (
                f"{searching.label} bills its web searches (see docs/sources.md): this is its published price."
            )

    def clean_model(self) -> str:
        model = self.cleaned_data["model"]
        if model not in self.listed:
            raise forms.ValidationError(self.not_listed(model))
        return model

    def not_listed(self, model: str) -> str:
        return f"{self.provider.name} does not list a model “{model}”: pick one from its list."

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        if Panelist.objects.filter(name=name).exists():
            raise forms.ValidationError(f"There is already a panelist named “{name}”: give this one another name.")
        return name

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        for price in PRICES:
            if price in self.fields and data.get(price) is None and price not in self.errors:
                data[price] = ZERO
        return data


def seat(panelist: Panelist, panel: Panel) -> Membership:
    """``panelist`` at the end of ``panel``'s roster."""
    last = panel.memberships.aggregate(last=Max("position"))["last"]
    return Membership.objects.create(panel=panel, panelist=panelist, position=0 if last is None else last + 1)


class SeatForm(forms.Form):
    """Seat a panelist at the end of an existing panel's roster."""

    panel = forms.ModelChoiceField(
        queryset=Panel.objects.all(),
        to_field_name="slug",
        empty_label=None,
        error_messages={"invalid_choice": "There is no panel “%(value)s”: pick one from the list."},
    )

    def __init__(self, *args: Any, panelist: Panelist, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.panelist = panelist

    def clean_panel(self) -> Panel:
        panel: Panel = self.cleaned_data["panel"]
        if panel.memberships.filter(panelist=self.panelist).exists():
            raise forms.ValidationError(f"{self.panelist.name} already sits on the panel “{panel.name}”.")
        return panel

    def save(self) -> Panel:
        panel: Panel = self.cleaned_data["panel"]
        seat(self.panelist, panel)
        return panel


class NewPanelForm(forms.Form):
    """A new teorema panel with the panelist as its first voice and, until there are others, its moderator."""

    name = forms.CharField(label="New panel's name", max_length=80)

    def __init__(self, *args: Any, panelist: Panelist, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.panelist = panelist

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        slug = slugify(name)
        if not slug:
            raise forms.ValidationError("Give the panel a name with letters or digits in it.")
        if Panel.objects.filter(Q(name=name) | Q(slug=slug)).exists():
            raise forms.ValidationError(f"There is already a panel named “{name}”: pick it above, or another name.")
        return name

    @transaction.atomic
    def save(self) -> Panel:
        name = self.cleaned_data["name"]
        panel = Panel.objects.create(
            name=name,
            slug=slugify(name),
            protocol=Protocol.TEOREMA,
            moderator=self.panelist,
            is_default=not Panel.objects.exists(),  # the first panel is the default: there must be one
        )
        seat(self.panelist, panel)
        return panel
