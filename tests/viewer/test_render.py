"""Model output is untrusted: what reaches the page can never run script."""

import re

import pytest

from debates.lib.render import markdown

HOSTILE = [
    "<script>window.__pwned=1</script>",
    "<img src=x onerror=alert(1)>",
    "[x](javascript:alert(1))",
    '<a href="javascript:alert(1)">x</a>',
    "[x](JaVaScRiPt:alert(1))",
    "<svg onload=alert(1)>",
    '<iframe src="https://evil.example"></iframe>',
    "[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
]


@pytest.mark.parametrize("payload", HOSTILE)
def test_hostile_markdown_renders_as_inert_text(payload):
    html = markdown(f"Answer: {payload}")
    lowered = html.lower()
    assert not re.search(r"<(script|img|svg|iframe)", lowered)
    assert not re.search(r"<[a-z][^>]*\son\w+=", lowered), "an event handler attribute survived"
    assert not re.search(r'<a[^>]*href="(javascript|data):', lowered)


def test_raw_html_is_shown_escaped_not_dropped():
    assert "&lt;script&gt;window.__pwned=1&lt;/script&gt;" in markdown("<script>window.__pwned=1</script>")


def test_links_get_noopener_and_only_web_schemes():
    html = markdown("[docs](https://example.org) [mail](mailto:a@example.org)")
    assert html.count('rel="noopener noreferrer"') == 2


def test_remote_images_become_links_never_fetched():
    html = markdown("![chart](https://tracker.example/pixel.png)")
    assert "<img" not in html
    assert '<a href="https://tracker.example/pixel.png" rel="noopener noreferrer">[image: chart]</a>' in html


def test_no_inline_style_survives_for_the_csp():
    html = markdown("| a | b |\n|:--|--:|\n| 1 | 2 |")
    assert "<table>" in html
    assert "style=" not in html


def test_markdown_structure_is_kept():
    html = markdown("## Agreement\n\n- **one**\n- `two`\n\n```\ncode\n```")
    assert "<h2>Agreement</h2>" in html
    assert "<strong>one</strong>" in html
    assert "<pre><code>code\n</code></pre>" in html
