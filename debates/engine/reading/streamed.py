"""A synthesis as it streams to a reader outside the page (the OpenAI-compatible endpoint's content,
the terminal): its words as they come, never the closing block a program reads."""

import re
from dataclasses import dataclass

from debates.engine.reading.synthesis import FENCE_MARK, RULE, for_people, label_of


@dataclass
class Answer:
    """The synthesis as the content streams it: its words as they come, except the lines a program
    reads (VERDICT, CONFIDENCE, STANCES, a fenced block, a JSON object, the rule before them). From
    the first line that may be one, the rest waits for the stored text, read as people read it
    (``synthesis.for_people``), and only what was not yet shown of that goes out."""

    shown: str = ""  # what went out
    pending: str = ""  # the start of a line not yet known to be prose
    at_line_start: bool = True
    held: bool = False

    def feed(self, text: str) -> str:
        """What of ``text`` may go out now."""
        if self.held:
            return ""
        self.pending += text
        out: list[str] = []
        while self.pending:
            end = self.pending.find("\n")
            line = self.pending if end < 0 else self.pending[:end]
            if self.at_line_start:
                if may_be_read_by_a_program(line):
                    self.held = True
                    break
                if end < 0 and LINE_START.match(line):
                    break  # it may still become "VERDICT:", a fence or a rule
            taken = self.pending if end < 0 else self.pending[: end + 1]
            out.append(taken)
            self.pending = self.pending[len(taken) :]
            self.at_line_start = end >= 0
        shown = "".join(out)
        self.shown += shown
        return shown

    def restart(self) -> None:
        self.shown, self.pending, self.at_line_start, self.held = "", "", True, False

    def finish(self, stored: str) -> str:
        """What remains to show of the stored synthesis: the rest of it after what streamed, or the
        whole of it (said so) when what streamed is not how it begins."""
        whole = for_people(stored)
        said = self.shown.rstrip()  # the stored text, read, has no blank lines at its end
        if not whole.startswith(said):
            rest = f"\n\n[as stored]\n{whole}"
        else:
            rest, already = whole[len(said) :], self.shown[len(said) :]
            gap = rest[: len(rest) - len(rest.lstrip())]
            rest = (gap[len(already) :] if gap.startswith(already) else "") + rest.lstrip() if rest.strip() else ""
        self.shown += rest
        self.held = True
        return rest


# A line's start that may still become a line a program reads: a label of up to four words not yet
# followed by its colon ("VERDICT", "**Confidence"), a fence's or a rule's first marks. Past it, the
# line is prose and streams word by word.
LINE_START = re.compile(
    r"^\s{0,3}(?:(?:#{1,6}\s+|>\s*)?(?:[-*+]\s+)?[*_`]*\s*(?:[^\W\d_][^\W\d]*(?:[ '’][^\W\d]*){0,3})?\s*[*_`]*"
    r"|[`~]+|([-*_=])(?:\s*\1)*)\s*$"
)


def may_be_read_by_a_program(line: str) -> bool:
    return bool(label_of(line) or FENCE_MARK.match(line) or RULE.match(line) or line.lstrip().startswith("{"))
