"""Template filters of the viewer: sanitised markdown, durations in words, synthesis sections."""

from datetime import timedelta

from django import template
from django.utils.safestring import SafeString

from debates import render
from debates.models import Method

register = template.Library()


@register.filter
def markdown(text: str) -> SafeString:
    """Untrusted model text → sanitised HTML (see debates/render.py)."""
    return render.markdown(text)


@register.filter
def seconds(value: int | float | timedelta | None) -> str:
    """Milliseconds (a number) or a duration as "4.2 s" / "3 min 12 s"."""
    if value is None:
        return ""
    total = value.total_seconds() if isinstance(value, timedelta) else value / 1000
    if total < 60:
        return f"{total:.1f} s"
    return f"{int(total // 60)} min {int(total % 60)} s"


@register.filter
def method_label(value: str) -> str:
    """The method's label ("first_principles" is "First principles"); unknown values as they are."""
    return dict(Method.choices).get(value or "none", value)
