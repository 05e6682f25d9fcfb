"""Recording whether a verdict turned out right: one rule for the page, the API and the CLI.

The asker or staff judge a finished verdict right, wrong or partly, with an optional note;
judging again replaces the judgement. Two other outcomes need no one to mark them and are read
where they are stored (track.reading): a person's decision on a vote that needed review, and a
claim that SymPy's verified facts contradict.
"""

from dataclasses import dataclass

from django import forms
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.utils import timezone

from debates.lib.readable import ReadableForm
from debates.models import Held, Question, Status, VerdictOutcome
from debates.refusal import Kind, Refused

JUDGEABLE = frozenset({Status.DONE, Status.ANSWERED})
VALUES = tuple(Held)
NO_VERDICT: dict[str, str] = {Status.FAILED: "the run failed", Status.CANCELLED: "the debate was cancelled"}


def refusal(question: Question, user: AbstractBaseUser | AnonymousUser | None) -> Refused | None:
    """Why ``user`` may not judge this question's verdict now (None: they may; no user: the CLI)."""
    if user is not None and not question.can_act(user):
        return Refused("Only the asker of this question, or staff, may judge its verdict.", Kind.FORBIDDEN)
    if not question.is_finished:
        return Refused("The debate has not finished yet: judge its verdict once it is in.", Kind.CONFLICT)
    if question.status == Status.NEEDS_REVIEW:
        return Refused(
            "The panel reached no verdict: a person decides first (a human review), then judge it.", Kind.CONFLICT
        )
    if question.status not in JUDGEABLE or not question.verdict:
        why = NO_VERDICT.get(question.status, "the moderator wrote none")
        return Refused(f"This question has no verdict to judge: {why}.", Kind.CONFLICT)
    return None


class OutcomeForm(ReadableForm):
    """A judgement as it was typed, so that a refused one is shown again with its note."""

    outcome = forms.CharField(required=False, strip=False)
    note = forms.CharField(required=False, strip=False)

    def clean_outcome(self) -> str:
        value = self.cleaned_data["outcome"]
        if value not in VALUES:
            shown = repr(value) if value else "nothing"
            raise forms.ValidationError(f"The outcome must be right, wrong or partly, not {shown}.")
        return value

    def clean_note(self) -> str:
        note = self.cleaned_data["note"]
        if len(note) > VerdictOutcome.MAX_NOTE:
            raise forms.ValidationError(
                f"The note is {len(note):,} characters long: at most {VerdictOutcome.MAX_NOTE:,} are kept."
            )
        return note.strip()


def mark(
    question: Question, user: AbstractBaseUser | AnonymousUser | None, value: str, note: str = ""
) -> VerdictOutcome:
    """Record (or change) the outcome of ``question``'s verdict; ``Refused`` says why it was not."""
    return record(question, user, OutcomeForm({"outcome": value, "note": note}))


def record(question: Question, user: AbstractBaseUser | AnonymousUser | None, form: OutcomeForm) -> VerdictOutcome:
    """``mark`` with the judgement in a bound form, which keeps its errors for the page to show."""
    refused = refusal(question, user)
    if refused is not None:
        raise refused
    if not form.is_valid():
        field, errors = next(iter(form.errors.items()))
        raise Refused(str(errors[0]), fields={field: [str(errors[0])]})
    outcome, _ = VerdictOutcome.objects.update_or_create(
        question=question,
        defaults={
            "value": form.cleaned_data["outcome"],
            "note": form.cleaned_data["note"],
            "marked_by": user if isinstance(user, get_user_model()) else None,
            "marked_at": timezone.now(),
        },
    )
    return outcome


@dataclass(frozen=True)
class Judging:
    """What the question page shows about the outcome: the current one, and whether to offer the form."""

    outcome: VerdictOutcome | None
    can_mark: bool
    choices: list[tuple[str, str]]
    max_note: int = VerdictOutcome.MAX_NOTE


def judging(question: Question, user: AbstractBaseUser | AnonymousUser) -> Judging:
    outcome = VerdictOutcome.objects.filter(question=question).select_related("marked_by").first()
    return Judging(outcome, refusal(question, user) is None, Held.choices())


def as_dict(outcome: VerdictOutcome) -> dict:
    """An outcome as the API returns it."""
    return {
        "question": outcome.question_id,
        "outcome": outcome.value,
        "note": outcome.note,
        "marked_by": outcome.marked_by.get_username() if outcome.marked_by else None,
        "marked_at": outcome.marked_at.isoformat(),
    }
