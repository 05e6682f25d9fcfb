"""What an exported file carries of the web's and the models' words: a source's title and quote read
as written and render as no tag, and no link a model wrote runs or embeds anything when the file is
opened in a viewer that renders HTML, whatever the spelling."""

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from debates.conversations.defanged import NOWHERE, defanged, unsafe
from debates.live import story
from tests.viewer.test_sources_page import BOILING, CITED, result, sourced  # noqa: F401 (a fixture)

# A viewer that renders the HTML a Markdown file holds, as many do.
PERMISSIVE = MarkdownIt("commonmark", {"html": True})
HOSTILE = {
    "name": 'Boiling <script>alert("t")</script> [click](javascript:alert(1)) *point*',
    "url": f"{BOILING}?q=<b>",
    "quote": "water <img src=x onerror=alert(1)> boils & that's [that](data:text/html,x)",
}


def test_a_sources_title_and_quote_are_escaped_and_read_as_written():
    line = story.cited(HOSTILE)
    shown = PERMISSIVE.renderInline(line)
    assert "<script" not in shown
    assert "<img" not in shown
    assert "javascript:" not in shown.split('href="')[1].split('"')[0]
    assert shown.count("<a ") == 1  # its own link, and nothing the page's title or text wrote
    assert "&lt;script&gt;" in shown
    assert "&lt;img src=x onerror=alert(1)&gt;" in shown
    assert "%3Cb%3E" in line  # an address ends at its own brackets, never at one it holds


@pytest.mark.parametrize(
    "written",
    [
        "[click](javascript:alert(1))",
        "[click](JavaScript:alert(document.cookie))",
        "[click]( <javascript:alert(1)> )",
        "[click](jav&#x61;script:alert(1))",
        "[click](java&#09;script:alert(1))",
        "![pic](data:image/svg+xml;base64,PHN2Zz4=)",
        "[ref]\n\n[ref]: vbscript:msgbox(1)",
        "<javascript:alert(1)>",
        '<a href="javascript:alert(1)">x</a>',
        "<a href='data:text/html,<b>x</b>'>x</a>",
        "<iframe src=file:///etc/passwd></iframe>",
    ],
)
def test_a_models_unsafe_link_points_nowhere_and_its_words_stay(written):
    safe = defanged(f"See {written} for more.")
    rendered = PERMISSIVE.render(safe)
    for scheme in ("javascript:", "vbscript:", "data:", "file:"):
        assert f'="{scheme}' not in rendered.lower()
    assert NOWHERE in safe
    assert safe.startswith("See ")
    assert safe.endswith(" for more.")


@pytest.mark.parametrize(
    "written",
    [
        "[the page](https://example.org/a_(b))",
        "<https://example.org/boiling>",
        "the javascript: scheme runs code; data: URLs embed it",
        "`[x](javascript:void(0))` is the pattern to avoid",
        '<a href="https://example.org">ok</a>',
    ],
)
def test_a_safe_link_and_prose_about_schemes_are_left_as_written(written):
    if "`" in written:  # in code a viewer follows nothing, but the address still points nowhere once exported
        assert "javascript:" not in defanged(written)
    else:
        assert defanged(written) == written


@given(st.text(max_size=200))
def test_defanging_twice_changes_nothing_more(text):
    once = defanged(text)
    assert defanged(once) == once


def test_unsafe_reads_an_address_as_a_browser_does():
    assert unsafe(" JaVa\tScRiPt:alert(1)")
    assert unsafe("&#x6A;avascript:x")
    assert not unsafe("https://example.org/javascript:x")
    assert not unsafe("#unsafe-link")


@pytest.fixture
def hostile(sourced):  # noqa: F811 (the fixture, extended)
    contribution = sourced.rounds.get().contributions.get(label="Panelist A")
    contribution.text = CITED.replace("at sea level.", "at sea level ([see](javascript:alert(1))).", 1)
    contribution.sources = [{"url": HOSTILE["url"], "title": HOSTILE["name"], "quote": HOSTILE["quote"]}]
    contribution.save()
    return sourced


def test_the_markdown_export_escapes_every_source_field_and_neutralises_the_answers_links(client, alice, hostile):
    client.force_login(alice)
    markdown = client.get(f"/q/{hostile.pk}/export.md").content.decode()
    rendered = PERMISSIVE.render(markdown)
    assert "<script" not in rendered
    assert "<img" not in rendered
    assert "javascript:" not in rendered
    assert "data:text" not in rendered
    assert f"([see]({NOWHERE}))" in markdown
    assert "Boiling \\<script\\>" in markdown  # the title reads as written
