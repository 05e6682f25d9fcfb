"""Asking a question: one form behind the web page, the JSON API and the CLI.

Every check that can fail before money is spent happens here, in words the asker can act on:
an empty or oversized question, an unknown panel, a panel with a voice that cannot be called. A
refusal from below (the service's) is shown on the form it refuses the same way on every page
(``shown_on``).
"""

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.conf import settings
from django.db.models import QuerySet
from django.forms import Form

from debates.attachments import check as files
from debates.conversations import threads
from debates.engine.vocabulary import DebateMode
from debates.lib.readable import ReadableForm
from debates.models import (
    MAX_COST_CAP,
    MAX_DEADLINE,
    MIN_COST_CAP,
    MIN_DEADLINE,
    Criticality,
    Membership,
    Panel,
    Panelist,
    Protocol,
    Question,
    Source,
)
from debates.refusal import Kind, Refused
from debates.roster import panels
from debates.roster.readiness import judges_of, lineup_problems, preselected_slug

MAX_OPTIONS, MAX_OPTION_CHARS = 26, 200
# Voices picked for one question: a panel's labels run A to Z. Checked before any name is looked
# up, so that a list of a hundred thousand names costs nothing before its 400.
MAX_VOICES = 26


class Kept(forms.CheckboxInput):
    """A checkbox whose absence is no answer: a client that leaves it out keeps the field's default
    (the page sends "false" before it, so that unticked says off)."""

    def value_from_datadict(self, data: Any, files: Any, name: str) -> Any:
        return super().value_from_datadict(data, files, name) if name in data else None


class OnUnlessOff(forms.BooleanField):
    """A switch that is on unless the asker turns it off (``false``, ``0``, or unticked on the page)."""

    widget = Kept

    def to_python(self, value: Any) -> bool:
        return True if value is None else super().to_python(value)


class OptionsField(forms.Field):
    """A list of decisions edited as one per line."""

    widget = forms.Textarea(attrs={"rows": 3, "cols": 60})

    def prepare_value(self, value: object) -> object:
        return "\n".join(value) if isinstance(value, list) else value

    def to_python(self, value: object) -> list[str]:
        """One per line from a form; a JSON list of strings from the API."""
        if isinstance(value, list | tuple):
            if not all(isinstance(item, str) for item in value):
                raise forms.ValidationError("Options must be a list of strings.")
            lines = [item.strip() for item in value]
        elif value is None or isinstance(value, str):
            lines = [line.strip() for line in (value or "").splitlines()]
        else:
            raise forms.ValidationError("Options must be a list of strings, or one option per line.")
        options = [line for line in lines if line]
        if len({o.casefold() for o in options}) < len(options):
            raise forms.ValidationError("An option is listed twice.")
        if len(options) == 1:
            raise forms.ValidationError("Give at least two options, or none.")
        if any(len(option) > MAX_OPTION_CHARS for option in options) or len(options) > MAX_OPTIONS:
            raise forms.ValidationError(f"At most {MAX_OPTIONS} options of at most {MAX_OPTION_CHARS} characters each.")
        return options


# The panelists an asker may pick for one question (and as its moderator).
ENABLED_VOICES = Panelist.objects.filter(enabled=True).select_related("provider")


def in_asked_order(picked: list[Panelist], data: Any) -> list[Panelist]:
    """The picked voices in the order the asker gave them (their seats), not the database's."""
    asked = data.getlist("voices") if hasattr(data, "getlist") else list(data.get("voices") or [])
    return sorted(picked, key=lambda p: asked.index(p.name) if p.name in asked else len(asked))


def voice_label(panelist: Panelist) -> str:
    return f"{panelist.name} — {panelist.model} ({panelist.family}) · {panelist.provider.name}"


class PanelField(forms.ModelChoiceField):
    """A panel by slug, as it is now (debates.roster.panels: no query while the roster is unchanged);
    refusing an unknown one lists the panels, looked up only then."""

    def to_python(self, value: Any) -> Panel | None:
        if value in self.empty_values:
            return None
        panel = panels.by_slug(value.slug if isinstance(value, Panel) else str(value))
        if panel is None:
            slugs = ", ".join(Panel.objects.listed().order_by("slug").values_list("slug", flat=True)) or "none yet"
            message = f"{self.error_messages['invalid_choice']} The panels: {slugs}."
            raise forms.ValidationError(message, code="invalid_choice", params={"value": value})
        return panel


class VoicesField(forms.ModelMultipleChoiceField):
    def clean(self, value: Any) -> Any:
        if value in self.empty_values and not self.required:
            return []  # none picked: not the empty queryset, whose every reading compiles a query
        if isinstance(value, list | tuple) and len(value) > MAX_VOICES:
            raise forms.ValidationError(f"Pick at most {MAX_VOICES} voices: {len(value):,} were given.")
        return super().clean(value)

    def label_from_instance(self, obj: Panelist) -> str:
        return voice_label(obj)


class VoiceField(forms.ModelChoiceField):
    def label_from_instance(self, obj: Panelist) -> str:
        return voice_label(obj)


@dataclass(frozen=True)
class AdHoc:
    """Voices an asker picked for one question, on the chosen panel's settings (rounds, policy,
    criticality, tie-breaker), with their own protocol and moderator."""

    base: Panel
    members: list[Panelist]
    protocol: Protocol
    moderator: Panelist

    def panel(self) -> Panel:
        """The hidden panel of this lineup (the same one each time it is picked again)."""
        key = f"{self.base.pk}|{self.protocol}|{self.moderator.pk}|{','.join(str(m.pk) for m in self.members)}"
        digest = hashlib.sha256(key.encode()).hexdigest()[:10]
        base = self.base
        same_protocol = base.protocol == self.protocol
        quorum = min(base.quorum, len(self.members)) if base.quorum else None
        panel, created = Panel.objects.get_or_create(
            slug=f"adhoc-{digest}",
            defaults={
                "name": f"Picked {digest[:4]}: {', '.join(m.name for m in self.members)}"[:80],
                "description": f"Voices picked for one question, on the settings of “{base.name}”.",
                "protocol": self.protocol,
                "moderator": self.moderator,
                "ad_hoc": True,
                "tie_breaker": base.tie_breaker,
                "fallback_moderator": base.fallback_moderator,
                "judge": base.judge,
                "facilitator_brief": base.facilitator_brief,
                "rounds": base.rounds if same_protocol else 0,
                "debate": base.debate,
                "merge_critique": base.merge_critique,
                "revote_on_dissent": base.revote_on_dissent,
                "failure_policy": base.failure_policy,
                "quorum": quorum,
                "default_criticality": base.default_criticality,
                "options": base.options,
                "deadline": base.deadline,
            },
        )
        if created:
            Membership.objects.bulk_create(
                Membership(panel=panel, panelist=member, position=i) for i, member in enumerate(self.members)
            )
        return panel


class AskForm(ReadableForm):
    # First, so that clean_panel knows it: a follow-up asks the panel of the question it follows.
    follow_up_of = forms.IntegerField(
        required=False,
        widget=forms.HiddenInput,
        error_messages={"invalid": "Give the number of the question to follow up."},
    )
    text = forms.CharField(
        label="Question",
        max_length=settings.TEOREMA["MAX_QUESTION_CHARS"],
        widget=forms.Textarea(attrs={"rows": 4, "data-focus-wide": True}),  # focused by teorema.js, wide screens only
        error_messages={
            "required": "Write a question: it is empty.",
            "max_length": "The question is too long: %(show_value)d characters, the limit is %(limit_value)d.",
        },
    )
    context = forms.CharField(
        label="Context (optional)",
        required=False,
        max_length=settings.TEOREMA["MAX_CONTEXT_CHARS"],
        widget=forms.Textarea(attrs={"rows": 3}),
        error_messages={
            "max_length": "The context is too long: %(show_value)d characters, the limit is %(limit_value)d."
        },
    )
    panel = PanelField(
        queryset=Panel.objects.all(),  # its choices; a chosen panel comes from debates.roster.panels
        to_field_name="slug",
        empty_label=None,
        required=False,  # the default panel when left out
        error_messages={"invalid_choice": "There is no panel “%(value)s”."},
    )
    criticality = forms.ChoiceField(
        choices=[("", "The panel's default"), *Criticality.choices()],
        required=False,
        error_messages={"invalid_choice": "“%(value)s” is not a criticality: use low, medium or high."},
    )
    voices = VoicesField(
        queryset=ENABLED_VOICES,
        to_field_name="name",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        label="Voices for this question",
        error_messages={"invalid_choice": "There is no enabled panelist “%(value)s”."},
    )
    protocol = forms.ChoiceField(
        choices=[("", "The panel's protocol"), *Protocol.choices()],
        required=False,
        error_messages={"invalid_choice": "“%(value)s” is not a protocol: use teorema, adversarial or vote."},
    )
    moderator = VoiceField(
        queryset=ENABLED_VOICES,
        to_field_name="name",
        required=False,
        empty_label="The panel's moderator",
        error_messages={"invalid_choice": "There is no enabled panelist “%(value)s” to moderate."},
    )
    force_panel = forms.BooleanField(label="Always run the full panel", required=False)
    search = OnUnlessOff(
        label="Let voices search the web",
        required=False,
        initial=True,
        help_text="Voices whose panelist may search do so with their provider's own search tool, and cite what "
        "they found (each search is billed). Off: every answer rests on what the models know.",
    )
    debate = forms.ChoiceField(
        choices=[("", "The panel's setting"), *DebateMode.choices()],
        required=False,
        help_text="Teorema and adversarial: “only where the panel splits” skips the debate when a mixed "
        "panel's blind answers agree (fewer calls), and otherwise debates only the claims not shared.",
        error_messages={"invalid_choice": "“%(value)s” is not a debate setting: use always or on_dissent."},
    )
    deadline = forms.IntegerField(
        label="Answer within (seconds)",
        required=False,
        min_value=MIN_DEADLINE,
        max_value=MAX_DEADLINE,
        widget=forms.NumberInput(attrs={"placeholder": "no deadline", "step": 10}),
        help_text="Voices still running when the panel's share of the time is up are stopped and disclosed; "
        "the synthesis starts in time to finish before it. Empty: the panel's deadline, if any.",
        error_messages={
            "invalid": "Give the deadline as a whole number of seconds.",
            "min_value": "A deadline under %(limit_value)s seconds leaves no time for a panel to answer.",
            "max_value": "A deadline is at most %(limit_value)s seconds (an hour).",
        },
    )
    max_cost = forms.DecimalField(
        label="Spend at most (USD)",
        required=False,
        min_value=MIN_COST_CAP,
        max_value=MAX_COST_CAP,
        max_digits=8,
        decimal_places=2,
        widget=forms.NumberInput(attrs={"placeholder": "no cap", "step": "0.01"}),
        help_text="Refused when the run is expected to cost more; a run that spends faster than expected stops "
        "before the round that would pass it, and its synthesis is written from the rounds it has. Empty: only "
        "the budgets limit it.",
        error_messages={
            "invalid": "Give the cost cap in dollars, as a number such as 0.50.",
            "min_value": "A cost cap is at least $%(limit_value)s: leave it empty for no cap.",
            "max_value": "A cost cap is at most $%(limit_value)s: leave it empty for no cap.",
            "max_decimal_places": "Give the cost cap in dollars and cents (at most %(max)s decimals).",
            "max_digits": "A cost cap is at most $1000: leave it empty for no cap.",
            "max_whole_digits": "A cost cap is at most $1000: leave it empty for no cap.",
        },
    )
    options = OptionsField(
        label="Options (vote protocol, optional)",
        required=False,
        help_text="One per line: voters must pick one verbatim, so agreement is exact. Empty: the panel's "
        "options, or free decisions.",
    )

    def __init__(self, *args, followable: QuerySet[Question] | None = None, **kwargs) -> None:
        """``followable``: the questions this asker may follow up (none unless the caller says)."""
        super().__init__(*args, **kwargs)
        self.followable = Question.objects.none() if followable is None else followable
        self.lineup: AdHoc | None = None  # voices picked for this question, once clean() has run
        self.fields["panel"].initial = preselected_slug  # a callable: a submitted form never shows it

    def clean_follow_up_of(self) -> Question | None:
        number = self.cleaned_data["follow_up_of"]
        if number is None:
            return None
        parent = (
            self.followable.select_related("panel__moderator__provider", "panel__tie_breaker__provider")
            .filter(pk=number)
            .first()
        )
        if parent is None:
            raise forms.ValidationError(f"There is no question {number} that you can see.")
        if why := threads.refusal(parent):
            raise forms.ValidationError(why)
        return parent

    def clean_panel(self) -> Panel:
        parent = self.cleaned_data.get("follow_up_of")
        panel = self.cleaned_data["panel"] or (parent and parent.panel) or panels.default()
        if panel is None:
            raise forms.ValidationError("No default panel is set up yet: an admin has to mark one as the default.")
        return panel

    def clean(self) -> dict[str, Any]:
        """The voices that will run: the panel's, or those picked for this question (with its
        protocol and moderator), which must be able to run now."""
        super().clean()
        data = self.cleaned_data
        panel = data.get("panel")
        if panel is None:
            return data
        picked = in_asked_order(list(data.get("voices") or []), self.data)
        protocol = data.get("protocol") or panel.protocol
        moderator = data.get("moderator") or panel.moderator
        if picked or protocol != panel.protocol or moderator != panel.moderator:
            if len(picked) == 1:
                self.add_error("voices", "Pick at least two voices: one voice is not a panel.")
                return data
            self.lineup = AdHoc(panel, picked or panel.roster(), Protocol(protocol), moderator)
            judges = [moderator, *([panel.judge] if panel.judge else [])]  # the picked lineup keeps the panel's judge
            members, field = self.lineup.members, "voices" if picked else "moderator"
        else:
            members, judges, field = panel.roster(), judges_of(panel), "panel"
        if found := lineup_problems(members, judges):
            what = "These voices" if field != "panel" else f"The panel “{panel.name}”"
            self.add_error(field, f"{what} cannot run: {'; '.join(found)}.")
        return data

    def save(self, owner, reask_of: Question | None = None, source: str = Source.PAGE, **stored: Any) -> Question:
        """Create the question (not yet running: runs.tasks.submit starts it); ``source``: where it was asked;
        ``stored``: what its channel sets besides the form (service.submit)."""
        data = self.cleaned_data
        parent = data["follow_up_of"]
        panel = self.lineup.panel() if self.lineup else data["panel"]
        return Question.objects.create(
            parent=parent,
            root_id=(parent.root_id or parent.pk) if parent else None,
            reask_of=reask_of,
            owner=owner,
            panel=panel,
            text=data["text"],
            context=data["context"],
            criticality=data["criticality"] or panel.default_criticality,
            force_panel=data["force_panel"],
            search=data["search"],
            options=data["options"],
            debate=data["debate"],
            deadline=data["deadline"],
            max_cost=data["max_cost"],
            source=source,
            **stored,
        )


def shown_on(form: Form, refused: Refused, uploads: Sequence[files.Upload] = ()) -> int:
    """A refusal shown on the form it refuses: the form's own errors, what is wrong with its files,
    else the refusal's words at its top, and the files sent that must be attached again; the HTTP
    status to answer with."""
    outside = [word for name, words in refused.fields.items() if name not in form.fields for word in words]
    for word in outside:
        form.add_error(None, word)
    if refused.kind != Kind.INVALID and not outside:
        form.add_error(None, refused.message)
    if again := attach_again(uploads, refused.fields.get(files.FIELD, [])):
        form.add_error(None, again)
    return refused.status


def attach_again(uploads: Sequence[files.Upload], problems: list[str]) -> str:
    """A form comes back without its files (no browser keeps them), so the ones not refused are named."""
    refused = [u for u in uploads for problem in problems if problem.startswith((f"{u.name} ", f"“{u.name}”"))]
    kept = [u.name for u in uploads if u not in refused]
    if not kept:
        return ""
    return f"Files are not kept on a form sent back: attach {', '.join(kept)} again."
