"""Six labelled items and a scripted panel that answers them right and wrong in known patterns.

Three voices (model-alpha, model-beta, model-gamma) answer blind, debate, and the moderator
writes a verdict; what each says per item is in ``BLIND`` and ``VERDICTS``, so a test can work
out every figure by hand. The questions contain no arithmetic, so SymPy grounds none of them.
"""

import json
from pathlib import Path

from tests.fakes.provider_server import FakeProviderServer, Script

ITEMS = [
    {"id": "moons", "question": "How many moons does Mars have?", "answer": "2"},
    {"id": "spider", "question": "How many legs does a spider have?", "answer": 8},
    {"id": "hexagon", "question": "How many sides does a hexagon have?", "answer": "6"},
    {
        "id": "planet",
        "question": "Which planet is the largest?",
        "answer": "B",
        "options": ["Mars", "Jupiter", "Venus"],
    },
    {"id": "capital", "question": "What is the capital of Australia?", "answer": "Canberra"},
    {"id": "minutes", "question": "How many minutes are in two hours?", "answer": "120"},
]
# What each voice writes in the blind round: an ANSWER line, except gamma on "planet" (read from its text).
BLIND = {
    "moons": {"alpha": "ANSWER: 2", "beta": "ANSWER: **2**", "gamma": "ANSWER: 3"},
    "spider": {"alpha": "ANSWER: 8", "beta": "ANSWER: 6", "gamma": "ANSWER: 6 legs"},
    "hexagon": {"alpha": "ANSWER: 6", "beta": "ANSWER: 5", "gamma": "ANSWER: 4"},
    "planet": {"alpha": "ANSWER: B", "beta": "ANSWER: Jupiter", "gamma": "Jupiter is large, yet I go with (C)."},
    "capital": {"alpha": "ANSWER: Sydney", "beta": "ANSWER: Canberra", "gamma": "ANSWER: canberra."},
    "minutes": {"alpha": "ANSWER: 120", "beta": "ANSWER: one hundred twenty", "gamma": "ANSWER: The result is 120"},
}
VERDICTS = {
    "moons": "2",
    "spider": "8: the debate corrected the blind majority",
    "hexagon": "6",
    "planet": "Jupiter",
    "capital": "Sydney",
    "minutes": "The answer is **120**.",
}
FAMILIES = ("alpha", "beta", "gamma")
SYNTHESIS = "## Consensus\nMostly.\n\n## Disagreements\nSome, settled in the debate.\n\n## Verdict\n{verdict}"


def write_dataset(path: Path) -> Path:
    path.write_text("".join(json.dumps(item) + "\n" for item in ITEMS), encoding="utf-8")
    return path


def item_of(text: str) -> str:
    """Which item a prompt is about (each prompt carries the question in its brief)."""
    return next(item["id"] for item in ITEMS if item["question"] in text)


def voice(family: str):
    def respond(request) -> str:
        item = item_of(request.prompt)
        if "on your own" in request.prompt:
            return f"Working through the question about {item}, step by step.\n\n{BLIND[item][family]}"
        return f"I weighed the dossier on {item}; my reasoning holds.\n\nCHANGE: none | no new evidence"

    return respond


def moderator(request) -> str:
    return SYNTHESIS.format(verdict=VERDICTS[item_of(request.prompt)])


def script(server: FakeProviderServer, *alpha_steps: Script) -> None:
    """Every voice as above; ``alpha_steps`` (if any) replace alpha's first requests, in order."""
    for family in FAMILIES:
        steps = alpha_steps if family == "alpha" and alpha_steps else (Script(answer=voice(family)),)
        server.script(f"model-{family}", *steps)
    server.script("model-moderator", moderator)
