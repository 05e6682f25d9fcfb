"""Teorema's jargon, explained where it appears: each term is a button that shows its one-line meaning.

``{% term "criticality" %}`` draws a term (``{% term "heterogeneity" "Heterogeneity" %}`` with
other words); ``{{ text|explain }}`` does it for every term in a text, escaped first. The meaning
is in the button's title (hover) and data (a tap or a key opens it in the text: teorema.js), so it
works on touch, and the reader's text stays the words it was.
"""

import re

from django import template
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

register = template.Library()

TERMS = {
    "criticality": "How much is at stake: it sets the agreement the panel must reach "
    "(low 2/3, medium 3/4, high 4/5, else a person reviews it).",
    "heterogeneity": "How different the panel's models are: models of different families make different "
    "mistakes, so their agreement means more than one model agreeing with itself.",
    "diversity illusion": "One model asked several times, even with different methods, agrees with itself: "
    "it looks like several opinions but is one.",
    "confidence theatre": "A confidence figure with no way to be proven wrong (no falsification condition): "
    "a number that commits to nothing.",
    "sycophancy": "Giving in to the others (agreeing or changing position) without a reason of substance.",
}
MENTIONED = re.compile(r"\b(" + "|".join(map(re.escape, TERMS)) + r")\b", re.IGNORECASE)


def _button(meaning: str, words: str) -> SafeString:
    return format_html(
        '<button type="button" class="term" aria-expanded="false" title="{0}" data-term="{0}">{1}</button>',
        meaning,
        words,
    )


@register.simple_tag
def term(name: str, words: str = "") -> SafeString:
    """The term ``name`` (or ``words``), with its meaning a tap away."""
    return _button(TERMS[name], words or name)


@register.filter
def explain(text: str) -> SafeString:
    """A text with each term it mentions explained; the text is escaped before anything is added."""
    escaped = conditional_escape(text)
    # Terms are plain words: a match in escaped text can never fall inside an entity or a tag.
    return mark_safe(MENTIONED.sub(lambda m: _button(TERMS[m[0].casefold()], m[0]), escaped))
