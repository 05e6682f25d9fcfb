"""What the prompts hold: the templates and the blocks filled into them."""

import re

import pytest

from debates.engine.prompts import PROMPTS_DIR, examples, options_block, render

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


@pytest.mark.parametrize("reader", ["Panelist A", "Panelist B", "Panelist C"])
def test_closing_block_examples_name_claims_that_exist_for_this_reader(reader):
    labels = ["Panelist A", "Panelist B", "Panelist C"]
    own, others = reader[-1], [label[-1] for label in labels if label != reader]
    ids = examples(reader, labels)
    debate = render("debate", brief="B", label=reader, dossier="D", checks="", contested="", **ids)
    assert f"- {others[0]}1 confirm" in debate
    assert f"- {others[-1]}2 refute" in debate
    assert f"- {own}1 correct" in debate  # correcting one's own claim concedes it: the example says so
    final = render("final", brief="B", label=reader, own="O", dossier="D", checks="", **ids)
    assert f"- {own}1 conceded" in final
    assert f"- {own}2 defended" in final
    critique = render("critique", brief="B", label=reader, dossier="D", checks="", contested="", **ids)
    assert not re.search(rf"^- {own}\d", critique, re.MULTILINE)  # a critique attacks the others' claims


def test_the_debate_prompt_asks_for_the_closing_block_last_and_only_once():
    debate = render(
        "debate", brief="B", label="Panelist A", dossier="D", checks="", contested="", **examples("Panelist A", [])
    )
    assert "End with your updated answer" not in debate
    assert debate.rstrip().endswith("ANSWER: <your updated answer in a few words>")
