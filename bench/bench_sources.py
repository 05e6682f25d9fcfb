"""Citations read from each wire as its provider sends them: sources on the right claim, and pages
cited vs looked up, per wire, over the citations corpus.

Method. tests/corpus/citations/replies.jsonl holds answers of searching voices as each provider
streams them (OpenAI and OpenRouter with Markdown links and url_citation annotations over them, in
the finishing chunk or a delta of their own; Perplexity with and without its deprecated
``citations``, its "[n]" markers naming some of its search results; Anthropic with search blocks,
cited text blocks and a turn paused by ``pause_turn``; Gemini with accents, emoji and three-byte
characters before its supported segments), every event of which the providers' official SDKs
parse as their own types (tests/providers/test_citation_corpus.py). Each answer is labelled with the
sentence each page supports and the pages only looked up. Each is replayed byte for byte over a
loopback socket to Teorema's own client (``providers.stream``), and what it reads is scored:

- *sources on the right claim*: of the (page, claim) pairs labelled, those the reading puts on their
  own claim (the passage the page supports, widened to whole sentences, holds the claim); and the
  pages it puts on a sentence they do not support (*wrong claim*), which must be none;
- *cited vs looked up*: of the pages labelled, those read as cited or looked up as labelled.

Usage: python bench/bench_sources.py [--show]
"""

import argparse
import asyncio

from standalone import django_setup

django_setup()

from tests.fakes.replay import ReplayServer  # noqa: E402
from tests.providers.citations import ENTRIES, PROVIDERS, Score, read, score  # noqa: E402


async def measure() -> dict[str, Score]:
    found = {wire: Score() for wire in PROVIDERS}
    with ReplayServer() as server:
        for entry in ENTRIES:
            found[entry["wire"]] += score(entry, await read(server, entry))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="list every page read onto a wrong claim or misclassed")
    args = parser.parse_args()
    found = asyncio.run(measure())
    print(f"{len(ENTRIES)} replies of the citations corpus, read by Teorema's client over loopback\n")
    heads = ("replies", "sources on the right claim", "wrong claim", "cited vs looked up")
    print("  ".join([f"{'wire':<12}", *(f"{h:>{w}}" for h, w in zip(heads, WIDTHS, strict=True))]))
    total = Score()
    for wire, figures in found.items():
        total += figures
        replies = sum(e["wire"] == wire for e in ENTRIES)
        print(row(wire, replies, figures))
    print(row("all", len(ENTRIES), total))
    if args.show:
        for line in [*total.wrong, *total.misclassed]:
            print(" ", line)


WIDTHS = (7, 26, 11, 18)


def row(name: str, replies: int, figures: Score) -> str:
    right, classed = f"{figures.right} of {figures.credits}", f"{figures.classed} of {figures.pages}"
    cells = (replies, right, len(figures.wrong), classed)
    return "  ".join([f"{name:<12}", *(f"{cell:>{w}}" for cell, w in zip(cells, WIDTHS, strict=True))])


if __name__ == "__main__":
    main()
