"""ReadSynthesis a moderator's synthesis: nothing it wrote is lost or shown twice, no verdict is invented.

The corpus (tests/corpus/syntheses/) holds moderator outputs in the shapes real models write:
numbered, translated, bold or setext headings, preambles, code with ``# comment`` lines,
closing blocks fenced, bold, translated, bulleted or forgotten, a truncated answer.
"""

import re
from pathlib import Path
from types import SimpleNamespace
from typing import NamedTuple

import pytest
from django.template.loader import render_to_string
from hypothesis import example, given, settings
from hypothesis import strategies as st

from debates.engine.reading.synthesis import ReadSynthesis, for_people, headline, read, role

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "syntheses"
TEOREMA = ("Consensus", "Disagreements", "Verdict")


class Expect(NamedTuple):
    headings: tuple[str, ...]
    verdict: str
    confidence: float | None
    closing: bool  # the closing block is taken out of the sections


EXPECTED = {
    "01-clean-teorema": Expect(TEOREMA, "Add two read replicas and route the reporting queries to them.", 0.75, True),
    "02-clean-adversarial": Expect(
        ("Agreement", "Conflicts", "Conclusion"), "Canberra is the capital of Australia.", 0.97, True
    ),
    "03-numbered-headings": Expect(
        ("1. Consensus", "2. Disagreements", "3. Verdict"),
        "Fix the queries first with select_related and prefetch_related, measure again, and only then consider "
        "caching the anonymous pages. Confidence: 0.8.",
        None,
        False,
    ),
    "04-headings-with-colons": Expect(
        TEOREMA, "Store timestamps in UTC and keep the user's zone per user, not per event.", None, False
    ),
    "05-bold-pseudo-headings": Expect(
        TEOREMA, "Rotate and revoke the key now and audit the usage log; do not rewrite history.", 0.9, True
    ),
    "06-bold-lead-ins": Expect(
        TEOREMA,
        "Give each test its own `tmp_path`, then run the suite 200 times to check that the failure is gone; "
        "if it is not, look at the mtime comparison next.",
        None,
        False,
    ),
    "07-setext": Expect(TEOREMA, "Keep SQLite, with WAL mode enabled.", 0.85, True),
    "08-italian": Expect(
        ("Consenso", "Disaccordi", "Verdetto"),
        "La proroga è possibile una sola altra volta; per il rinnovo serve la causale.",
        0.7,
        True,
    ),
    "09-spanish": Expect(
        ("Puntos de acuerdo", "Desacuerdos", "Veredicto"),
        "Poner un límite a la caché (lru_cache con maxsize=1024) y medir su utilidad.",
        0.8,
        True,
    ),
    "10-french": Expect(
        ("Points d'accord", "Désaccords", "Conclusion"),
        "Corrigez d'abord l'enregistrement AAAA et relancez le renouvellement ; passez à DNS-01 seulement si le "
        "problème revient.",
        None,
        False,
    ),
    "11-german": Expect(
        ("Konsens", "Meinungsverschiedenheiten", "Fazit"), "Die Wärmepumpe kann jetzt eingebaut werden.", 0.8, True
    ),
    "12-preamble": Expect(("", *TEOREMA), "Put the PDF rendering behind a Redis stream.", 0.7, True),
    "13-repeated-subheadings": Expect(
        TEOREMA,
        "Both causes may hold together; check whether connections stay open after the migration ends. Confidence 0.6.",
        None,
        False,
    ),
    "14-code-fence-comments": Expect(
        TEOREMA, "Set SHELL=/bin/bash in the crontab, or replace `source` with `.`; keep cron.", 0.9, True
    ),
    "15-no-verdict-section": Expect(("Consensus", "Disagreements"), "", None, False),
    "16-only-closing-block": Expect(("",), "Yes, the 2019 MacBook Pro can run macOS Sonoma.", 0.95, True),
    "17-json-fence-closing": Expect(
        TEOREMA, "Add type hints to the payments module and check them with mypy in CI.", 0.72, True
    ),
    "18-translated-closing-labels": Expect(
        ("Consenso", "Divergências", "Veredito"),
        "Pode rescindir com 120 dias de aviso prévio, sem indemnização.",
        0.8,
        True,
    ),
    "19-truncated": Expect(("Consensus", "Disagreements"), "", None, False),
    "20-echoes-instructions": Expect(
        ("", *TEOREMA),
        "Replace the nested quantifier `(\\s*)*` with `\\s*` and add a regression test.",
        0.93,
        True,
    ),
    "21-verdict-bullet-list": Expect(
        TEOREMA,
        "Upgrade the two third-party packages first; Run the test suite with `-W error::DeprecationWarning`; "
        "Upgrade Django once the suite is clean",
        None,
        False,
    ),
    "22-operational-verdict": Expect(
        ("Points of agreement", "Open conflicts", "Operational verdict"),
        "Set the application's keep-alive below the load balancer's idle timeout (for example 55 s). "
        "Confidence: high; this is the documented failure mode.",
        None,
        False,
    ),
    "23-verdict-in-heading": Expect(
        ("Consensus", "Disagreements", "Verdict: Approve the migration, in two phases"),
        "Approve the migration, in two phases",
        None,
        False,
    ),
    "24-closing-under-verdict-heading": Expect(
        TEOREMA, "Use the Raspberry Pi 4 with 4 GB, booting from an SSD.", 0.8, True
    ),
    "25-trailing-chatter": Expect(
        TEOREMA, "Use Decimal for money end to end and round once, with ROUND_HALF_UP.", 0.95, True
    ),
    "26-yaml-fence-lowercase": Expect(TEOREMA, "Upgrade setuptools to 69 or later.", 0.8, True),
    "27-h1-title-bulleted-closing": Expect(
        ("Synthesis: should the team adopt a monorepo?", *TEOREMA),
        "Move the API client and server into one repository first; measure CI before the rest.",
        0.55,
        True,
    ),
    "28-multiline-verdict-value": Expect(
        TEOREMA,
        "Email a signed link to the report instead of attaching it, with links that expire after 30 days.",
        0.8,
        True,
    ),
    "29-plain-verdict-line": Expect(
        TEOREMA, "Reuse one HTTP client with a connection pool of 50, created at startup.", None, False
    ),
    "30-bold-sentence-not-heading": Expect(("",), "", None, False),
    "31-spanish-lead-ins": Expect(
        ("Acuerdo", "Desacuerdos", "Conclusión"),
        "use el método del resto mayor en el informe publicado y redondee solo al final en los cálculos internos.",
        None,
        False,
    ),
    "32-repeated-top-headings": Expect(
        ("Consensus", "Verdict", "Disagreements", "Verdict"),
        "Serve staging over HTTPS, as production is; do not relax the cookie flag.",
        None,
        False,
    ),
    "33-plain-fence-closing": Expect(
        ("Agreement", "Conflicts", "Conclusion"),
        "Roll back the email confirmation to after the first login.",
        0.8,
        True,
    ),
    "34-placeholder-only": Expect(
        TEOREMA,
        "Restore the branch from the reflog of the person who rebased, then force-push it once, with everyone warned.",
        None,
        False,
    ),
    "35-table-and-quote": Expect(TEOREMA, "Use managed PostgreSQL, with 35 days of backup retention.", 0.85, True),
}


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text)


def corpus_text(name: str) -> str:
    return (CORPUS / f"{name}.md").read_text(encoding="utf-8")


def assert_whole(text: str, reading: ReadSynthesis) -> None:
    """Every word of prose is shown once, in order; every body line is a line the moderator wrote.

    Prose is the text without the closing block (tried at each place its text occurs), or with the
    verdict in its place where the block was all its section said.
    """
    text = re.sub(r"\r\n?", "\n", text)  # read() gives lines ending in "\n"
    at = [m.start() for m in re.finditer(f"(?={re.escape(reading.closing)})", text)] if reading.closing else [0]
    fillers = ("", reading.verdict) if reading.closing else ("",)
    proses = [f"{text[:i]}\n{filler}\n{text[i + len(reading.closing) :]}" for i in at for filler in fillers]
    assert any(shows_whole(prose, reading) for prose in proses), reading


def shows_whole(prose: str, reading: ReadSynthesis) -> bool:
    shown = [w for heading, body in reading.sections for w in words(heading) + words(body)]
    if shown != words(prose):
        return False
    # Lines compared with their whitespace collapsed, as the verdict put in the block's place is
    # (a unit separator or a no-break space is whitespace to it); a line ends at "\n" only, as the
    # text was read (splitlines would also end one at a record separator, U+001E, and the like).
    written = iter(" ".join(line.split()) for line in prose.split("\n") if line.strip())
    body_lines = (
        " ".join(line.split()) for _heading, body in reading.sections for line in body.split("\n") if line.strip()
    )
    # each body line is, in order, a line of the prose (or its end, after a "**Verdict:**" lead-in)
    return all(any(line.endswith(body_line) for line in written) for body_line in body_lines)


def test_the_corpus_covers_at_least_25_syntheses_and_each_has_an_expectation():
    names = sorted(p.stem for p in CORPUS.glob("*.md"))
    assert len(names) >= 25
    assert names == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_nothing_the_moderator_wrote_is_lost_or_shown_twice(name):
    text = corpus_text(name)
    reading = read(text)
    assert_whole(text, reading)
    assert tuple(heading for heading, _body in reading.sections) == EXPECTED[name].headings


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_verdict_is_what_the_moderator_wrote_as_its_verdict_or_nothing(name):
    reading = read(corpus_text(name))
    assert (reading.verdict, reading.confidence) == (EXPECTED[name].verdict, EXPECTED[name].confidence)
    assert bool(reading.closing) == EXPECTED[name].closing
    assert "\n" not in reading.verdict
    assert len(reading.verdict) <= 400


@pytest.mark.parametrize("name", [n for n, e in EXPECTED.items() if e.closing])
def test_the_closing_block_is_never_shown_in_the_sections(name):
    reading = read(corpus_text(name))
    assert reading.sections, "the text around the closing block is shown"
    assert re.search(r"(?i)\b(?:verdict|confidence|verdetto|fiducia|urteil|veredito)\b", reading.closing)
    for _heading, body in reading.sections:
        assert not re.search(r"(?im)^\W*(VERDICT|CONFIDENCE|VERDETTO|FIDUCIA|URTEIL|VEREDITO)\W*:\s*[^<\s]", body)
        assert '"confidence"' not in body


def test_text_before_the_first_heading_is_kept_as_a_section_without_heading():
    reading = read("The panel was unanimous.\n\n## Verdict\nShip it.")
    assert reading.sections == (("", "The panel was unanimous."), ("Verdict", "Ship it."))


def test_a_repeated_heading_keeps_both_sections_in_order():
    reading = read("## Position\nA: replicas.\n\n## Position\nB: sharding.")
    assert reading.sections == (("Position", "A: replicas."), ("Position", "B: sharding."))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_synthesis_people_read_is_its_sections_without_a_line_a_program_reads(name):
    text = corpus_text(name)
    reading = read(text)
    shown = for_people(text)
    assert words(shown) == [w for heading, body in reading.sections for w in words(heading) + words(body)]
    assert not re.search(r"(?m)^\W*(?:VERDICT|CONFIDENCE|STANCES|VERDETTO|FIDUCIA|URTEIL|VEREDITO)\W*:\s*[^<\s]", shown)


def test_a_closing_block_that_was_all_its_section_said_leaves_the_verdict_there():
    closing = "VERDICT: Ship it on Monday.\nCONFIDENCE: 0.7\nSTANCES: A agrees"
    text = f"## Consensus\nAll three agree.\n\n## Verdict\n{closing}\n"
    assert read(text).sections[-1] == ("Verdict", "Ship it on Monday.")
    assert for_people(text) == "## Consensus\nAll three agree.\n\n## Verdict\nShip it on Monday."


def test_the_synthesis_people_read_names_each_revealed_panelist_beside_its_label():
    text = "Panelist A and Panelist B agree; Panelist C does not.\n\nVERDICT: Ship it.\nSTANCES: A agrees; C disagrees"
    names = {"Panelist A": "Gamma house", "Panelist C": "Beta house"}
    assert for_people(text, names) == "Panelist A (Gamma house) and Panelist B agree; Panelist C (Beta house) does not."
    assert for_people(text) == "Panelist A and Panelist B agree; Panelist C does not."


def test_a_comment_in_a_code_block_is_not_a_heading():
    text = "## Consensus\n```python\n# not a heading\nx = 1\n```\n\n## Verdict\nUse x."
    assert [h for h, _ in read(text).sections] == ["Consensus", "Verdict"]


@pytest.mark.parametrize(
    "text",
    [
        "## 3. Verdict\nShip it.",
        "## Verdict:\nShip it.",
        "### **Verdict**\nShip it.",
        "## Operational verdict\nShip it.",
        "**Verdict**\nShip it.",
        "**Verdict:** Ship it.",
        "Verdict\n-------\nShip it.",
        "## Verdetto\nShip it.",
        "## Veredicto\nShip it.",
        "## Urteil\nShip it.",
        "## Fazit\nShip it.",
        "## Conclusione\nShip it.",
        "## Conclusión\nShip it.",
        "## Raccomandazione\nShip it.",
        "## Veredito final\nShip it.",
    ],
)
def test_a_verdict_section_is_found_however_it_is_spelled(text):
    assert read(f"## Consensus\nAll agree.\n\n{text}").verdict == "Ship it."


def test_without_a_verdict_no_other_section_is_promoted_to_one():
    assert read("## Consensus\nAll agree.\n\n## Disagreements\nNone.").verdict == ""
    assert read("Use read replicas. They fix the read load.").verdict == ""


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("## 1. Consensus", "consensus"),
        ("Points of agreement", "consensus"),
        ("Punti di accordo", "consensus"),
        ("Übereinstimmung", "consensus"),
        ("Conflicts", "disagreements"),
        ("**Disaccordi:**", "disagreements"),
        ("Désaccords", "disagreements"),
        ("Divergências", "disagreements"),
        ("Final verdict", "verdict"),
        ("Conclusões", "verdict"),
        ("Empfehlung", "verdict"),
        ("Background", ""),
    ],
)
def test_section_roles_are_recognised_in_six_languages(heading, expected):
    assert role(heading) == expected


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        *[("0.7", 0.7), ("70%", 0.7), ("70 %", 0.7), ("0,7", 0.7), ("7/10", 0.7), ("85", 0.85), ("high", 0.8)],
        *[("Alta", 0.8), ("moderate", 0.5), ("niedrig", 0.3), ("**0.9**", 0.9), ("very high", 0.95)],
        *[("7", None), ("1.5", None), ("unknown", None), ("250", None)],
    ],
)
def test_the_closing_confidence_is_read_by_the_one_confidence_rule(written, expected):
    reading = read(f"## Verdict\nShip it.\n\nVERDICT: Ship it.\nCONFIDENCE: {written}\n")
    assert reading.confidence == (pytest.approx(expected) if expected is not None else None)


def test_a_closing_block_with_windows_line_ends_is_read():
    reading = read("## Verdict\r\nShip it today.\r\n\r\nVERDICT: Ship it.\r\nCONFIDENCE: 0.6\r\n")
    assert (reading.verdict, reading.confidence) == ("Ship it.", 0.6)
    assert reading.sections == (("Verdict", "Ship it today."),)


def test_an_answer_wrapped_in_a_markdown_fence_is_read_inside_it():
    inner = corpus_text("01-clean-teorema")
    assert read(f"```markdown\n{inner}```\n") == read(inner)


def test_a_title_case_verdict_line_in_prose_is_a_section_not_a_hidden_block():
    reading = read("## Consensus\nAll agree.\n\nVerdict: ship it.")
    assert reading.sections == (("Consensus", "All agree."), ("Verdict", "ship it."))
    assert (reading.verdict, reading.closing) == ("ship it.", "")


def test_the_headline_is_one_line_without_headings_cut_at_a_sentence():
    text = "# Answer\n\nNo. " + "It depends on the lock mode. " * 40
    line = headline(text)
    assert line.startswith("No. It depends")
    assert "#" not in line
    assert "\n" not in line
    assert len(line) <= 400
    assert line.endswith(".")


def test_a_headline_without_sentences_is_cut_with_an_ellipsis():
    assert headline("word " * 200).endswith("…")
    assert len(headline("word " * 200)) <= 401


def test_a_verdict_of_the_legacy_answer_shape_is_still_found():
    reading = read("# Answer\n\nNo. " + "It depends on the lock mode. " * 40)
    assert reading.verdict.startswith("No. It depends")
    assert len(reading.verdict) <= 400


FRAGMENTS = [
    "## Consensus",
    "## Verdict",
    "### Verdict:",
    "## 2. Disagreements",
    "# Title",
    "Verdict",
    "-------",
    "=====",
    "**Verdict**",
    "**Verdict:** ship it",
    "**Consensus:** all agree",
    "Verdict: ship it",
    "VERDICT: ship it",
    "CONFIDENCE: 0.7",
    "**CONFIDENCE:** high",
    "VERDICT: <one sentence>",
    "```",
    "```json",
    "# comment",
    "---",
    '{"verdict": "ship", "confidence": 0.5}',
    "- a bullet",
    "> a quote",
    "Plain prose, with words.",
    "",
    "    indented code",
    "~~~",
    "* * *",
    "__Bold__",
    "Conclusion: done",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=30)), max_size=25))
@example(["VERDICT: ship it", "### Verdict:", "## Consensus"])  # a heading is never a verdict's second line
@example(["VERDICT: ship it", "### Verdict:", "0\x1e0"])  # a record separator: whitespace, not a line's end
@example(["## Consensus", "VERDICT: ship it", "### Verdict:", "-------"])  # a rule is no verdict to put in place
def test_any_text_is_read_whole_and_the_verdict_is_never_invented(parts):
    text = "\n".join(parts)
    reading = read(text)
    assert_whole(text, reading)
    assert set(words(reading.verdict)) <= set(words(text))
    assert words(for_people(text)) == [w for heading, body in reading.sections for w in words(heading) + words(body)]


def test_the_page_shows_every_section_in_order():
    reading = read(corpus_text("12-preamble"))
    synthesis = SimpleNamespace(text="…", sections=[list(pair) for pair in reading.sections], evidence_strength="")
    page = render_to_string("debates/partials/outcome.html", {"debate": debate_with(synthesis)})
    assert re.findall(r"<h3>(.*?)</h3>", page) == ["Consensus", "Disagreements", "Verdict"]
    assert "The panel answered independently" in page
    assert "Put the PDF rendering behind a Redis stream." not in page  # the closing block, shown as the verdict


def debate_with(synthesis) -> SimpleNamespace:
    """A finished debate as the outcome partial reads it (live.snapshot.Debate, before any reveal)."""
    return SimpleNamespace(
        question=SimpleNamespace(status="done", error=""),
        synthesis=synthesis,
        reveal=[],
        synthesis_sections=synthesis.sections,
        synthesis_text=for_people(synthesis.text),
    )
