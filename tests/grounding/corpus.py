"""The corpus of computations as models write them (tests/corpus/checks/models.jsonl), checked as a
round is, and its figures: shared by its test and by bench/bench_checks.py.

Each row is what one voice wrote: a sentence of its prose (``prose``), a claim of its closing
block (``claim``) or a CALC line of it (``calc``), labelled with what a person would say of it:
``true``, ``false``, ``none`` (no computation stated: a number that is no computation, a negated,
hedged, reported or asked one) or ``ambiguous`` (more than one reading; no ✗ may come of it).
``value``, where given, is what SymPy computes for it, as the check says it: the row is expected to
be read. Every row is written into a contribution, read by the closing-block reader (engine.reading.
closing) and handed to the grounder as the engine hands a round (engine.checks.said).
"""

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debates.engine import checks
from debates.engine.events import ContributionResult
from debates.engine.reading import closing
from debates.engine.vocabulary import Outcome, StepKind
from debates.grounding import SympyGrounder

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "checks" / "models.jsonl"
FALSIFIER = "falsified if: SymPy computes another value"


def rows() -> list[dict[str, Any]]:
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def label(index: int) -> str:
    """A voice of its own for each row: a computation two rows share is checked for each."""
    return f"Panelist {index + 1}"


def contribution(row: dict[str, Any], index: int) -> ContributionResult:
    """The row as a voice's answer: its sentence in the prose, or its claim or CALC line in the block."""
    block = "ANSWER: Add read replicas\nCLAIMS:\n"
    if row["form"] == "prose":
        text = f"{row['text']}\n\n{block}1. [fact] Replicas absorb the reads | confidence: 80% | {FALSIFIER}\n"
    elif row["form"] == "claim":
        text = f"The numbers are in the block.\n\n{block}1. [fact] {row['text']} | confidence: 80% | {FALSIFIER}\n"
    else:
        text = (
            f"The numbers are in the block.\n\n{block}1. [fact] The sizing rests on a computation | confidence: 80% "
            f"| {FALSIFIER}\nCALC:\n- 1 | {row['text']}\n"
        )
    record = closing.read("answer", text, label(index))
    return ContributionResult(1, f"p{index}", label(index), StepKind.ANSWER, Outcome.DONE, text=text, ledger=record)


async def checked(grounder: SympyGrounder, found: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Each row's checks, the whole corpus checked as one round."""
    results = await grounder.check(checks.said([contribution(row, i) for i, row in enumerate(found)]))
    return [[c for c in results if c["label"] == label(i)] for i in range(len(found))]


def result(check: dict[str, Any]) -> str:
    """The value a check says SymPy computed: "1024" of "2^10 = 1024, not 1000"."""
    return check["computation"].rsplit(" = ", 1)[-1].split(", not ", 1)[0]


@dataclass(frozen=True)
class Figures:
    """What the checks did on the corpus, by what a person would say of each row."""

    rows: int
    true: int
    false: int
    confirmed: int  # true rows with a ✓ and no ✗
    caught: int  # false rows with a ✗
    false_marks: list[str]  # ✗ on a row that is not false (the goal: none)
    wrong_values: list[str]  # a false row confirmed, or a value said that SymPy did not compute (none)
    unchecked: int  # true or false rows with no ✓ nor ✗
    said_not_checked: int  # of those, the ones whose check says "not checked" and why

    def lines(self) -> list[str]:
        return [
            f"{self.rows} claims: {self.true} true, {self.false} false, the rest no computation or ambiguous",
            f"true claims marked ✗ (and look-alikes): {len(self.false_marks)} (goal 0)",
            f"wrong values stated as facts: {len(self.wrong_values)} (goal 0)",
            f"false claims caught: {self.caught} of {self.false}",
            f"true claims confirmed: {self.confirmed} of {self.true}",
            f"true or false claims left unchecked: {self.unchecked} "
            f"(of them said 'not checked' in words: {self.said_not_checked})",
        ]


def figures(found: list[dict[str, Any]], results: list[list[dict[str, Any]]]) -> Figures:
    false_marks, wrong_values = [], []
    confirmed = caught = unchecked = said = 0
    for row, row_checks in zip(found, results, strict=True):
        marks = {c["holds"] for c in row_checks}
        if False in marks and row["label"] != "false":
            false_marks.append(row["text"])
        if True in marks and row["label"] == "false":
            wrong_values.append(row["text"])
        if row.get("value") and any(result(c) != row["value"] for c in row_checks if c["holds"] is not None):
            wrong_values.append(row["text"])
        if row["label"] in ("true", "false") and not marks & {True, False}:
            unchecked += 1
            said += None in marks
        confirmed += row["label"] == "true" and marks & {True, False} == {True}
        caught += row["label"] == "false" and False in marks
    labels = [row["label"] for row in found]
    return Figures(
        len(found),
        labels.count("true"),
        labels.count("false"),
        confirmed,
        caught,
        false_marks,
        wrong_values,
        unchecked,
        said,
    )
