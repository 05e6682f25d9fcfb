"""``manage.py ask``: the debate streamed to the terminal, and an exit status scripts can trust."""

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from debates.management.commands import ask
from debates.models import Panel, Question
from debates.roster.toml import import_roster
from tests.fakes import judge
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script
from tests.viewer.test_first_run import DEFAULT_ROSTER

pytestmark = pytest.mark.django_db(transaction=True)
QUESTION = "Should we add read replicas or shard the database?"


def scripted_answer(family: str) -> str:
    return (
        f"{family.upper()} says: add read replicas because reads dominate the database load; "
        "shard only if writes grow. Confidence 70%, fails if writes triple."
    )


@pytest.fixture
def scripted(fake_provider, panel):
    for family in ("alpha", "beta", "gamma"):
        fake_provider.script(f"model-{family}", scripted_answer(family))
    fake_provider.script("model-moderator", Script(answer=SYNTHESIS, tokens_per_second=200))
    return fake_provider


def test_the_debate_streams_to_the_terminal_voice_by_voice(scripted, capsys):
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low")
    out = capsys.readouterr().out
    assert "== Round 0 — independent answers ==" in out
    for label in ("Panelist A", "Panelist B", "Panelist C"):
        assert f"{label} · answer · done" in out
    assert "ALPHA says: add read replicas" in out
    assert "Moderator:\n" + SYNTHESIS in out  # streamed whole, nothing doubled
    assert "Verdict: Use read replicas." in out
    assert "model-alpha" in out  # who was who, after the synthesis
    assert Question.objects.get().status == "done"


def test_a_terminal_that_follows_only_after_the_run_still_prints_every_round_once(scripted, capsys):
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low")
    capsys.readouterr()
    call_command("ask", "--follow", str(Question.objects.get().pk))  # the whole run is in the past
    out = capsys.readouterr().out
    headers = [line for line in out.splitlines() if line.startswith("== Round") or line.startswith("== Moderator")]
    assert headers == [
        "== Round 0 — independent answers ==",
        "== Round 1 — debate on the dossier ==",
        "== Moderator — synthesis ==",
    ]
    assert out.count("ALPHA says: add read replicas") == 2  # its answer and its debate reply, once each
    assert out.count(SYNTHESIS) == 1


def test_a_failed_run_exits_non_zero_and_says_why(scripted, capsys):
    scripted.script("model-moderator", Script(status=401, error="invalid x-api-key"))
    scripted.script("model-alpha", scripted_answer("alpha"), scripted_answer("alpha"), Script(status=401))
    with pytest.raises(SystemExit) as exit_:
        call_command("ask", QUESTION, "--panel", "house")
    assert exit_.value.code == 1
    out = capsys.readouterr().out
    assert "== Failed ==" in out
    assert "The moderator and its stand-in failed" in out
    assert "retry the synthesis" in out


def test_invalid_input_is_refused_before_anything_runs(panel):
    with pytest.raises(CommandError, match=r"There is no panel “nope”\."):
        call_command("ask", QUESTION, "--panel", "nope")
    with pytest.raises(CommandError, match=r"Write a question: it is empty\."):
        call_command("ask", "   ")
    assert not Question.objects.exists()


def test_a_question_with_a_byte_that_is_not_utf8_is_refused_in_words(panel):
    """A terminal's stray byte reaches Python as a lone surrogate (surrogateescape)."""
    with pytest.raises(CommandError, match=r"It holds a lone UTF-16 surrogate \(\\udcff\)"):
        call_command("ask", "Shard\udcff or replicate?", "--panel", "house")
    assert not Question.objects.exists()


def test_a_synthesis_without_a_verdict_says_so_instead_of_inventing_one(scripted, client, capsys):
    scripted.script("model-moderator", "## Notes\nThe panel talked about replicas and sharding at length.")
    call_command("ask", QUESTION, "--panel", "house")
    out = capsys.readouterr().out
    assert "Verdict:" not in out
    assert "The moderator wrote no verdict of its own" in out
    question = Question.objects.get()
    assert (question.status, question.verdict) == ("done", "")
    client.force_login(get_user_model().objects.create_superuser("root", password="pw-root-123"))
    page = client.get(question.get_absolute_url()).content.decode()
    assert "The moderator wrote no verdict of its own" in page
    assert "The panel talked about replicas and sharding at length." in page


def agreeing_answer(family: str) -> str:
    return (
        f"{family.upper()} says reads dominate.\n\nANSWER: Add read replicas\nCLAIMS:\n"
        "1. [fact] Reads are 90% of the queries | confidence: 80% | falsified if: the logs show more writes\n"
    )


def test_on_dissent_from_the_cli_skips_the_debate_and_says_what_it_saved(scripted, capsys):
    for family in ("alpha", "beta", "gamma"):
        scripted.script(f"model-{family}", agreeing_answer(family))
    call_command("ask", QUESTION, "--panel", "house", "--debate", "on_dissent")
    out = capsys.readouterr().out
    assert "== Round 1 — debate on the dossier ==" not in out
    assert (
        "Debate skipped: every voice that answered gives one answer (3/3, grouped by wording only). Saved 3 calls"
        in out
    )
    assert "Claims: 3 standing" in out
    assert "Agreement: unanimous 3/3" in out
    assert "Emerging answer: Add read replicas" in out
    assert "Grouped by wording only" in out
    for label in ("Panelist A", "Panelist B", "Panelist C"):
        assert f"{label} (" in out.split("Emerging answer:")[1].split("Claims:")[0]  # each voice's stance, named
    assert out.count("✓ agrees") == 3
    question = Question.objects.get()
    assert question.debate == "on_dissent"
    assert question.calls == 4


def test_an_unknown_debate_setting_is_refused_by_the_cli(panel):
    with pytest.raises(CommandError):
        call_command("ask", QUESTION, "--debate", "sometimes")
    assert not Question.objects.exists()


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_terminal_sees_what_is_happening_between_contributions(scripted):
    slow = Script(answer=scripted_answer("alpha"), first_token_delay=0.6)
    scripted.script("model-alpha", slow)
    out = Terminal()
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low", stdout=out)
    text = out.getvalue()
    assert "\r\x1b[K" in text  # one status line, rewritten in place
    assert re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Round 0 — independent answers · A [·…✓] B [·…✓] C [·…✓]", text)
    status_then_card = re.search(r"\r\x1b\[K\n?Panelist [ABC] · answer · done", text)
    assert status_then_card, "the status line is cleared before a contribution is printed"


def test_a_pipe_gets_no_status_line(scripted, capsys):
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low")
    out = capsys.readouterr().out
    assert "\x1b[K" not in out
    assert not any(mark in out for mark in "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")


def test_the_verdict_printed_is_the_stored_verdict_not_a_whole_section(scripted, capsys):
    conclusion = (
        "Confidence 70%: replicas first. Audit trail: A2 conceded to B (writes stay on the primary); "
        "C's sharding claim was rejected (growth is 15%/yr). Minority opinion worth keeping: shard by 2027."
    )
    synthesis = f"## Agreement\nReplicas.\n\n## Conclusion\n{conclusion}\n\nVERDICT: Add read replicas first.\n"
    scripted.script("model-moderator", synthesis)
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low")
    out = capsys.readouterr().out
    question = Question.objects.get()
    assert question.verdict == "Add read replicas first."
    assert "Verdict: Add read replicas first.\n" in out
    assert f"Verdict: {conclusion}" not in out


def test_the_judges_grouping_is_printed_in_words_not_as_json(scripted, capsys):
    for family, line in (("alpha", "Add read replicas"), ("beta", "Read replicas first"), ("gamma", "Shard now")):
        scripted.script(f"model-{family}", f"Because of the load.\n\nANSWER: {line}\n")
    call_command("ask", QUESTION, "--panel", "house")
    out = capsys.readouterr().out
    assert "Judge · agreement · done" in out
    assert "“Shard now”: Panelist" in out
    assert '{"groups"' not in out


def test_the_guards_reason_is_printed_where_they_refuse_the_judges_grouping(scripted, capsys):
    """Issue 50: the terminal printed the judge's grouping, then "not unanimous", with no reason."""
    lines = {"alpha": "Yes, add read replicas", "beta": "Yes, add replicas", "gamma": "No, shard now"}
    for family, line in lines.items():
        scripted.script(f"model-{family}", f"Because of the load.\n\nANSWER: {line}\n")
    scripted.script_judge(judge.grouping(lambda said: "one answer"))  # a judge that groups all three
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low")
    out = capsys.readouterr().out
    # The voices' labels are drawn at random: the "no" is either side of the pair.
    (refusal,) = re.findall(r"The judge grouped Panelist \w \(“[^”]+”\) with Panelist \w \(“[^”]+”\): refused, .*", out)
    assert "(“No, shard now”)" in refusal
    assert refusal.endswith(
        ("one answers yes, the other no; kept apart.", "one answers no, the other yes; kept apart.")
    )
    assert "Agreement: majority 2/3" in out


# --- following, and saying what answers (issue 44) ---------------------------------------------


def test_the_cli_says_when_the_embedded_demo_model_answers(make_question, capsys, db):
    import_roster(DEFAULT_ROSTER.read_text(encoding="utf-8"))  # the keyless setup: the Local trio
    question = make_question(None, Panel.objects.get(is_default=True), status="done", verdict="Replicas.")
    call_command("ask", "--follow", str(question.pk))
    out = capsys.readouterr().out
    assert "These answers come from the embedded demo model (SmolLM2-135M, no key needed)" in out
    assert "Add a provider's key" in out


def test_a_real_panel_gets_no_demo_warning(scripted, capsys):
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low")
    assert "demo model" not in capsys.readouterr().out


def test_following_a_run_elsewhere_and_leaving_never_cancels_it(make_question, panel, monkeypatch):
    question = make_question(None, panel, status="running")

    async def interrupted(self, question_id: int, here: bool) -> str:
        raise KeyboardInterrupt

    monkeypatch.setattr(ask.Command, "follow", interrupted)
    with pytest.raises(SystemExit) as exit_:
        call_command("ask", "--follow", str(question.pk))
    assert exit_.value.code == 130
    question.refresh_from_db()
    assert (question.status, question.cancel_requested) == ("running", False)


def test_following_a_question_that_does_not_exist_is_refused_in_words(db):
    with pytest.raises(CommandError, match=r"There is no question 424242\."):
        call_command("ask", "--follow", "424242")


def test_the_terminal_prints_no_line_a_program_reads(scripted, capsys):
    """Issue 44: the closing blocks (ANSWER, CLAIMS; VERDICT, CONFIDENCE, STANCES) were printed raw."""
    for family in ("alpha", "beta", "gamma"):
        scripted.script(f"model-{family}", agreeing_answer(family))
    block = "\n\nVERDICT: Add read replicas.\nCONFIDENCE: 0.8\nSTANCES: Panelist A agrees, Panelist B agrees\n"
    scripted.script("model-moderator", Script(answer=SYNTHESIS + block, tokens_per_second=400))
    call_command("ask", QUESTION, "--panel", "house", "--criticality", "low", "--debate", "on_dissent")
    out = capsys.readouterr().out
    assert "ANSWER:" not in out
    assert "CLAIMS:" not in out
    assert "Reads are 90% of the queries" in out  # the claim, as read
    assert not any(line.startswith(("VERDICT:", "CONFIDENCE:", "STANCES:")) for line in out.splitlines())
    assert "Verdict: Add read replicas." in out


def test_a_follow_up_names_its_parent_and_the_files_it_carries_and_how_each_voice_read_them(scripted, capsys, tmp_path):
    """Issue 50: the terminal told a shorter story than the page: no parent, no carried files, nothing
    on which voice read which file how."""
    from tests.fakes import files

    report = tmp_path / "report.pdf"
    report.write_bytes(files.pdf(["Reads are 90% of the queries."]))
    call_command("ask", QUESTION, "--panel", "house", "--attach", str(report))
    first = Question.objects.get()
    assert "Attached: report.pdf (PDF, " in capsys.readouterr().out
    call_command("ask", "And if writes double?", "--panel", "house", "--follow-up", str(first.pk))
    out = capsys.readouterr().out
    assert f"Follows up question {first.pk}: “{QUESTION}” — its verdict: Use read replicas." in out
    assert re.search(rf"Attached: report\.pdf \(PDF, [^)]*, from question {first.pk}\)", out)
    ending = out.split("==")[-1]
    said = re.search(r"File report\.pdf: (.*)", ending)[1]
    assert sorted(said.split("; ")) == ["Panelist A as text", "Panelist B as text", "Panelist C as text"]
