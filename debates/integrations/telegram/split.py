"""Our markdown as Telegram HTML, split under Telegram's length limit without breaking a tag.

The original bot stripped all formatting because cutting Markdown at character 4000 left an
asterisk open and Telegram rejected the message. Here the markdown becomes a flat list of
styled runs (text + the tags around it); cuts are chosen on the visible text, preferring a
paragraph, then a line, a sentence, a word; each part is rendered on its own, so it opens and
closes its own tags (a code block cut in two becomes two code blocks). Lengths are counted the
way Telegram counts them: UTF-16 code units of the text after entity parsing.
"""

import html
import re
import unicodedata
from bisect import bisect_right
from itertools import accumulate

from markdown_it import MarkdownIt

Tag = tuple[str, str]  # (name, attribute): ("b", ""), ("a", href), ("pre", language)
Run = tuple[str, tuple[Tag, ...]]

LIMIT = 4096
MARKDOWN = MarkdownIt("commonmark", {"html": False}).enable("strikethrough")
INLINE_TAGS = {"strong": "b", "em": "i", "s": "s"}
SAFE_URL = re.compile(r"(?:https?|tg|mailto):[^\s\"<>]+", re.I)
SENTENCE_END = re.compile(r"[.!?…][)\"'»”]*(?=\s)")
GLUE = {"\u200d", "\ufe0f", "\ufe0e"}  # zero-width joiner and variation selectors: never cut next to them


def split_message(text: str, limit: int = LIMIT) -> list[str]:
    """Telegram-HTML parts of the markdown ``text``, each within ``limit`` and balanced."""
    runs = markdown_runs(text)
    visible = "".join(chunk for chunk, _ in runs)
    return [render(slice_runs(runs, start, end)) for start, end in cuts(visible, limit)]


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def cuts(visible: str, limit: int) -> list[tuple[int, int]]:
    """(start, end) of each part, whitespace at the cuts left out."""
    units = [0, *accumulate(utf16_len(char) for char in visible)]
    parts, start = [], skip_space(visible, 0)
    while start < len(visible):
        hard = max(bisect_right(units, units[start] + limit) - 1, start + 1)
        end = len(visible) if hard >= len(visible) else best_cut(visible, start, hard)
        stop = end
        while stop > start and visible[stop - 1].isspace():
            stop -= 1
        if stop > start:
            parts.append((start, stop))
        start = skip_space(visible, end)
    return parts


def skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos].isspace():
        pos += 1
    return pos


def best_cut(text: str, start: int, hard: int) -> int:
    """The last paragraph, line, sentence or word break in the window, if not too early."""
    earliest = start + (hard - start) // 4 + 1
    for separator in ("\n\n", "\n"):
        found = text.rfind(separator, earliest, hard)
        if found != -1:
            return found
    sentences = [match.end() for match in SENTENCE_END.finditer(text, earliest, hard)]
    if sentences:
        return sentences[-1]
    space = max((text.rfind(char, earliest, hard) for char in " \t"), default=-1)
    if space != -1:
        return space
    while hard - 1 > start and is_glued(text, hard):
        hard -= 1
    return hard


def is_glued(text: str, pos: int) -> bool:
    """Cutting at ``pos`` would split an emoji sequence or a letter from its accent."""
    after, before = text[pos] if pos < len(text) else "", text[pos - 1]
    return (
        after in GLUE
        or before in GLUE
        or (after and unicodedata.combining(after) > 0)
        or ("\U0001f3fb" <= after <= "\U0001f3ff")  # skin tone modifier
        or ("\U0001f1e6" <= before <= "\U0001f1ff" and "\U0001f1e6" <= after <= "\U0001f1ff")
    )


def slice_runs(runs: list[Run], start: int, end: int) -> list[Run]:
    sliced, pos = [], 0
    for chunk, tags in runs:
        lo, hi = max(start, pos), min(end, pos + len(chunk))
        if lo < hi:
            sliced.append((chunk[lo - pos : hi - pos], tags))
        pos += len(chunk)
    return sliced


def render(runs: list[Run]) -> str:
    """HTML with each run's tags opened and closed around it, sharing the common outer ones."""
    out: list[str] = []
    stack: tuple[Tag, ...] = ()
    for chunk, tags in [*runs, ("", ())]:
        shared = 0
        while shared < min(len(stack), len(tags)) and stack[shared] == tags[shared]:
            shared += 1
        out += [closing(tag) for tag in reversed(stack[shared:])]
        out += [opening(tag) for tag in tags[shared:]]
        out.append(html.escape(chunk, quote=False))
        stack = tags
    return "".join(out)


def opening(tag: Tag) -> str:
    name, attribute = tag
    if name == "a":
        return f'<a href="{html.escape(attribute)}">'
    if name == "pre" and attribute:
        return f'<pre><code class="language-{attribute}">'
    return f"<{name}>"


def closing(tag: Tag) -> str:
    name, attribute = tag
    return "</code></pre>" if name == "pre" and attribute else f"</{name}>"


def markdown_runs(text: str) -> list[Run]:
    """Flatten markdown into styled runs; block structure becomes newlines and bullets."""
    runs: list[Run] = []
    lists: list[list] = []  # per open list: [ordered?, next number]
    separator, heading, after_bullet = "", False, False

    def emit(chunk: str, tags: tuple[Tag, ...]) -> None:
        nonlocal separator, after_bullet
        if runs and separator:
            runs.append((separator, ()))
        separator, after_bullet = "", False
        runs.append((chunk, tags))

    def block() -> None:
        nonlocal separator  # a pending blank line is never downgraded to a line break
        separator = max(separator, "\n" if lists else "\n\n", key=len)

    for token in MARKDOWN.parse(text):
        kind = token.type
        if kind in ("paragraph_open", "heading_open") and not after_bullet:
            block()
        heading = kind == "heading_open" or (heading and kind != "heading_close")
        if kind == "inline":
            bold = (("b", ""),) if heading else ()
            for chunk, tags in inline_runs(token.children or []):
                emit(chunk, bold + tags)
        elif kind in ("bullet_list_open", "ordered_list_open"):
            block()
            lists.append([kind == "ordered_list_open", int(token.attrGet("start") or 1)])
        elif kind in ("bullet_list_close", "ordered_list_close"):
            lists.pop()
            block()
        elif kind == "list_item_open":
            block()
            ordered, number = lists[-1]
            lists[-1][1] += 1
            emit("  " * (len(lists) - 1) + (f"{number}. " if ordered else "• "), ())
            after_bullet = True
        elif kind in ("fence", "code_block"):
            block()
            language = re.sub(r"[^\w+#-]", "", token.info.split()[0])[:30] if token.info.strip() else ""
            emit(token.content.rstrip("\n") or " ", (("pre", language),))
            block()
        elif kind == "hr":
            block()
            emit("———", ())
        elif kind == "html_block":
            block()
            emit(token.content.rstrip("\n"), ())
    return [(chunk, tags) for chunk, tags in runs if chunk]


def inline_runs(children) -> list[Run]:
    runs: list[Run] = []
    tags: list[Tag] = []
    for child in children:
        kind = child.type
        if kind.endswith("_open") and kind[:-5] in INLINE_TAGS:
            tags.append((INLINE_TAGS[kind[:-5]], ""))
        elif kind == "link_open":
            href = str(child.attrGet("href") or "")
            tags.append(("a", href) if SAFE_URL.fullmatch(href) else ("", ""))
        elif kind.endswith("_close") and tags:
            tags.pop()
        elif kind == "code_inline":
            # Telegram lets bold, italic and strike contain code, but not links.
            outer = tuple(t for t in tags if t[0] in ("b", "i", "s"))
            runs.append((child.content, (*outer, ("code", ""))))
        elif kind in ("softbreak", "hardbreak"):
            runs.append(("\n", tuple(t for t in tags if t[0])))
        elif kind == "image":
            runs.append((child.content or "image", tuple(t for t in tags if t[0])))
        else:
            runs.append((child.content, tuple(t for t in tags if t[0])))
    return runs
