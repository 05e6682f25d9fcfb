"""What the prompts hold: the templates and the blocks filled into them."""

import re

import pytest

from debates.engine.prompts import PROMPTS_DIR, options_block, render

OPTIONS = ("PostgreSQL", "MongoDB", "Cassandra")


def test_the_options_block_lists_each_option_to_copy_verbatim():
    assert options_block(()) == ""
    block = options_block(OPTIONS)
    assert "exactly" in block
    assert all(f"- {option}" in block for option in OPTIONS)


@pytest.mark.parametrize("step", ["vote", "revote", "tiebreak"])
def test_vote_prompts_ask_for_a_bare_choice_and_carry_the_options(step):
    template = (PROMPTS_DIR / f"{step}.md").read_text(encoding="utf-8")
    assert set(re.findall(r"\$(\w+)", template)) == {"brief", "options_block"} | (
        {"dossier"} if step != "vote" else set()
    )
    with_options = render(step, brief="B", dossier="D", options_block=options_block(OPTIONS))
    assert "- MongoDB" in with_options
    without = render(step, brief="B", dossier="D", options_block="")
    assert "1–6 words" in without
    assert '"decision"' in without
