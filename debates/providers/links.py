"""The claim an inline citation supports, where a wire's span covers the citation itself.

OpenAI's and OpenRouter's search models write a Markdown link to the page after what it supports
("… at sea level. ([example.org](https://example.org/…))"), and their ``url_citation`` span covers
that link; Perplexity writes a "[n]" marker the same way. The source supports the sentence the
citation closes: the words before it on its line, back to that sentence's start, never the sentence
after it. Where nothing stands before it on its line, it supports no words we can name.
"""

import re

# A Markdown link, in the parentheses the search models put around it or bare.
LINK = re.compile(r"\(?\[[^\]\n]*\]\([^()\s]*\)\)?")
LINK_AT_END = re.compile(rf"(?:{LINK.pattern})$")
# A footnote marker ("[2]"), as Perplexity numbers its sources.
MARKER = re.compile(r"\[\d{1,3}\]")
MARKER_AT_END = re.compile(r"\[\d{1,3}\]$")
# Where a sentence starts: after . ! ? and the citations behind them, then a space; after 。！？ (no
# space follows them); or at a line.
SENTENCE_END = re.compile(rf"(?:[.!?](?:{LINK.pattern}|{MARKER.pattern}|[)\"”’])*(?=\s)|[。！？]|\n)")
BULLET = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+")  # a list item's mark, no part of its claim
BETWEEN = " \t,;("  # what may stand between a claim and its citations, or between two citations


def supported(text: str, url: str, start: int | None, end: int | None) -> tuple[int | None, int | None]:
    """The characters of the answer a ``url_citation`` supports (chat completions and the Responses
    API alike). Its span covers the Markdown link the search model wrote after the claim: the claim
    is the sentence that link closes. A span over words, not a link, is taken as it is; a link found
    nowhere supports nothing we can name."""
    valid = start is not None and end is not None and start < end <= len(text)
    covered = text[start:end] if valid else ""
    if covered.strip() and "](" not in covered and url not in covered:
        return start, end
    link = link_at(text, url, start or 0)
    claim = claimed(text, link[0]) if link else None
    return claim or (None, None)


def claimed(text: str, at: int) -> tuple[int, int] | None:
    """The characters of the sentence a citation starting at ``at`` closes (its words up to the
    citations before it), or None where its line holds nothing before it."""
    end = _before_citations(text, at)
    line = text.rfind("\n", 0, end) + 1
    if not text[line:end].strip():
        return None
    starts = [m.end() for m in SENTENCE_END.finditer(text, line, end) if m.end() < end]
    start = max([line, *starts])
    if start == line and (bullet := BULLET.match(text, line, end)):
        start = bullet.end()
    start = after_citations(text, start, end)
    return (start, end) if start < end else None


def link_at(text: str, url: str, near: int) -> tuple[int, int] | None:
    """The Markdown link to ``url`` nearest ``near`` (the wire's own index, which may count
    otherwise than we do), or None where the text links to it nowhere."""
    found = [m for m in LINK.finditer(text) if f"]({url})" in m[0] or f"]({url}" in m[0]]
    best = min(found, key=lambda m: abs(m.start() - near), default=None)
    return (best.start(), best.end()) if best else None


def _before_citations(text: str, at: int) -> int:
    """Where the words end before the citations that end at ``at`` (links, markers, spaces, commas)."""
    while True:
        head = text[:at].rstrip(BETWEEN)
        found = LINK_AT_END.search(head) or MARKER_AT_END.search(head)
        if found is None:
            return len(head)
        at = found.start()


def after_citations(text: str, start: int, end: int) -> int:
    """Where the words start after the citations and spaces that open a span."""
    while True:
        while start < end and text[start] in BETWEEN + ")\n":
            start += 1
        found = LINK.match(text, start, end) or MARKER.match(text, start, end)
        if found is None:
            return start
        start = found.end()
