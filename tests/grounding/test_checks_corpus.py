"""Every claim of tests/corpus/checks/: a false computation is caught, a true one is never flagged,
and numbers that state no computation (dates, versions, codes, periods, hedged or reported
claims) are not checked at all."""

import json
from pathlib import Path

import pytest

from debates.grounding.checks import check
from debates.grounding.sandbox import Sandbox

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "checks" / "claims.jsonl"
ROWS = [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def checked() -> dict[str, list]:
    """The whole corpus checked at once, in one sandbox, as a round's claims are."""
    import asyncio

    async def run() -> list:
        sandbox = Sandbox()
        try:
            return await check([row["text"] for row in ROWS], sandbox)
        finally:
            await sandbox.close()

    return dict(zip((row["text"] for row in ROWS), asyncio.run(run()), strict=True))


@pytest.mark.parametrize("row", [r for r in ROWS if r["holds"] is False], ids=lambda r: r["text"][:50])
def test_a_false_computation_is_caught(row, checked):
    found = checked[row["text"]]
    assert any(not c.holds for c in found), f"not caught: {found}"
    assert {c.kind for c in found if not c.holds} == {row["kind"]}


@pytest.mark.parametrize("row", [r for r in ROWS if r["holds"] is True], ids=lambda r: r["text"][:50])
def test_a_true_computation_is_checked_and_never_flagged(row, checked):
    found = checked[row["text"]]
    assert found, "not checked"
    assert all(c.holds for c in found), [c.computation for c in found if not c.holds]


@pytest.mark.parametrize("row", [r for r in ROWS if r["holds"] is None], ids=lambda r: r["text"][:50])
def test_numbers_that_state_no_computation_are_not_checked(row, checked):
    assert checked[row["text"]] == []


def test_the_corpus_holds_every_kind_true_and_false():
    kinds = {(row["kind"], row["holds"]) for row in ROWS}
    for kind in ("arithmetic", "percent", "growth", "units", "algebra"):
        assert {(kind, True), (kind, False)} <= kinds
