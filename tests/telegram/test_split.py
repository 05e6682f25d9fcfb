"""Long verdicts are split under Telegram's limit without breaking formatting or losing text."""

import re
import sys

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from debates.integrations.telegram.split import split_message, utf16_len
from tests.fakes.telegram_server import parse_html


def assert_valid_split(markdown: str, limit: int) -> list[str]:
    """Every part parses as Telegram HTML within the limit; together they hold all the visible text."""
    parts = split_message(markdown, limit)
    whole = "".join(parse_html(part) for part in split_message(markdown, sys.maxsize))
    pos = 0
    for part in parts:
        visible = parse_html(part)  # raises on anything Telegram would reject
        assert 0 < utf16_len(visible) <= limit
        found = whole.index(visible, pos)
        assert whole[pos:found].isspace() or found == pos, "only whitespace is dropped, at the cuts"
        pos = found + len(visible)
    assert not whole[pos:].strip()
    return parts


def test_a_short_message_is_one_part() -> None:
    assert split_message("**Verdict**: use *replicas*.") == ["<b>Verdict</b>: use <i>replicas</i>."]


def test_markdown_becomes_telegram_html_with_text_escaped() -> None:
    (html,) = split_message("# Title\n\nA & B < C with `x<y` and [docs](https://example.com/?a=1&b=2)\n\n- one\n- two")
    assert html == (
        "<b>Title</b>\n\nA &amp; B &lt; C with <code>x&lt;y</code> and "
        '<a href="https://example.com/?a=1&amp;b=2">docs</a>\n\n• one\n• two'
    )


def test_raw_html_and_unsafe_links_are_shown_as_text() -> None:
    (html,) = split_message('<b onclick="x">hi</b> [x](javascript:alert(1)) [y](ftp://host/file)')
    assert html == '&lt;b onclick="x"&gt;hi&lt;/b&gt; [x](javascript:alert(1)) y'


def test_a_cut_prefers_a_paragraph_break() -> None:
    text = "First paragraph, short.\n\nSecond paragraph. It has two sentences."
    assert split_message(text, 50) == ["First paragraph, short.", "Second paragraph. It has two sentences."]


def test_a_cut_prefers_a_sentence_to_a_word() -> None:
    assert split_message("One sentence here. Another sentence follows it", 30) == [
        "One sentence here.",
        "Another sentence follows it",
    ]


BOLD = "**" + " ".join(["word"] * 20) + "**"


def test_bold_cut_in_the_middle_is_closed_and_reopened() -> None:
    parts = split_message(BOLD, 40)
    assert len(parts) > 1
    assert all(part.startswith("<b>") and part.endswith("</b>") for part in parts)
    assert_valid_split(BOLD, 40)


def test_a_code_block_cut_in_two_becomes_two_code_blocks() -> None:
    code = "\n".join(f"line_{i} = {i} < {i + 1}" for i in range(30))
    parts = assert_valid_split(f"```python\n{code}\n```", 200)
    assert len(parts) > 1
    assert all(p.startswith('<pre><code class="language-python">') and p.endswith("</code></pre>") for p in parts)


def test_the_limit_counts_utf16_code_units_so_an_emoji_counts_two() -> None:
    parts = assert_valid_split("😀" * 3000, 4096)
    assert [len(parse_html(p)) for p in parts] == [2048, 952]


def test_an_emoji_sequence_is_not_cut_in_half() -> None:
    family = "👨\u200d👩\u200d👧"
    parts = split_message(family * 10, 16)
    assert all(not p.startswith("\u200d") and not p.endswith("\u200d") for p in parts)
    assert "".join(parts) == family * 10


def test_a_long_verdict_full_of_formatting_code_and_emoji() -> None:
    block = (
        "## Consensus 🤝\n\nAll **five** voices agree that *replicas* come first — see "
        "[the docs](https://example.com/a?b=1&c=2). A `SELECT * FROM t WHERE a < b` query is fine. 👍🏽\n\n"
        "```sql\nSELECT count(*)\nFROM orders\nWHERE total > 100 & status <> 'void';\n```\n\n"
        "- **Bold item** with _italic_ and ~~struck~~ text 👨‍👩‍👧\n- Second item: 2 < 3 & 5 > 4\n\n"
    )
    text = block * 40
    assert len(text) > 10_000
    parts = assert_valid_split(text, 4096)
    assert len(parts) >= 3


MARKDOWN_PIECES = st.sampled_from(
    [
        *["word", "Word.", "sentence! ", "why? ", " ", " ", "\n", "\n\n"],  # prose
        *["**", "*", "_", "~~", "`", "```\n", "```python\n"],  # inline markup and fences
        *["# ", "- ", "1. ", "> ", "[link](https://example.com/x?a=1&b=2)"],  # blocks and a link
        *["<b>", "</i>", "&", "&amp;", "<", ">", '"'],  # what Telegram's HTML must escape
        *["😀", "👨‍👩‍👧", "👍🏽", "🇮🇹", "é", "e\u0301"],  # one character on screen, several code points
        *["\t", "    indented", "---\n", "x" * 50],  # layout, and a word longer than a small limit
    ]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(MARKDOWN_PIECES, max_size=400).map("".join), st.integers(min_value=8, max_value=500))
def test_any_markdown_splits_into_valid_parts_within_the_limit(markdown: str, limit: int) -> None:
    assert_valid_split(markdown, limit)


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=2000), st.integers(min_value=2, max_value=300))
def test_any_text_at_all_splits_into_valid_parts(text: str, limit: int) -> None:
    text = re.sub(r"[\x00-\x08\x0b-\x1f]", "", text)
    assert_valid_split(text, limit)
