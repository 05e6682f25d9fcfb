"""Text that comes in must be text: no NUL and no lone UTF-16 surrogate, in any field of any form.

JSON may carry ``"\\ud800"`` (half of a character) and a form ``%00``; neither can be stored
(SQLite and PostgreSQL refuse a surrogate when they encode it, PostgreSQL a NUL), and a
refusal that echoes one cannot even be drawn as a page. So every form that takes text from
a person (the ask form behind the page, a follow-up, the API, Telegram and ``manage.py ask``,
the outcome form, the share form) refuses such a value first, before any field reads it and
before a rate-limit slot is spent.
"""

import copy
import re
from typing import Any

from django import forms
from django.forms.utils import ErrorDict

UNREADABLE = re.compile("[\x00\ud800-\udfff]")


def unreadable(value: object) -> str | None:
    """Why ``value`` (a string, or a list of them) cannot be taken, in words; None when it can."""
    for item in value if isinstance(value, list | tuple) else [value]:
        found = UNREADABLE.search(item) if isinstance(item, str) else None
        if found is None:
            continue
        if found.group() == "\x00":
            return "It holds a NUL character (\\x00), which is not text: remove it."
        return (
            f"It holds a lone UTF-16 surrogate (\\u{ord(found.group()):04x}), half of a character: "
            "send whole characters (UTF-8)."
        )
    return None


def shown(value: object) -> object:
    """``value`` with what cannot be drawn replaced by U+FFFD, so a refused form can be shown again."""
    if isinstance(value, list | tuple):
        return [shown(item) for item in value]
    return UNREADABLE.sub("\ufffd", value) if isinstance(value, str) else value


class ReadableForm(forms.Form):
    """A form that refuses a NUL or a lone surrogate in any field before any field reads it:
    a lookup or a save with one fails deep inside the database driver (a 500), and a refusal
    quoting it (“There is no panel …”) cannot be encoded."""

    def full_clean(self) -> None:
        refused = {name: why for name in self.fields if (why := unreadable(self[name].data))} if self.is_bound else {}
        if not refused:
            super().full_clean()
            return
        data: Any = copy.copy(self.data)  # a QueryDict's copy is mutable
        for name in refused:
            key = self.add_prefix(name)
            if hasattr(data, "setlist"):
                data.setlist(key, shown(data.getlist(key)))
            else:
                data[key] = shown(data[key])
        self.data = data  # what is drawn again is only what can be drawn
        self._errors = ErrorDict(renderer=self.renderer)
        self.cleaned_data = {}
        for name, why in refused.items():
            self.add_error(name, why)
