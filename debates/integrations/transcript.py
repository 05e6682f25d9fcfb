"""A debate as one chat reply: the panel's work as the reasoning, the moderator's synthesis as the
content, then a line with the confidence, the cost and the page's link.

Voices write at the same time; a reader follows one. The first voice to write is followed word by
word; the others' words wait, and each is written whole when it is done, or followed in its turn
when the one before it ends. Nothing is said twice and nothing is lost: the reasoning holds every
contribution once, in full.
"""

import re
from dataclasses import dataclass, field

from debates.engine.vocabulary import Outcome, Status, StepKind
from debates.live.watch import Ended, Happening, Phase, Restarted, RoundOpened, Spoken, Words
from debates.models import Question

# How our replies name their question: a follow-up in the same chat finds its parent by it.
MARK = "Teorema question {id}"
MARKED = re.compile(r"\[Teorema question (\d+)\]")


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
    answers: set[str] = field(default_factory=set)  # the synthesis's voices that have written something

    def opening(self, question: Question) -> list[Piece]:
        return [Piece("reasoning", f"Teorema · panel {question.panel.name} · live at {self.url}\n")]

    def feed(self, happening: Happening) -> list[Piece]:
        match happening:
            case Phase() if not self.heard:
                return []
            case RoundOpened(title=title):
                return [Piece("reasoning", f"\n## {title}\n")]
            case Words(key=key, kind=StepKind.SYNTHESIS, text=text):
                self.answers.add(key)
                return [Piece("content", text)]
            case Restarted(key=key) if key in self.answers:
                return [Piece("content", "\n\n[The moderator starts its answer again]\n\n")]
            case Words(key=key, label=label, kind=kind, text=text):
                return self.words(key, label, kind, text)
            case Restarted(key=key, label=label):
                return self.restarted(key, label)
            case Spoken(kind=StepKind.SYNTHESIS) as spoken:
                return self.synthesis(spoken)
            case Spoken() as spoken:
                return self.spoken(spoken)
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
        """A voice is done: the followed one ends; another is written whole; the next writer is followed."""
        self.heard.pop(spoken.key, None)
        pieces = []
        if spoken.key == self.focus:
            self.focus = ""
            if not spoken.told:  # its stored text is not what streamed (cleaned, or read)
                pieces.append(Piece("reasoning", f"\n[as stored]\n{spoken.text}"))
        elif spoken.text or spoken.status != Outcome.DONE:
            pieces.append(Piece("reasoning", f"\n{heading(spoken.label, spoken.kind)}\n{spoken.text}"))
        if spoken.status != Outcome.DONE:
            pieces.append(Piece("reasoning", f"\n_{spoken.label}: {spoken.status}. {spoken.error}_"))
        pieces.append(Piece("reasoning", "\n"))
        if not self.focus and self.heard:  # the voice that has written most is followed next
            key = max(self.heard, key=lambda k: len(self.heard[k]))
            self.focus = key
            pieces.append(Piece("reasoning", f"\n{self.labels[key]}\n{self.heard[key]}"))
        return pieces

    def synthesis(self, spoken: Spoken) -> list[Piece]:
        """The stored synthesis, when what streamed was not all of it."""
        if spoken.told or spoken.status != Outcome.DONE:
            return []
        again = "\n\n[as stored]\n" if spoken.key in self.answers else ""
        self.answers.add(spoken.key)
        return [Piece("content", again + spoken.text)]

    def closing(self, ended: Ended) -> list[Piece]:
        """The last line of the content: how sure, what it cost, where to read the debate."""
        q = ended.question
        if q is None:
            return [Piece("content", "\n\nThe question was deleted while it ran.")]
        pieces = []
        if not self.answers:
            pieces.append(Piece("content", q.verdict or "The moderator wrote no synthesis: see the debate's page."))
        status = " · needs human review" if q.status == Status.NEEDS_REVIEW else ""
        figures = f"{q.calls} calls · {q.tokens_in + q.tokens_out:,} tokens · ${q.cost:.4f}"
        mark = MARK.format(id=q.pk)
        pieces.append(Piece("content", f"\n\n---\n{figures}{status} · [{mark}]({self.url})"))
        return pieces


def heading(label: str, kind: str) -> str:
    """A contribution's heading in the reasoning: "**Panelist A** · blind answers"."""
    return f"**{label}** · {StepKind(kind).label.lower()}" if kind in StepKind else f"**{label}**"
