"""What the terminal prints of a run (``manage.py ask``): the one follower's happenings as lines,
then the run's end from the one representation.

Round headers; each voice when its contribution is stored (the judge's grouping in words); the
synthesis as it streams; then how it ended, the verdict, who was who and what it cost. A terminal
also gets one status line, rewritten in place, saying what is under way between contributions.
"""

from collections import Counter
from typing import Any

from django.core.management.base import OutputWrapper
from django.core.management.color import Style
from django.utils.text import Truncator

from debates import service
from debates.attachments import shown
from debates.engine.reading.streamed import Answer
from debates.engine.vocabulary import Outcome, Status, StepKind
from debates.live import claims, story
from debates.live.watch import Ended, Happening, Phase, Restarted, RoundOpened, Spoken, Started, Words
from debates.models import Question
from debates.represent import cost_line

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
MARKS = {"waiting": "·", "streaming": "…", "retrying": "↻", Outcome.DONE: "✓"}  # any other end: ✗
DEMO = (
    "These answers come from the embedded demo model (SmolLM2-135M, no key needed): they show how a debate "
    "runs, not what a real panel would conclude. Add a provider's key (docs/providers.md) for real answers."
)


class Printer:
    """Prints what happens in one run to ``out``, once each, in the order it happens."""

    def __init__(self, out: OutputWrapper, style: Style) -> None:
        self.out = out
        self.style = style
        self.tty = out.isatty()
        self.phase = ""
        self.voices: dict[str, str] = {}  # the current round's voices: label -> its mark
        self.streamed: dict[str, Answer] = {}  # the synthesis, printed as it comes (not its closing block)
        self.status_shown = False
        self.ticks = 0

    def write(self, text: str, ending: str = "\n") -> None:
        self.out.write(text, ending=ending)
        self.out.flush()

    def show(self, happening: Happening) -> None:
        match happening:
            case Phase(text=text):
                self.phase = text
            case RoundOpened(title=title):
                self.clear_status()
                self.voices = {}
                self.write("\n" + self.style.MIGRATE_HEADING(f"== {title} =="))
            case Started(label=label, kind=kind) if kind != StepKind.SYNTHESIS:
                self.voices.setdefault(label, MARKS["waiting"])
            case Words(key=key, label=label, kind=StepKind.SYNTHESIS, text=text):
                self.synthesis_words(key, label, text)
            case Words(label=label):
                self.voices[label] = MARKS["streaming"]
            case Restarted(key=key) if key in self.streamed:
                self.streamed[key].restart()
                self.write(self.style.WARNING("\n[the moderator's answer restarts]"))
            case Restarted(label=label):
                self.voices[label] = MARKS["retrying"]
            case Spoken(kind=StepKind.SYNTHESIS) as spoken:
                self.synthesis_done(spoken)
            case Spoken() as spoken:
                self.voices[spoken.label] = MARKS.get(spoken.status, "✗")
                self.contribution(spoken)
            case Ended():
                self.clear_status()
                return
        self.show_status()

    def synthesis_words(self, key: str, label: str, text: str) -> None:
        """The synthesis, one voice, printed as it arrives."""
        if key not in self.streamed:
            self.streamed[key] = Answer()
            self.clear_status()
            self.write(self.style.MIGRATE_LABEL(f"\n{label}:"))
        self.write(self.streamed[key].feed(text), ending="")

    def synthesis_done(self, spoken: Spoken) -> None:
        """The rest of the synthesis as people read it (what was held back, or all of it)."""
        self.clear_status()
        if spoken.status != Outcome.DONE:
            self.contribution(spoken)
            return
        if spoken.key not in self.streamed:
            self.streamed[spoken.key] = Answer()
            self.write(self.style.MIGRATE_LABEL(f"\n{spoken.label}:"))
        self.write(self.streamed[spoken.key].finish(spoken.text).rstrip())

    def contribution(self, spoken: Spoken) -> None:
        self.clear_status()
        tokens = f"{spoken.tokens_in:,} in + {spoken.tokens:,} out tokens"
        cost = story.ON_SUBSCRIPTION if spoken.on_subscription else f"${spoken.cost:.4f}"
        stats = f"{tokens} · {cost} · {spoken.latency_ms / 1000:.1f} s"
        self.write(self.style.MIGRATE_LABEL(f"\n{spoken.label} · {spoken.kind} · {spoken.status} · {stats}"))
        if spoken.status != Outcome.DONE:
            self.write(self.style.ERROR(spoken.error or spoken.status))
        if (spoken.shown or spoken.text).strip():
            self.write((spoken.shown or spoken.text).strip())
        if cited := story.sources_lines(spoken.notes, spoken.unsourced):
            self.write("\n".join(cited))

    def show_status(self) -> None:
        """What is under way, between the printed contributions (a terminal only: in a pipe or a
        log, each round's header says it, and a rewritten line would be noise)."""
        if not self.tty or self.streamed:
            return
        voices = " ".join(f"{label.removeprefix('Panelist ')} {mark}" for label, mark in sorted(self.voices.items()))
        status = f"{self.phase} · {voices}" if voices else self.phase
        if not status:
            return
        self.ticks += 1
        self.write(f"\r\x1b[K{SPINNER[self.ticks % len(SPINNER)]} {status}"[:200], ending="")
        self.status_shown = True

    def clear_status(self) -> None:
        """Before printing anything else, the status line goes."""
        if self.status_shown:
            self.write("\r\x1b[K", ending="")
            self.status_shown = False

    def ending(self, found: dict[str, Any]) -> None:
        """How the run ended, from the question's representation: the outcome, the ledger in short,
        the verdict, who was who, what it cost, and for a failed run what can be done."""
        self.write("\n\n" + self.style.MIGRATE_HEADING(f"== {Status(found['status']).label} =="))
        if found["error"]:
            self.write(self.style.ERROR(found["error"]))
        if consensus := found["consensus"]:
            self.write(f"Consensus: agreement {consensus['agreement']} against threshold {consensus['threshold']}")
        for line in [*files_lines(found), *ledger_lines(found)]:
            self.write(line)
        for line in (found["panel_run"] or {}).get("degradations", []):  # a voice dropped, and why
            self.write(self.style.WARNING(line))
        for flag in (found["ledger"] or {}).get("flags", []):
            self.write(self.style.WARNING(flag))
        if found["verdict"]:
            self.write(self.style.SUCCESS(f"Verdict: {found['verdict']}"))
        elif found["status"] == Status.DONE:
            self.write(self.style.WARNING("The moderator wrote no verdict of its own: read its synthesis above."))
        for voice in found["identities"]:
            self.write(f"  {voice['label']}: {voice['name']} ({voice['model']}, {voice['provider']})")
        tokens = found["tokens_in"] + found["tokens_out"]
        self.write(cost_line(found["calls"], tokens, found["cost"], found["voices_on_subscription"]))
        if found["status"] == Status.FAILED:
            self.write(what_can_be_done(found["id"]))


def opening(question: Question) -> list[str]:
    """What the terminal says before the run: the question a follow-up follows (and its verdict),
    then every file the panel reads, the ones carried over from the thread said so."""
    lines = []
    if parent := question.parent:
        verdict = f" — its verdict: {parent.verdict}" if parent.verdict else ""
        lines.append(f"Follows up question {parent.pk}: “{Truncator(parent.text).chars(100)}”{verdict}")
    for found in shown.for_question(question):
        row = found.row
        carried = f", from question {row.question_id}" if found.earlier else ""
        lines.append(f"Attached: {row.name} ({row.kind_label}, {found.size}{carried})")
    return lines


def files_lines(found: dict[str, Any]) -> list[str]:
    """Each file the panel read and how each voice received it, as the page's list says it."""
    return [f"File {f['name']}: {shown.received(f['voices'])}" for f in found["attachments"] if f["voices"]]


def ledger_lines(found: dict[str, Any]) -> list[str]:
    """Whether the debate was skipped or narrowed (and what that saved), then where the panel stands
    as the page says it: the agreement and its support, the emerging answer, how the answers were
    grouped and what the guards refused or noticed, each voice's stance with why, the claims."""
    lines = []
    if check := found["panel_run"].get("debate"):
        name, said = story.debate_check(check)
        lines.append(f"{name}: {said}")
    ledger = found["ledger"] or {}
    confidence = (found["synthesis"] or {}).get("confidence")
    if backing := story.support(story.agreement(ledger, found["consensus"] or {}), confidence):
        lines.append(f"Agreement: {backing.words} ({backing.level} support)")
    stances = (found["synthesis"] or {}).get("stances")
    view = claims.view(ledger, found["identities"], stances) if ledger.get("labels") else None
    if view is None:
        return lines
    lines.append(f"Emerging answer: {view.emerging or 'none: no answer leads the others'}")
    lines += [view.grouped_by] if view.grouped_by else []
    lines += [f"  {note}" for note in view.agreement_notes]
    for voice in view.voices:
        why = f" — {voice.why}" if voice.why else ""
        lines.append(f"  {story.who(voice.label, voice.name)}: {voice.symbol} {voice.words}{why}")
    if statuses := Counter(claim["status"] for claim in ledger["claims"]):
        lines.append("Claims: " + ", ".join(f"{n} {status}" for status, n in statuses.most_common()))
    return lines


def what_can_be_done(question_id: int) -> str:
    """A failed run's ways on, as commands (the page's "What you can do")."""
    failure = service.failure(question_id)
    again = f"python manage.py ask --retry {question_id}"
    if not failure.failed:
        return f"Run it again from where it stopped: {again}"
    names = ", ".join(failure.labels)
    lines = [f"Retry {names} (every completed contribution is reused): {again}"]
    if not failure.without:
        lines.append(f"Go on without {names}, as the degrade policy would: {again} --without-failed")
    return "\n".join(lines)
