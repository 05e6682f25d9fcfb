"""The embedded model's mojibake is mended as it streams, wherever its tokens split it; clean text is left alone."""

import itertools

import pytest

from debates.providers.mojibake import Mend, unfinished

CLEAN = [
    "Don’t ship it on a Friday — really.",
    "Fuß… und Straße «ja».",
    "SÃO PAULO, à l’été, naïve café",
    "日本語の回答です。",
    "Привет, мир: 5 € or 3 £, 20 °C ± 2.",
    "Emoji 😀 and a plain 'quote'.",
]
# Each clean text as it reads when its UTF-8 bytes are taken for Windows-1252, as SmolLM2 writes it.
MANGLED = [
    ("It doesnâ€™t matter.", "It doesn’t matter."),
    ("a cafÃ© â€” at 5 â‚¬", "a café — at 5 €"),
    ("Ð¿Ñ€Ð¸Ð²ÐµÑ‚", "привет"),
    ("smile ðŸ˜€", "smile 😀"),
]


def streamed(text: str, cuts: list[int]) -> str:
    """The text given to Mend in the pieces between the cuts, and what it returned."""
    mend = Mend()
    bounds = [0, *cuts, len(text)]
    return "".join(mend(text[a:b]) for a, b in itertools.pairwise(bounds)) + mend.rest()


@pytest.mark.parametrize("text", CLEAN)
def test_clean_text_passes_unchanged_however_it_is_split(text: str) -> None:
    assert streamed(text, []) == text
    for cut in range(1, len(text)):
        assert streamed(text, [cut]) == text
    assert streamed(text, list(range(1, len(text)))) == text  # a character a piece


@pytest.mark.parametrize(("mangled", "meant"), MANGLED)
def test_mojibake_is_mended_however_its_characters_are_split(mangled: str, meant: str) -> None:
    assert streamed(mangled, []) == meant
    for cut in range(1, len(mangled)):
        assert streamed(mangled, [cut]) == meant
    assert streamed(mangled, list(range(1, len(mangled)))) == meant


def test_only_what_could_open_a_mangled_character_waits() -> None:
    assert unfinished("doesnâ") == 1  # "â" opens three bytes
    assert unfinished("doesnâ€") == 2
    assert unfinished("doesnâ€™") == 0  # complete: mended now
    assert unfinished("cafÃ") == 1
    assert unfinished("5 €") == 0  # a following byte with nothing to follow
    assert unfinished("plain text") == 0


def test_a_word_longer_than_the_wait_goes_out_before_its_end() -> None:
    mend = Mend()
    line = "-" * (Mend.WORD + 5)

    assert mend(line + "doesnâ") == line + "doesn"
    assert mend("€™t") + mend.rest() == "’t"
