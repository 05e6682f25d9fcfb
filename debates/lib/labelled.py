"""The enum base every vocabulary of Teorema shares (the engine's words, the presets, the
evaluations'): on the ground floor, so that the providers, the engine and the models all read it
without reaching into one another."""

from enum import StrEnum


class Labelled(StrEnum):
    """A StrEnum whose members also carry a human label: ``NAME = "value", "Label"``."""

    label: str

    # ``label`` has a default only so that a type checker accepts ``Method(value)``, the lookup by value.
    def __new__(cls, value: str, label: str = "") -> "Labelled":
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label or value
        return member

    @classmethod
    def choices(cls) -> list[tuple[str, str]]:
        """(value, label) pairs, in order, as a model field's or a form's ``choices``."""
        return [(member.value, member.label) for member in cls]
