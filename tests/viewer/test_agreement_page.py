"""Same answer, other words, on the page: a panel whose voices agree in their own words, and one
that splits in shared words, run end to end (fake providers over real sockets, the judge's
structured call, the recorder, the page). The stances, the emerging answer, the skipped or
narrowed debate and the moderator's own reading must tell one story, or show where they differ."""

import json
import re

import pytest
from asgiref.sync import async_to_sync

from debates.models import Panel, Question, Synthesis
from debates.runs import execute
from tests.fakes import judge
from tests.fakes.roster import make_panel, make_question
from tests.viewer.test_ledger_page import words

pytestmark = pytest.mark.django_db(transaction=True)

MODELS = ("model-alpha", "model-beta", "model-gamma")
QUESTION = "Should we split our monolith into microservices this year?"
REASONS = "The team is six engineers; the pain is a 40-minute CI, not coupling between deployables."


def answer(line: str) -> str:
    return (
        f"{REASONS}\n\nANSWER: {line}\nCLAIMS:\n"
        "1. [fact] The CI takes 40 minutes | confidence: 80% | falsified if: the CI logs show under 15 minutes\n"
    )


AGREEING = {
    "model-alpha": "No - stay a modular monolith this year",
    "model-beta": "No: keep the modular monolith",
    "model-gamma": "No - postpone; fix CI and add a worker first",
}
SPLIT = {
    "model-alpha": "Yes, extract billing as a service now",
    "model-beta": "No - keep the modular monolith",
    "model-gamma": "No: stay a monolith this year",
}


def synthesis(stances: str) -> str:
    return (
        "## Consensus\nStay a modular monolith this year.\n\n## Disagreements\nWhen to revisit.\n\n"
        "## Verdict\nKeep the modular monolith; fix CI first.\n\n"
        f"VERDICT: Keep the modular monolith this year.\nCONFIDENCE: 0.8\nSTANCES: {stances}\n"
    )


def labels_by_model(question: Question) -> dict[str, str]:
    return {entry["model"]: entry["label"] for entry in question.roster if entry["seat"].startswith("p")}


def run_panel(
    fake_provider, lines: dict[str, str], debate: str, meaning, stances: str, slug: str = "house"
) -> Question:
    for model, line in lines.items():
        fake_provider.script(
            model, lambda r, line=line: answer(line) if "on your own" in r.prompt else f"I keep it.\nANSWER: {line}"
        )
    fake_provider.script("model-moderator", synthesis(stances))
    fake_provider.script_judge(judge.grouping(meaning))
    panel = make_panel(fake_provider.base_url("openai"), slug=slug)
    Panel.objects.filter(pk=panel.pk).update(debate=debate)
    question = make_question(panel, text=QUESTION, owner=None)
    async_to_sync(execute.execute)(question.pk)
    return Question.objects.get(pk=question.pk)


def page(client, staff, question: Question) -> str:
    client.force_login(staff)
    return client.get(question.get_absolute_url()).content.decode()


def stance_of(markup: str, label: str) -> str:
    found = re.search(rf'<li class="stance stance-(\w+)"[^>]*>\s*<span class="who">{label}\b', markup)
    assert found, f"no stance for {label}"
    return found[1]


def test_agreeing_voices_in_their_own_words_are_one_answer_and_the_debate_is_skipped(client, staff, fake_provider):
    meaning = {line: "no" for line in AGREEING.values()}
    question = run_panel(fake_provider, AGREEING, "on_dissent", meaning, "A agrees; B agrees; C agrees")
    assert question.status == "done"
    debate = question.panel_run["debate"]
    assert (debate["skipped"], debate["agreement"], debate["grouped_by"]) == (True, "3/3", "judge")
    assert debate["calls_saved"] == 3 + 1 - 1  # the debate and its judge's call, less the call that decided it
    shown = page(client, staff, question)
    for label in labels_by_model(question).values():
        assert stance_of(shown, label) == "agrees"
    text = words(shown)
    assert any(f"Emerging answer {line}" in text for line in AGREEING.values())  # named in one voice's words
    assert "Grouped by meaning by the panel's judge" in text
    assert "split evenly" not in text
    assert "the moderator reads it otherwise" not in text
    assert "Debate skipped: every voice that answered gives one answer (3/3" in text
    judged = question.rounds.get(kind="answer").contributions.get(kind="agreement")
    assert json.loads(judged.text)["groups"][0]["members"]  # stored as the judge wrote it
    assert "Who gives the same answer, read by meaning" in shown  # shown as a grouping, not as JSON


def test_a_split_in_shared_words_is_a_split_and_the_moderator_reading_otherwise_is_shown(client, staff, fake_provider):
    meaning = {SPLIT["model-alpha"]: "yes", SPLIT["model-beta"]: "no", SPLIT["model-gamma"]: "no"}
    question = run_panel(fake_provider, SPLIT, "on_dissent", meaning, "A agrees; B agrees; C agrees")
    labels = labels_by_model(question)
    assert question.panel_run["debate"]["skipped"] is False
    assert question.panel_run["debate"]["agreement"] == "2/3"
    shown = page(client, staff, question)
    assert stance_of(shown, labels["model-alpha"]) == "disagrees"
    assert stance_of(shown, labels["model-beta"]) == "agrees"
    dissenter = words(shown.split(f'<span class="who">{labels["model-alpha"]}', 1)[1].split("</li>", 1)[0])
    assert "the moderator reads it otherwise: agrees" in dissenter
    assert Synthesis.objects.get(question=question).stances[labels["model-alpha"]] == "agrees"


def test_a_judge_that_fails_leaves_the_wording_and_the_page_says_so(client, staff, fake_provider):
    from tests.fakes.provider_server import Script

    fake_provider.script_judge(Script(status=500))
    for model, line in AGREEING.items():
        fake_provider.script(model, answer(line))
    fake_provider.script("model-moderator", synthesis("A agrees; B agrees; C agrees"))
    question = make_question(make_panel(fake_provider.base_url("openai")), text=QUESTION)
    async_to_sync(execute.execute)(question.pk)
    question.refresh_from_db()
    shown = words(page(client, staff, question))
    assert "Grouped by wording only" in shown
    assert "The judge's grouping could not be used (its call failed" in shown
    moderator = next(r for r in fake_provider.requests_for("model-moderator") if "You are the moderator" in r.prompt)
    assert "grouped by wording only" in moderator.prompt


def test_the_track_record_reads_the_same_story_sided_and_lone_dissent(fake_provider):
    from debates.models import Standing
    from debates.track import reading

    agreeing = run_panel(fake_provider, AGREEING, "always", {line: "no" for line in AGREEING.values()}, "A agrees")
    meaning = {SPLIT["model-alpha"]: "yes", SPLIT["model-beta"]: "no", SPLIT["model-gamma"]: "no"}
    fake_provider.reset()
    split = run_panel(fake_provider, SPLIT, "always", meaning, "A disagrees; B agrees; C agrees", slug="other")
    reading.read_pending()
    sided = {s.panelist.model: (s.side, s.lone) for s in Standing.objects.filter(reading__question=agreeing)}
    assert sided == {model: (1, False) for model in AGREEING}  # every paraphrase sided with the verdict
    sided = {s.panelist.model: (s.side, s.lone) for s in Standing.objects.filter(reading__question=split)}
    assert sided == {"model-alpha": (0, True), "model-beta": (1, False), "model-gamma": (1, False)}
