"""The palette of teorema.css meets WCAG AA in both schemes: each colour is ``light-dark(light, dark)``
in :root, and every pair the stylesheet puts text (or a control's outline) on is checked here."""

import re
from pathlib import Path

import pytest

CSS = Path(__file__).resolve().parents[1] / "static" / "teorema" / "teorema.css"
TEXT = 4.5  # body text, and the small bold text of badges and buttons
UI = 3.0  # large text and the outline of a control
PAIRS = [
    ("ink", "bg", TEXT, "body text"),
    ("ink", "surface", TEXT, "text on cards and forms"),
    ("ink", "accent-soft", TEXT, "messages and notices"),
    ("muted", "bg", TEXT, "hints and secondary text"),
    ("muted", "surface", TEXT, "hints on cards"),
    ("muted", "line", TEXT, "a plain badge"),
    ("accent", "bg", TEXT, "links"),
    ("accent", "surface", TEXT, "links on cards"),
    ("accent", "accent-soft", TEXT, "chips"),
    ("on-accent", "accent", TEXT, "the primary button"),
    ("ok", "ok-soft", TEXT, "a done badge"),
    ("warn", "warn-soft", TEXT, "a warning notice or badge"),
    ("bad", "bad-soft", TEXT, "an error box or failed badge"),
    ("stream", "stream-soft", TEXT, "a running badge"),
    ("ok", "surface", TEXT, "agreement on a card"),
    ("warn", "surface", TEXT, "a reservation on a card"),
    ("bad", "surface", TEXT, "an error on a form"),
    ("stream", "surface", TEXT, "a defended claim"),
    ("ok", "bg", TEXT, "agreement on the page"),
    ("warn", "bg", TEXT, "a warning on the page"),
    ("bad", "bg", TEXT, "an error on the page"),
    ("field", "surface", UI, "the border of a form field"),
    ("field", "bg", UI, "the border of a form field on the page"),
]


def palette(scheme: str) -> dict[str, str]:
    """The colours of :root for ``scheme`` ("light" or "dark"), by custom property name."""
    root = re.search(r"^:root \{(.*?)^\}", CSS.read_text(), re.S | re.M)[1]
    pairs = re.findall(r"--([\w-]+):\s*light-dark\(\s*(#[0-9a-f]{6})\s*,\s*(#[0-9a-f]{6})\s*\)", root, re.I)
    return {name: light if scheme == "light" else dark for name, light, dark in pairs}


def luminance(hex_colour: str) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(int(hex_colour[i : i + 2], 16)) for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG 2 contrast ratio of two #rrggbb colours (1 to 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_the_contrast_formula_matches_wcags_reference_points():
    assert contrast("#000000", "#ffffff") == pytest.approx(21)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_both_schemes_define_every_colour_the_pairs_use():
    named = {name for fg, bg, *_ in PAIRS for name in (fg, bg)}
    for scheme in ("light", "dark"):
        assert named <= palette(scheme).keys()


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize(("fg", "bg", "minimum", "where"), PAIRS, ids=[f"{fg}-on-{bg}" for fg, bg, *_ in PAIRS])
def test_text_and_controls_meet_wcag_aa(scheme: str, fg: str, bg: str, minimum: float, where: str):
    colours = palette(scheme)
    ratio = contrast(colours[fg], colours[bg])
    assert ratio >= minimum, f"{where} ({scheme}): --{fg} on --{bg} is {ratio:.2f}:1, AA needs {minimum}:1"
