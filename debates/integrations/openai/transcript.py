"""A debate as one chat reply: the panel's work as the reasoning, the moderator's synthesis as the
content, then where the panel stands and who was who, the cost and the page's link.

Voices write at the same time; a reader follows one. The first voice to write is followed word by
word; the others' words wait, and each is written whole when it is done, or followed in its turn
when the one before it ends. Nothing is said twice and nothing is lost: the reasoning holds every
contribution once, in full.
"""

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from debates.engine.reading.streamed import Answer
from debates.engine.vocabulary import Outcome, Status, StepKind
from debates.live import story
from debates.live.watch import Ended, Happening, Phase, Restarted, RoundOpened, Spoken, Words
from debates.models import Question
from debates.represent import cost_line

# How our replies name their question: a follow-up in the same chat finds its parent by it.
MARK = "Teorema question {id}"
MARKED = re.compile(r"\[Teorema question (\d{1,18})\]")  # longer is no question of ours (nor an int to read)


@dataclass
class Piece:
    """A bit of the reply: ``reasoning`` (the debate) or ``content`` (the answer)."""

    field: str
    text: str


@dataclass
class Transcript:
    url: str = ""  # the question's page
    focus: str = ""  # the voice followed word by word
    heard: dict[str, str] = field(default_factory=dict)  # voice -> its words so far (while it writes)
    labels: dict[str, str] = field(default_factory=dict)  # voice -> its label and kind, as its heading says
    answers: dict[str, "Answer"] = field(default_factory=dict)  # the synthesis's voices that have written something
    done: list[Spoken] = field(default_factory=list)  # voices done while another is followed, not yet written

    def opening(self, question: Question) -> list[Piece]:
        return [Piece("reasoning", f"Teorema · panel {question.panel.name} · live at {self.url}\n")]

    def feed(self, happening: Happening) -> list[Piece]:
        match happening:
            case Phase() if not self.heard:
                return []
            case RoundOpened(title=title):
                return [Piece("reasoning", f"\n## {title}\n")]
            case Words(key=key, kind=StepKind.SYNTHESIS, text=text):
                answer = self.answers.setdefault(key, Answer())
                return [Piece("content", shown)] if (shown := answer.feed(text)) else []
            case Restarted(key=key) if key in self.answers:
                self.answers[key].restart()
                return [Piece("content", "\n\n[The moderator starts its answer again]\n\n")]
            case Words(key=key, label=label, kind=kind, text=text):
                return self.words(key, label, kind, text)
            case Restarted(key=key, label=label):
                return self.restarted(key, label)
            case Spoken(kind=StepKind.SYNTHESIS) as spoken:
                return self.synthesis(spoken)
            case Spoken() as spoken:
                return self.spoken(spoken)
            case Ended():  # a run stopped mid-voice: what was done meanwhile is still written
                self.focus, self.heard = "", {}
                return self.written()
        return []

    def words(self, key: str, label: str, kind: str, text: str) -> list[Piece]:
        self.labels[key] = heading(label, kind)
        self.heard[key] = self.heard.get(key, "") + text
        if not self.focus:
            self.focus = key
            return [Piece("reasoning", f"\n{self.labels[key]}\n{self.heard[key]}")]
        return [Piece("reasoning", text)] if key == self.focus else []

    def restarted(self, key: str, label: str) -> list[Piece]:
        self.heard[key] = ""
        return [Piece("reasoning", f"\n[{label} starts again]\n")] if key == self.focus else []

    def spoken(self, spoken: Spoken) -> list[Piece]:
        """A voice is done. The followed one ends, and the voices done meanwhile are written whole
        after it (never inside its text); the next writer is followed."""
        self.heard.pop(spoken.key, None)
        if spoken.key != self.focus:
            self.done.append(spoken)
            return [] if self.focus else self.written()
        self.focus = ""
        pieces = [Piece("reasoning", f"\n[as stored]\n{spoken.text}")] if not spoken.told else []
        return pieces + ending(spoken) + self.written()

    def written(self) -> list[Piece]:
        """The voices done while another was followed, each whole; then the next writer, followed."""
        pieces = []
        for spoken in self.done:
            pieces += [Piece("reasoning", f"\n{heading(spoken.label, spoken.kind)}\n{spoken.text}"), *ending(spoken)]
        self.done = []
        if self.heard:  # the voice that has written most is followed next
            key = max(self.heard, key=lambda k: len(self.heard[k]))
            self.focus = key
            pieces.append(Piece("reasoning", f"\n{self.labels[key]}\n{self.heard[key]}"))
        return pieces

    def synthesis(self, spoken: Spoken) -> list[Piece]:
        """The rest of the synthesis as people read it: what was held back, or all of it when
        nothing streamed (never the closing block a program reads)."""
        if spoken.status != Outcome.DONE:
            return []
        rest = self.answers.setdefault(spoken.key, Answer()).finish(spoken.text)
        return [Piece("content", rest)] if rest else []

    def closing(self, ended: Ended, found: Mapping[str, Any]) -> list[Piece]:
        """The content's end, from the question in short (``found``: ``represent.summary``, what MCP
        answers): where the panel stands, who was who and who dissents, what it cites, what it cost,
        where to read the debate."""
        q = ended.question
        if q is None:
            return [Piece("content", "\n\nThe question was deleted while it ran.")]
        pieces = []
        if not self.answers:
            pieces.append(Piece("content", q.verdict or "The moderator wrote no synthesis: see the debate's page."))
        if told := panel_lines(found):
            pieces.append(Piece("content", "\n\n" + "\n".join(told)))
        if cited := story.panel_sources_lines(found["sources"], found["searched"]):
            pieces.append(Piece("content", "\n\n" + "\n".join(cited)))
        status = " · needs human review" if q.status == Status.NEEDS_REVIEW else ""
        tokens = found["tokens_in"] + found["tokens_out"]
        figures = cost_line(found["calls"], tokens, found["cost"], found["voices_on_subscription"])
        mark = MARK.format(id=q.pk)
        pieces.append(Piece("content", f"\n\n---\n{figures}{status} · [{mark}]({self.url})"))
        return pieces


def panel_lines(found: Mapping[str, Any]) -> list[str]:
    """Where the panel stands (the page's chip and what the agreement is worth), then each voice by
    name and model, with its stance where it dissents and why: MCP's answer, in the same names."""
    support = story.support(found["agreement"], found["confidence"])
    stands = [support.words] if support else []
    stands += [f"{found['evidence_strength']} evidence"] if found["evidence_strength"] else []
    lines = [f"**Where the panel stands:** {' · '.join(stands)}"] if stands else []
    dissent = {entry["voice"]: entry for entry in found["dissent"]}
    for voice in found["identities"]:
        model = f" · {voice['model']}" if voice.get("model") else ""
        line = f"- **{voice['voice']}**: {voice.get('name', '')}{model}".rstrip(": ")
        if entry := dissent.get(voice["voice"]):
            line += f" — {entry['stance']}" + (f": {entry['why']}" if entry["why"] else "")
        lines.append(line)
    return lines


def ending(spoken: Spoken) -> list[Piece]:
    """How a contribution ends in the reasoning: its footnotes (or that it cites nothing), a line,
    and why when it did not complete."""
    failed = [Piece("reasoning", f"\n_{spoken.label}: {spoken.status}. {spoken.error}_")]
    notes = story.sources_lines(spoken.notes, spoken.unsourced)
    cited = [Piece("reasoning", "\n\n" + "\n".join(notes))] if notes else []
    return [*cited, *(failed if spoken.status != Outcome.DONE else []), Piece("reasoning", "\n")]


def heading(label: str, kind: str) -> str:
    """A contribution's heading in the reasoning: "**Panelist A** · blind answers"."""
    return f"**{label}** · {StepKind(kind).label.lower()}" if kind in StepKind else f"**{label}**"
