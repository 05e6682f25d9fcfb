"""What each claim rests on: a contribution's sources as numbered footnotes, and each claim of its
closing block matched to the footnotes that back it.

A source backs a claim when the passage of the answer it supports holds the claim's line, or says
what the claim says (most of the claim's words, no number or negation against it), or when the
claim names it (its address, its site, or its "[n]"). A claim nothing backs is unsourced; so is
every claim of a voice that cites nothing. A URL is no identity: it reaches the dossier as written.
"""

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from debates.engine import guards
from debates.engine.reading.words import FILLER, STOP, stem, tokens
from debates.providers import links
from debates.providers.base import Source

# A sentence ends at . ! ? before a space (and any footnote markers after them), at 。！？ (Chinese and
# Japanese put no space after them), or at a line's end.
SENTENCE_END = re.compile(r"[.!?](?:\[\d{1,3}\])*(?=\s|$)|[。！？](?:\[\d{1,3}\])*|\n")
COVERED = 0.6  # the share of a claim's words a passage must hold to say the same
MIN_SHARED = 2  # and at least this many of them
MAX_QUOTE = 300  # characters of a quote shown in a prompt or a footnote
CLAIM_LINE_EXTRA = 400  # what a claim's line holds besides its words: its number, tag, confidence, falsifier


@dataclass(frozen=True)
class Footnote:
    """One source as a footnote of a contribution: its number, and the passages of the answer it supports."""

    number: int
    source: Source
    passages: tuple[str, ...] = ()
    spans: tuple[tuple[int, int], ...] = ()  # the characters of the answer each citation of it supports

    @property
    def name(self) -> str:
        """What a reader calls it: its title, else its site; a document by its name and page."""
        if self.source.document:
            page = f", page {self.source.page}" if self.source.page is not None else ""
            return f"{self.source.title or self.source.document}{page}"
        return self.source.title or site(self.source.url) or self.source.url

    @property
    def link(self) -> str:
        """Its address where a page may link to it (http or https only)."""
        return link(self.source.url)

    @property
    def quote(self) -> str:
        quote = " ".join(self.source.quote.split())
        return quote if len(quote) <= MAX_QUOTE else quote[: MAX_QUOTE - 1].rstrip() + "…"

    def as_dict(self) -> dict[str, Any]:
        """As the ledger and the API give it."""
        found = {"n": self.number, "name": self.name, "url": self.source.url, "quote": self.quote}
        found["supports"] = list(self.passages)
        if self.source.document:
            found |= {"document": self.source.document, "page": self.source.page}
        return found


def footnotes(sources: Iterable[Source], text: str = "", claims: Sequence[Mapping[str, Any]] = ()) -> list[Footnote]:
    """The sources a contribution cites, one footnote each (the same page cited twice is one), numbered in
    the order the wire named them; where the answer numbers them itself (Perplexity's "[3]"), with its
    numbers, so a "[3]" in the text or a claim is footnote 3. ``claims``: its closing block's, read; a
    source cited on a claim's own line supports that claim as read, not the line's markup."""
    by_key: dict[str, list[Source]] = {}
    for source in sources:
        if source.cited:
            by_key.setdefault(source.key, []).append(source)
    own = [n for found in by_key.values() if (n := found[0].number) is not None]
    numbers = own if len(own) == len(by_key) == len(set(own)) else range(1, len(by_key) + 1)
    return [
        Footnote(
            number,
            found[0],
            tuple(dict.fromkeys(p for s in found if (p := _claim_on(text, s, claims) or passage(text, s)))),
            tuple((s.start, s.end) for s in found if s.start is not None and s.end is not None),
        )
        for number, found in zip(numbers, by_key.values(), strict=True)
    ]


def looked_up(sources: Iterable[Source]) -> list[Source]:
    """The pages a voice looked up and cites nowhere, once each."""
    sources = list(sources)
    cited = {s.key for s in sources if s.cited}
    return list({s.key: s for s in sources if not s.cited and s.key not in cited}.values())


def passage(text: str, source: Source) -> str:
    """The sentences of the answer a source supports (its span, widened to whole sentences)."""
    if source.start is None or source.end is None or not text:
        return ""
    start, end = max(0, min(source.start, len(text))), max(0, min(source.end, len(text)))
    ends = [m.end() for m in SENTENCE_END.finditer(text, 0, start) if m.end() <= start]
    # The sentence before may end in its own citation (a link, a marker): that is no part of this one.
    first = links.after_citations(text, ends[-1], start) if ends else 0
    last = next((m for m in SENTENCE_END.finditer(text, first) if m.end() >= max(end, first + 1)), None)
    return " ".join(text[first : last.end() if last else len(text)].split())


def _claim_on(text: str, source: Source, claims: Sequence[Mapping[str, Any]]) -> str:
    """The text of the claim on whose own line the source is cited ("" when none is)."""
    if source.start is None or source.end is None:
        return ""
    for claim in claims:
        said = str(claim.get("text", ""))
        line = _line_of(said, text)
        if line is not None and source.start < line[1] and line[0] < source.end:
            return said
    return ""


def link(url: str) -> str:
    """An address a page may link to: http or https, never a script."""
    return url if urlsplit(url).scheme in ("http", "https") else ""


def site(url: str) -> str:
    """A page's site, as people name it ("nature.com")."""
    host = urlsplit(url).hostname or ""
    return host.removeprefix("www.")


def backing(claim: Mapping[str, Any], text: str, notes: Sequence[Footnote]) -> list[int]:
    """The footnotes a claim rests on (their numbers), by the rules of this module."""
    said = str(claim.get("text", ""))
    line = _line_of(said, text)
    found = []
    for note in notes:
        on_line = line is not None and any(a < line[1] and line[0] < b for a, b in note.spans)
        if on_line or _names(said, note) or any(_says(said, p) for p in note.passages):
            found.append(note.number)
    return found


def attach(record: Mapping[str, Any], text: str, sources: Iterable[Source]) -> dict[str, Any]:
    """A closing block's record with each claim's footnotes (``sources``: numbers; none: unsourced)."""
    notes = footnotes(sources, text)
    claims = [dict(c) | {"sources": backing(c, text, notes)} for c in record.get("claims", ())]
    return dict(record) | ({"claims": claims} if "claims" in record else {})


def in_words(notes: Sequence[Footnote]) -> str:
    """The footnotes as a prompt or a plain-text reader gets them, one a line."""
    return "\n".join(
        f"[{n.number}] {n.name}"
        + (f" — {n.source.url}" if n.source.url else "")
        + (f" — “{n.quote}”" if n.quote else "")
        for n in notes
    )


def _line_of(said: str, text: str) -> tuple[int, int] | None:
    """Where the claim's own line is in the answer: the last line holding its words as read (its
    closing block comes last), and only a line about as long as a claim's (never a paragraph of prose
    that happens to hold them)."""
    at = text.rfind(said[:80]) if said else -1
    if at < 0:
        return None
    start = text.rfind("\n", 0, at) + 1
    end = text.find("\n", at)
    end = len(text) if end < 0 else end
    return (start, end) if end - start <= len(said) + CLAIM_LINE_EXTRA else None


def _names(said: str, note: Footnote) -> bool:
    """The claim names the source: its address, its site, or its footnote marker."""
    url, host = note.source.url, site(note.source.url)
    if url and url in said:
        return True
    if host and re.search(rf"(?<![\w.-]){re.escape(host)}\b", said, re.IGNORECASE):
        return True
    return f"[{note.number}]" in said


def _says(said: str, passage_text: str) -> bool:
    """The passage says what the claim says: most of its words, and no number, negation or opposite against it."""
    words = {stem(w) for w in tokens(said) if w not in STOP and w not in FILLER}
    if len(words) < MIN_SHARED:
        return False
    held = words & {stem(w) for w in tokens(passage_text)}
    return len(held) >= MIN_SHARED and len(held) / len(words) >= COVERED and not guards.apart(said, passage_text)
