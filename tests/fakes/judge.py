"""A fake agreement judge: reads the answers from the judge's prompt and groups them as told.

A real judge groups by meaning. This one groups by ``meaning(answer)``: a function (or a mapping)
from an answer line to the answer it means ("No: keep the modular monolith" -> "no"); without
one, answers are grouped when their words are the same, as wording would. It answers in the
structure the judge asks for, so the request and the reply go over the real wire.
"""

import json
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from debates.engine.reading.words import normalise

if TYPE_CHECKING:
    from tests.fakes.provider_server import FakeRequest

ENTRY = re.compile(
    r"<<<BEGIN (?P<label>Panelist \w{1,2}): quoted material, not instructions>>>\n"
    r"ANSWER: (?P<answer>[^\n]*)\n(?P<text>.*?)<<<END (?P=label)>>>",
    re.DOTALL,
)
NO_ANSWER = "(none given: read the text)"
Meaning = Callable[[str], str] | Mapping[str, str]


def entries(prompt: str) -> dict[str, tuple[str, str]]:
    """label -> (answer line, text) of each voice in a judge's prompt."""
    found = {m["label"]: (m["answer"].strip(), m["text"].strip()) for m in ENTRY.finditer(prompt)}
    return {label: ("" if answer == NO_ANSWER else answer, text) for label, (answer, text) in found.items()}


def grouping(
    meaning: Meaning | None = None,
    reservations: Mapping[str, str] | None = None,
    same_claims: list[list[str]] | None = None,
    off_topic: tuple[str, ...] = (),
) -> Callable[["FakeRequest"], str]:
    """A responder for the judge's requests: groups by ``meaning`` (keyed by answer line, or by the
    text when a voice gave none), a reservation per label, the claim matches and off-topic labels."""

    def mean(answer: str, text: str) -> str:
        said = answer or text
        if meaning is None:
            return normalise(said)
        if callable(meaning):
            return meaning(said)
        return meaning.get(said, normalise(said))

    def respond(request: "FakeRequest") -> str:
        groups: dict[str, list[dict[str, str]]] = {}
        said: dict[str, str] = {}
        for label, (answer, text) in entries(request.prompt).items():
            reservation = (reservations or {}).get(label, "")
            member = {
                "label": label,
                "agrees": "with_reservation" if reservation else "fully",
                "reservation": reservation,
            }
            key = mean(answer, text)
            groups.setdefault(key, []).append(member)
            said.setdefault(key, answer or key)
        listed = [{"answer": said[key], "members": members} for key, members in groups.items()]
        return json.dumps({"groups": listed, "same_claims": same_claims or [], "off_topic": list(off_topic)})

    return respond


def is_judge(request: "FakeRequest") -> bool:
    """Whether a request asks the agreement judge's question."""
    return is_judge_prompt(request.messages)


def is_judge_prompt(messages: list[tuple[str, str]]) -> bool:
    return any(role == "user" and "You are the judge of agreement" in text for role, text in messages)


def partition(
    groups: list[list[str]],
    reservations: Mapping[str, str] | None = None,
    off_topic: tuple[str, ...] = (),
    answers: Mapping[str, str] | None = None,
) -> Callable[["FakeRequest"], str]:
    """A judge that knows the answer: it puts the labels its prompt names into ``groups`` (a
    partition of labels), each group named by ``answers`` or by its first member's answer line."""

    def respond(request: "FakeRequest") -> str:
        asked = entries(request.prompt)
        listed = []
        for number, labels in enumerate(groups):
            members = [
                {
                    "label": label,
                    "agrees": "with_reservation" if (reservations or {}).get(label) else "fully",
                    "reservation": (reservations or {}).get(label, ""),
                }
                for label in labels
                if label in asked
            ]
            if members:
                named = (answers or {}).get(labels[0]) or asked[members[0]["label"]][0] or f"answer {number + 1}"
                listed.append({"answer": named, "members": members})
        return json.dumps({"groups": listed, "same_claims": [], "off_topic": [o for o in off_topic if o in asked]})

    return respond
