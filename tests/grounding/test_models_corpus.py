"""The checks on computations written as models write them (tests/corpus/checks/models.jsonl: prose
in five languages, closing-block claims and CALC lines, negated and hedged forms, decimal commas,
units, changes with signs, each defect of issue 49): no true claim is marked ✗, no wrong value is
stated as a fact, and each row with a value is read as the corpus says."""

import asyncio
import json

import pytest

from debates.grounding import SympyGrounder
from debates.grounding.sandbox import Sandbox
from tests.grounding import corpus
from tests.grounding.test_checks_corpus import CORPUS as OLD_CORPUS

ROWS = corpus.rows()
LABELS = ("true", "false", "none", "ambiguous")


@pytest.fixture(scope="module")
def checked() -> list[list[dict]]:
    """The whole corpus as one round, in a sandbox of its own (a budget no slow machine runs out of:
    the budget is tested on its own)."""

    async def run() -> list[list[dict]]:
        sandbox = Sandbox()
        try:
            return await corpus.checked(SympyGrounder(sandbox, budget_s=120), ROWS)
        finally:
            await sandbox.close()

    return asyncio.run(run())


def ids(row: dict) -> str:
    return f"{row['label']}-{row['form']}-{row['text'][:40]}"


def test_no_true_claim_is_marked_false_and_no_wrong_value_is_stated(checked):
    found = corpus.figures(ROWS, checked)
    assert found.false_marks == []
    assert found.wrong_values == []


@pytest.mark.parametrize("index", [i for i, r in enumerate(ROWS) if r.get("value")], ids=lambda i: ids(ROWS[i]))
def test_a_row_with_a_value_is_read_and_says_what_sympy_computed(checked, index):
    row, found = ROWS[index], checked[index]
    decided = [c for c in found if c["holds"] is not None]
    assert decided, f"not read: {found}"
    assert {corpus.result(c) for c in decided} == {row["value"]}
    if row["label"] == "false":
        assert all(c["holds"] is False for c in decided)
    else:
        assert all(c["holds"] is True for c in decided)


@pytest.mark.parametrize("index", [i for i, r in enumerate(ROWS) if r["label"] == "none"], ids=lambda i: ids(ROWS[i]))
def test_a_row_that_states_no_computation_is_not_checked(checked, index):
    assert checked[index] == []


def test_what_the_checks_cannot_read_is_left_unchecked_or_said_not_checked(checked):
    unread = [(row, found) for row, found in zip(ROWS, checked, strict=True) if not row.get("value")]
    assert all(c["holds"] is None or row["label"] == "ambiguous" for row, found in unread for c in found)


def test_the_corpus_is_new_large_and_covers_every_form_label_and_language():
    old = {json.loads(line)["text"] for line in OLD_CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()}
    assert len(ROWS) >= 130
    assert not {row["text"] for row in ROWS} & old
    assert len({(row["form"], row["text"]) for row in ROWS}) == len(ROWS)
    assert {(row["form"], row["label"]) for row in ROWS} >= {
        (form, label) for form in ("prose", "claim", "calc") for label in LABELS[:2]
    }
    assert {row["label"] for row in ROWS} == set(LABELS)
    assert {row["lang"] for row in ROWS} == {"en", "it", "es", "fr", "de"}
    assert sum("issue 49" in row.get("note", "") for row in ROWS) >= 12  # each defect of the issue is a line
