"""``manage.py evaluate`` end to end on the fake provider server: six items whose every figure is
worked out by hand below, stored, resumable, exported."""

import asyncio
import json
from datetime import timedelta
from pathlib import Path

import pytest
from asgiref.sync import sync_to_async
from django.core.management import CommandError, call_command
from django.utils import timezone

from debates.evaluation import datasets, runner
from debates.evaluation.models import Evaluation, EvaluationItem, EvaluationStatus
from debates.evaluation.runner import Runner, start
from debates.evaluation.summary import wilson
from debates.models import Contribution, Question, Status
from tests.evaluation import scenario
from tests.fakes.provider_server import Script
from tests.fakes.roster import make_panel
from tests.waiting import wait_for

pytestmark = pytest.mark.django_db(transaction=True)

# By hand, from scenario.BLIND and scenario.VERDICTS (✓ right, ✗ wrong):
#            moons  spider  hexagon  planet    capital   minutes
# alpha      2 ✓    8 ✓     6 ✓      B ✓       Sydney ✗  120 ✓            -> 5/6
# beta       2 ✓    6 ✗     5 ✗      Jupiter ✓ Canberra ✓ (words) ✗       -> 3/6
# gamma      3 ✗    6 ✗     4 ✗      (C) ✗     canberra ✓ 120 ✓           -> 2/6
# majority   2 ✓    6 ✗     tie ✗    Jupiter ✓ Canberra ✓ 120 ✓           -> 4/6, one tie
# verdict    2 ✓    8 ✓     6 ✓      Jupiter ✓ Sydney ✗  120 ✓            -> 5/6
EXPECTED_ROWS = [
    ("model", "Alpha house", 5, 6),
    ("model", "Beta house", 3, 6),
    ("model", "Gamma house", 2, 6),
    ("majority", "Majority vote", 4, 6),
    ("verdict", "Verdict after debate", 5, 6),
]
# Blind round, one debate round, the moderator, and the judge after each round: the voices' answers
# differ on every item, so the judge groups them each time.
CALLS_PER_ITEM = 3 + 1 + 3 + 1 + 1


def stored_rows(evaluation: Evaluation) -> list[tuple]:
    return [(r["kind"], r["label"], r["correct"], r["total"]) for r in evaluation.totals["rows"]]


def test_an_evaluation_scores_each_model_the_majority_and_the_verdict_as_worked_out_by_hand(
    scripted, six_items: Path, tmp_path: Path, capsys
) -> None:
    exported = tmp_path / "out.json"
    call_command("evaluate", str(six_items), "--panel", "house", "--export", "json", str(exported))
    out = capsys.readouterr().out

    evaluation = Evaluation.objects.get()
    assert evaluation.status == EvaluationStatus.DONE
    assert stored_rows(evaluation) == EXPECTED_ROWS
    items = {item.item_id: item for item in evaluation.items.all()}
    assert [(i, items[i].majority, items[i].majority_tie) for i in items] == [
        ("moons", "2", False),
        ("spider", "6", False),
        ("hexagon", "4 / 5 / 6", True),
        ("planet", "Jupiter", False),
        ("capital", "Canberra", False),
        ("minutes", "120", False),
    ]
    gamma_on_planet = next(a for a in items["planet"].answers if a["name"] == "Gamma house")
    assert (gamma_on_planet["answer"], gamma_on_planet["read"], gamma_on_planet["source"]) == ("", "Venus", "text")
    beta_on_minutes = next(a for a in items["minutes"].answers if a["name"] == "Beta house")
    assert (beta_on_minutes["read"], beta_on_minutes["correct"]) == ("", False)
    assert evaluation.totals["ties"] == 1
    assert evaluation.totals["calls"] == 6 * CALLS_PER_ITEM
    assert len(scripted.requests) == 6 * CALLS_PER_ITEM
    assert evaluation.totals["grounded"] == 0

    # Every item is a real question, stored like any other, finished through the normal run.
    questions = Question.objects.filter(evaluation_items__evaluation=evaluation)
    assert sorted(q.text for q in questions) == sorted(item.text for item in items.values())
    assert {q.status for q in questions} == {Status.DONE}
    assert all(q.force_panel and q.criticality == "medium" for q in questions)

    # The table as printed, Du et al.'s shape, with the Wilson interval of 5/6 (43.6%–97.0%).
    assert "Alpha house (model-alpha)        5/6     83.3%  44%–97%" in out
    assert "Gamma house (model-gamma)        2/6     33.3%  10%–70%" in out
    assert "Majority vote                    4/6     66.7%  30%–90%" in out
    assert "Verdict after debate             5/6     83.3%  44%–97%" in out
    assert "Majority vote: 1 tie(s), counted wrong." in out
    assert "[6/6] item minutes · expected 120 · Alpha house 120 ✓, Beta house — ✗, Gamma house 120 ✓" in out
    assert "so far: 6/6 · verdict 83.3% · majority 66.7% · best model 83.3%" in out  # plain lines off a terminal
    assert "\x1b[K" not in out

    data = json.loads(exported.read_text())
    assert [(r["kind"], r["label"], r["correct"], r["total"]) for r in data["evaluation"]["totals"]["rows"]] == (
        EXPECTED_ROWS
    )
    assert [item["id"] for item in data["items"]] == ["moons", "spider", "hexagon", "planet", "capital", "minutes"]


def test_the_wilson_interval_matches_the_worked_values() -> None:
    low, high = wilson(5, 6)  # p = 5/6, z = 1.96: (p + z²/2n ± z·sqrt(p(1-p)/n + z²/4n²)) / (1 + z²/n)
    assert (round(low, 3), round(high, 3)) == (0.436, 0.970)
    assert wilson(0, 10)[0] == 0.0
    assert wilson(10, 10)[1] == 1.0
    assert wilson(0, 0) == (0.0, 1.0)


def test_a_terminal_gets_a_progress_bar_rewritten_in_place(scripted, six_items: Path, monkeypatch, capsys) -> None:
    monkeypatch.setattr("django.core.management.base.OutputWrapper.isatty", lambda self: True)
    call_command("evaluate", str(six_items), "--limit", "2")
    out = capsys.readouterr().out
    assert "\r\x1b[K████████████░░░░░░░░░░░░ 1/2 · verdict 100.0%" in out
    assert "\r\x1b[K████████████████████████ 2/2" in out
    assert Evaluation.objects.get().items.count() == 2


class Stop(Exception):
    """Stands for the process dying between two items."""


def run(evaluation: Evaluation, stop_after: int | None = None) -> Runner:
    def item_done(_item: EvaluationItem, totals) -> None:
        if stop_after is not None and totals.done == stop_after:
            raise Stop

    return Runner(evaluation, item_done=item_done)


def asked(requests, item_id: str) -> list:
    question = next(item["question"] for item in scenario.ITEMS if item["id"] == item_id)
    return [r for r in requests if question in r.prompt]


async def test_an_interrupted_evaluation_resumes_and_never_asks_a_finished_item_again(scripted, panel, six_items):
    dataset = datasets.load(str(six_items))
    evaluation, resumed = await sync_to_async(start)(dataset, panel, None, {})
    assert not resumed
    with pytest.raises(Stop):
        await run(evaluation, stop_after=3).run()
    stopped = await Evaluation.objects.aget(pk=evaluation.pk)
    assert stopped.status == EvaluationStatus.INTERRUPTED
    assert await stopped.items.filter(finished_at__isnull=False).acount() == 3
    first = len(scripted.requests)
    assert first == 3 * CALLS_PER_ITEM

    again, resumed = await sync_to_async(start)(datasets.load(str(six_items)), panel, None, {})  # the same arguments
    assert (again.pk, resumed) == (evaluation.pk, True)
    await run(again).run()
    later = scripted.requests[first:]
    for done in ("moons", "spider", "hexagon"):
        assert asked(later, done) == []
    for rest in ("planet", "capital", "minutes"):
        assert len(asked(later, rest)) == CALLS_PER_ITEM
    finished = await Evaluation.objects.aget(pk=evaluation.pk)
    assert finished.status == EvaluationStatus.DONE
    assert stored_rows(finished) == EXPECTED_ROWS  # the same figures as a run never interrupted
    assert await Question.objects.acount() == 6


async def test_a_question_stopped_mid_debate_resumes_through_its_lease_without_repeating_a_call(
    fake_provider, panel, six_items, monkeypatch
):
    # Alpha answers items 1-3 (blind + debate: 6 requests) and item 4's blind round, then hangs
    # in item 4's debate while beta and gamma finish theirs.
    alpha = Script(answer=scenario.voice("alpha"))
    scenario.script(fake_provider, *[alpha] * 7, Script(fault="hang"))
    evaluation, _ = await sync_to_async(start)(datasets.load(str(six_items)), panel, None, {})
    running = asyncio.create_task(Runner(evaluation).run())

    async def debated_by_two() -> bool:
        debated = Contribution.objects.filter(
            round__question__evaluation_items__item_id="planet", round__kind="debate", status="done"
        )
        return await debated.acount() == 2

    await wait_for(debated_by_two, "beta and gamma to finish item 4's debate")
    running.cancel()  # what Ctrl-C does to the command's run
    with pytest.raises(asyncio.CancelledError):
        await running
    planet = await EvaluationItem.objects.select_related("question").aget(item_id="planet")
    assert planet.finished_at is None
    assert planet.question.status == Status.RUNNING
    assert planet.question.lease_expires <= timezone.now()  # freed at once for whoever resumes it
    assert (await Evaluation.objects.aget(pk=evaluation.pk)).status == EvaluationStatus.INTERRUPTED

    # As if the process had been killed instead: another owner's lease, lapsing shortly.
    await Question.objects.filter(pk=planet.question_id).aupdate(
        lease_owner="dead-host:1", lease_expires=timezone.now() + timedelta(seconds=0.5)
    )
    monkeypatch.setattr(runner, "LEASE_POLL", 0.05)
    notes: list[str] = []
    before = len(fake_provider.requests)
    scenario.script(fake_provider)  # alpha answers again
    await Runner(await Evaluation.objects.aget(pk=evaluation.pk), note=notes.append).run()
    held = f"item 4: question {planet.question_id} is held by dead-host:1; "
    assert notes == [held + "waiting for it to finish or for its lease to lapse"]
    later = fake_provider.requests[before:]
    on_planet = asked(later, "planet")
    # Only the calls that never finished: alpha's debate, then the judge and the moderator (on its model).
    assert [r.model for r in on_planet] == ["model-alpha", "model-moderator", "model-moderator"]
    assert "on your own" not in on_planet[0].prompt
    assert len(later) == 3 + 2 * CALLS_PER_ITEM
    finished = await Evaluation.objects.aget(pk=evaluation.pk)
    assert stored_rows(finished) == EXPECTED_ROWS


def test_rerunning_a_finished_evaluation_starts_a_new_one(scripted, six_items: Path) -> None:
    call_command("evaluate", str(six_items), "--limit", "1")
    call_command("evaluate", str(six_items), "--limit", "1")
    assert Evaluation.objects.count() == 2


def test_resume_by_id_of_a_finished_evaluation_only_reports_and_exports(scripted, six_items, tmp_path, capsys):
    call_command("evaluate", str(six_items), "--limit", "2")
    evaluation = Evaluation.objects.get()
    calls = len(scripted.requests)
    exported = tmp_path / "out.csv"
    call_command("evaluate", "--resume", str(evaluation.pk), "--export", "csv", str(exported))
    assert len(scripted.requests) == calls
    assert exported.read_text().splitlines()[0].startswith("index,id,question,expected,kind,status,Alpha house answer")
    assert "Done: 2 of 2 items" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ([], "Give a data set (a .jsonl or .csv file, or arithmetic:N[:SEED]) or --resume ID."),
        (["arithmetic:3", "--panel", "nope"], "There is no panel “nope”. The panels: house."),
        (["arithmetic:3", "--limit", "0"], "--limit must be at least 1."),
        (["arithmetic:3", "--concurrency", "0"], "--concurrency must be between 1 and 32."),
        (["arithmetic:3", "--export", "xml", "out.xml"], "--export takes csv or json, not “xml”."),
        (["arithmetic:3", "--user", "nobody"], "There is no user “nobody”."),
        (["--resume", "999"], "There is no evaluation 999."),
        (["arithmetic:3", "--resume", "1"], "Give a data set or --resume ID, not both."),
        (["missing.jsonl"], "missing.jsonl: cannot be read (No such file or directory)"),
        (
            ["arithmetic:3", "--export", "csv", "/nowhere/out.csv"],
            "--export: the folder of /nowhere/out.csv does not exist.",
        ),
    ],
)
def test_bad_arguments_are_refused_in_words_before_any_call(scripted, arguments, error) -> None:
    with pytest.raises(CommandError) as refused:
        call_command("evaluate", *arguments)
    assert str(refused.value) == error
    assert scripted.requests == []


def test_a_panel_that_cannot_run_is_refused_before_any_call(scripted, panel) -> None:
    panel.moderator.enabled = False
    panel.moderator.save()
    with pytest.raises(CommandError, match="cannot run: Moderator house is disabled"):
        call_command("evaluate", "arithmetic:2", "--panel", "house")
    assert scripted.requests == []
    assert not Evaluation.objects.exists()


def test_a_question_that_fails_is_scored_wrong_and_reported_not_retried(scripted, six_items: Path, capsys) -> None:
    scripted.script("model-alpha", Script(status=401, error="invalid key"))
    call_command("evaluate", str(six_items), "--limit", "1")
    item = EvaluationItem.objects.get()
    assert item.status == Status.FAILED
    assert item.finished_at is not None
    assert {a["name"]: a["source"] for a in item.answers}["Alpha house"] == "failed"
    # The voices that answered before the run failed keep their answers (how many did depends on
    # the race with the failure); the verdict, which never came, is scored wrong.
    assert (item.verdict, item.verdict_correct) == ("", False)
    assert "1 question(s) did not finish done: see the page." in capsys.readouterr().out


def test_items_run_concurrently_and_score_as_they_would_one_by_one(scripted, six_items: Path) -> None:
    for family in scenario.FAMILIES:  # slow enough that two items' blind rounds overlap
        scripted.script(f"model-{family}", Script(answer=scenario.voice(family), first_token_delay=0.3))
    call_command("evaluate", str(six_items), "--limit", "2", "--concurrency", "2")
    assert scripted.max_in_flight == 6  # two items, three voices each
    assert stored_rows(Evaluation.objects.get()) == [
        ("model", "Alpha house", 2, 2),  # moons ✓ spider ✓
        ("model", "Beta house", 1, 2),  # ✓ ✗
        ("model", "Gamma house", 0, 2),  # ✗ ✗
        ("majority", "Majority vote", 1, 2),  # 2 ✓, 6 ✗
        ("verdict", "Verdict after debate", 2, 2),
    ]


def test_a_vote_panel_is_scored_by_its_ballots_and_no_consensus_is_no_verdict(fake_provider, tmp_path: Path) -> None:
    panel = make_panel(fake_provider.base_url("openai"), protocol="vote", slug="vote")
    panel.default_criticality = "high"  # 4/5 must agree, else a person decides
    panel.save()
    ballots = {"moons": ("2", "2", "3"), "planet": ("Jupiter", "B", "Jupiter")}
    for family, position in zip(scenario.FAMILIES, range(3), strict=True):
        fake_provider.script(
            f"model-{family}",
            lambda request, i=position: json.dumps(
                {"decision": ballots[scenario.item_of(request.prompt)][i], "confidence": 0.8, "reasoning": "known"}
            ),
        )
    dataset = tmp_path / "two.jsonl"
    dataset.write_text("".join(json.dumps(i) + "\n" for i in scenario.ITEMS if i["id"] in ballots))
    call_command("evaluate", str(dataset), "--panel", "vote")
    moons, planet = EvaluationItem.objects.order_by("index")
    # moons: 2/3 agree, below 4/5: needs review, and "No consensus: agreement 2/3…" is not the answer 2.
    assert moons.status == Status.NEEDS_REVIEW
    assert moons.verdict.startswith("No consensus: agreement 2/3")
    assert (moons.verdict_read, moons.verdict_correct, moons.majority, moons.majority_correct) == ("", False, "2", True)
    assert [a["read"] for a in moons.answers] == ["2", "2", "3"]
    # planet: "B" is Jupiter, so 3/3 agree and the vote decides.
    assert (planet.status, planet.verdict_read, planet.verdict_correct) == (Status.DONE, "Jupiter", True)
    assert stored_rows(Evaluation.objects.get())[-2:] == [
        ("majority", "Majority vote", 2, 2),
        ("verdict", "Verdict after debate", 1, 2),
    ]


@pytest.mark.parametrize(("flags", "grounded"), [([], False), (["--grounding"], True)])
def test_the_panel_is_measured_without_sympy_handing_it_the_answer(scripted, flags, grounded) -> None:
    """Arithmetic is exactly the maths SymPy would compute for the panel: an evaluation asks without it."""
    call_command("evaluate", "arithmetic:2:7", "--panel", "house", *flags)
    questions = Question.objects.all()
    assert [q.grounding for q in questions] == [grounded, grounded]
    blind = [r.prompt for r in scripted.requests if "on your own" in r.prompt]
    assert len(blind) == 6
    assert all(("Verified facts" in prompt) is grounded for prompt in blind)
    assert Evaluation.objects.get().totals["grounded"] == (2 if grounded else 0)
