"""The citations corpus (tests/corpus/citations/replies.jsonl), read by our client and scored.

Each entry is one answer of a searching voice as its provider sends it (every response of the turn,
each a list of server-sent events), labelled with the claims each page supports (``cited``: page,
sentence) and the pages it only looked up. ``read`` replays it over a loopback socket to our own
client (``providers.stream``); ``score`` says, for each page the reading credits, whether it is on
its own claim, on another sentence, or on none, and whether each page is cited or looked up as labelled.
"""

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debates.engine import sourcing
from debates.providers import links, stream
from debates.providers.base import Completion, Endpoint, SearchTool, Voice
from tests.fakes.replay import ReplayServer
from tests.providers.official import QUESTION

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "citations" / "replies.jsonl"
ENTRIES = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line]
# Each provider as a voice that searches: its wire, its search tool, the base URL's path, a model.
PROVIDERS = {
    "openai": ("openai", SearchTool.OPENAI, "/v1", "gpt-4o-search-preview"),
    "openrouter": ("openai", SearchTool.OPENROUTER, "/v1", "openai/gpt-4.1"),
    "perplexity": ("openai", SearchTool.PERPLEXITY, "/v1", "sonar"),
    "anthropic": ("anthropic", SearchTool.ANTHROPIC, "", "claude-sonnet-5"),
    "gemini": ("gemini", SearchTool.GEMINI, "/v1beta", "gemini-2.5-flash"),
}


@dataclass
class Score:
    """One entry's (or a wire's) figures."""

    credits: int = 0  # (page, claim) pairs the labels give
    right: int = 0  # of them, read onto their own claim
    wrong: list[str] = field(default_factory=list)  # a page read onto a sentence it does not support
    pages: int = 0  # pages labelled cited or looked up
    classed: int = 0  # of them, read as labelled
    misclassed: list[str] = field(default_factory=list)

    def __iadd__(self, other: "Score") -> "Score":
        self.credits += other.credits
        self.right += other.right
        self.wrong += other.wrong
        self.pages += other.pages
        self.classed += other.classed
        self.misclassed += other.misclassed
        return self


def voice(server: ReplayServer, provider: str) -> Voice:
    wire, tool, path, model = PROVIDERS[provider]
    endpoint = Endpoint(f"Corpus {provider}", wire, f"{server.url}{path}", "key", search=tool, max_retries=0)
    return Voice(provider, model, endpoint, search=True, max_tokens=1000)


async def read(server: ReplayServer, entry: dict[str, Any]) -> Completion:
    """The entry's reply as our client reads it, over a real socket."""
    server.play(entry["responses"])
    async for event in stream(voice(server, entry["wire"]), QUESTION):
        if isinstance(event, Completion):
            return event
    raise AssertionError(f"{entry['id']}: no completion")


def _beyond(passage: str, claims: list[str]) -> bool:
    """Whether a page's passage holds words of a sentence it does not support: what is left once the
    citations (links, markers) and the claims it backs are taken out."""
    left = links.MARKER.sub("", links.LINK.sub("", passage))
    for claim in claims:
        left = left.replace(claim, "")
    return bool(re.search(r"\w{2,}", left))


def _squeezed(text: str) -> str:
    return " ".join(text.split())


def score(entry: dict[str, Any], done: Completion) -> Score:
    """How the reading of an entry matches its labels."""
    found = Score()
    claims: dict[str, list[str]] = {}
    for url, claim in entry["cited"]:
        claims.setdefault(url, []).append(_squeezed(claim))
    credited = {(s.url, passage) for s in done.sources if s.cited and (passage := sourcing.passage(done.text, s))}
    for url, claim in entry["cited"]:
        found.credits += 1
        found.right += any(u == url and _squeezed(claim) in p for u, p in credited)
    for url, passage in credited:
        if _beyond(passage, claims.get(url, [])):
            found.wrong.append(f"{entry['id']}: {url} on “{passage[:80]}”")
    cited = {s.url for s in done.sources if s.cited}
    looked = {s.url for s in done.sources if not s.cited} - cited
    for url, should_cite in [*((u, True) for u in claims), *((u, False) for u in entry["looked_up"])]:
        found.pages += 1
        if (url in cited) if should_cite else (url in looked):
            found.classed += 1
        else:
            found.misclassed.append(f"{entry['id']}: {url} should be {'cited' if should_cite else 'looked up'}")
    return found
