"""Template tags of the track record: what the question page shows about a verdict's outcome."""

from django import template
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from debates.models import Question
from debates.track import outcomes

register = template.Library()


@register.simple_tag
def judging(question: Question, user: AbstractBaseUser | AnonymousUser) -> outcomes.Judging:
    """The verdict's recorded outcome, and whether this user may judge it now."""
    return outcomes.judging(question, user)
