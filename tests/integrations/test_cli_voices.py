"""A debate whose voices are Claude Code, Gemini CLI, Qwen Code and Codex, the real binaries against the
fake: each voice's words stream to `manage.py ask` as they come, and what is stored (contributions,
tokens, the ledger) is any debate's. A voice that fails is dropped by the panel's policy, in words;
the question's files reach each voice as its CLI reads them."""

import pytest
from django.core.management import call_command

from debates import service
from debates.integrations.mcp.server import in_words
from debates.models import Contribution, Question
from tests.fakes import files
from tests.fakes.answers import SYNTHESIS
from tests.fakes.clis import MODELS, make_cli_panel
from tests.fakes.provider_server import Script

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("cli_sandbox")]
QUESTION = "Should we add read replicas or shard the database?"


def answer(family: str) -> str:
    return (
        f"{family} says: add read replicas because reads dominate the database load; shard only if writes grow.\n\n"
        "ANSWER: add read replicas\nCLAIMS:\n- C1: reads are 90% of the load [confidence: 0.8] "
        "[fails if: writes exceed 30% of queries]"
    )


@pytest.fixture
def scripted(fake_provider):
    for cli, family in (("claude-code", "CLAUDE"), ("gemini-cli", "GEMINI"), ("qwen-code", "QWEN"), ("codex", "GPT")):
        fake_provider.script(
            MODELS[cli],
            lambda request, family=family: SYNTHESIS if "moderator of a panel" in request.system else answer(family),
        )
    return fake_provider


def test_a_debate_of_four_clis_streams_each_voice_to_the_terminal_and_is_stored_like_any(scripted, capsys):
    make_cli_panel(scripted.url, ("claude-code", "gemini-cli", "qwen-code", "codex"))  # Codex on the Responses API
    call_command("ask", QUESTION, "--panel", "clis", "--criticality", "low")
    out = capsys.readouterr().out
    for family in ("CLAUDE", "GEMINI", "QWEN", "GPT"):
        assert f"{family} says: add read replicas" in out
    assert "Verdict: Use read replicas." in out
    question = Question.objects.get()
    assert question.status == "done"
    answers = Contribution.objects.filter(round__question=question, round__kind="answer")
    assert sorted(c.panelist.name for c in answers) == ["Claude Code", "Codex", "Gemini CLI", "Qwen Code"]
    assert all(c.tokens_in > 0 and c.tokens_out > 0 and not c.tokens_estimated for c in answers)
    assert question.ledger  # the claims, as any debate's


def test_a_cli_voice_that_fails_twice_is_dropped_and_the_panel_says_which_and_why(scripted, capsys):
    panel = make_cli_panel(scripted.url)
    panel.failure_policy = "degrade"
    panel.save()
    scripted.script(
        MODELS["gemini-cli"], Script(status=400, error="You have exhausted your daily quota on this model.")
    )
    call_command("ask", QUESTION, "--panel", "clis", "--criticality", "low")
    out = capsys.readouterr().out
    question = Question.objects.get()
    assert question.status == "done"
    failed = Contribution.objects.get(round__question=question, round__kind="answer", panelist__name="Gemini CLI")
    assert failed.status == "failed"
    assert "Gemini CLI" in out
    assert failed.error in out or "daily quota" in out


def test_a_cli_voice_that_reports_no_cost_is_on_your_subscription_in_every_channel(scripted, capsys, admin_client):
    make_cli_panel(scripted.url)  # Claude Code on an API key reports its price; the other two report none
    call_command("ask", QUESTION, "--panel", "clis", "--criticality", "low")
    out = capsys.readouterr().out
    question = Question.objects.get()
    gemini = Contribution.objects.get(round__question=question, round__kind="answer", panelist__name="Gemini CLI")
    claude = Contribution.objects.get(round__question=question, round__kind="answer", panelist__name="Claude Code")
    assert gemini.on_subscription
    assert gemini.cost == 0
    assert not claude.on_subscription
    assert claude.cost > 0
    total = f"${question.cost:.4f} + 2 voices on your subscription"
    tokens = f"{gemini.tokens_in:,} in + {gemini.tokens_out:,} out tokens"
    assert f"{gemini.label} · answer · done · {tokens} · on your subscription" in out
    assert total in out

    found = admin_client.get(f"/api/questions/{question.pk}").json()
    assert found["voices_on_subscription"] == 2
    contributions = {c["label"]: c for r in found["rounds"] for c in r["contributions"] if c["kind"] == "answer"}
    assert contributions[gemini.label]["cost"] is None
    assert contributions[gemini.label]["on_subscription"]
    assert contributions[claude.label]["cost"] == str(claude.cost)
    assert not contributions[claude.label]["on_subscription"]

    exported = admin_client.get(f"/q/{question.pk}/export.md").content.decode()
    assert "out tokens · on your subscription" in exported
    assert total in exported
    assert "$0.000000" not in exported
    as_json = admin_client.get(f"/q/{question.pk}/export.json").json()
    assert as_json["voices_on_subscription"] == 2

    page = admin_client.get(question.get_absolute_url()).content.decode()
    assert 'class="on-subscription"' in page
    assert "+ 2 voices on your subscription" in page


def test_a_cli_voice_at_its_usage_limit_is_dropped_and_the_terminal_the_page_the_export_and_mcp_say_why(
    scripted, capsys, admin_client, admin_user
):
    panel = make_cli_panel(scripted.url)
    panel.failure_policy = "degrade"
    panel.save()
    scripted.script(MODELS["qwen-code"], "You've hit your limit · resets 3pm (Europe/Rome)")
    call_command("ask", QUESTION, "--panel", "clis", "--criticality", "low")
    out = capsys.readouterr().out
    question = Question.objects.get()
    assert question.status == "done"
    dropped = Contribution.objects.get(round__question=question, round__kind="answer", panelist__name="Qwen Code")
    assert dropped.status == "failed"
    why = "Qwen Code reached its subscription's usage limit; it resets 3pm (Europe/Rome)"
    assert why in dropped.error
    told = f"{dropped.label} failed (its subscription's usage limit or its account's credit is spent)"
    assert why in out
    assert told in out
    exported = admin_client.get(f"/q/{question.pk}/export.md").content.decode()
    assert why in exported
    assert told in exported
    page = admin_client.get(question.get_absolute_url()).content.decode().replace("&#x27;", "'")
    assert why in page
    assert told in page
    assert "1 dropped" in page
    found = service.summary(admin_user, question.pk)  # MCP's answer, and /v1's as JSON
    assert any(line.startswith(told) for line in found["degraded"])
    assert f"- Degraded: {told}" in in_words(found)


def test_the_questions_files_reach_each_cli_voice_as_its_cli_reads_them(scripted, tmp_path):
    """An image reaches Claude Code as a file in its workspace, named in the prompt, that it sends as the
    wire's own image; a PDF reaches every CLI voice as its text with the pages marked (none reads one
    handed by name), and a CLI that sees no images is told of the one it cannot see."""
    make_cli_panel(scripted.url)
    chart, report = tmp_path / "chart.png", tmp_path / "report.pdf"
    chart.write_bytes(files.image(40, 30))
    report.write_bytes(files.pdf(["Revenue fell 4% in Q3.", "Churn doubled in Europe."]))
    attached = ("--attach", str(chart), "--attach", str(report))
    call_command("ask", "Why did revenue fall?", *attached, "--criticality", "low")
    assert Question.objects.get().status == "done"
    for cli in ("claude-code", "gemini-cli", "qwen-code"):
        first = scripted.requests_for(MODELS[cli])[0]
        assert "[report.pdf p. 1]\nRevenue fell 4% in Q3." in first.prompt, cli
        assert "[report.pdf p. 2]\nChurn doubled in Europe." in first.prompt, cli
    claude = scripted.requests_for(MODELS["claude-code"])[0]
    assert [part["type"] for part in claude.files] == ["image"]
    assert "`chart.png`" in claude.prompt  # named, in its working directory (read-only: test_sandbox.py)
    for cli in ("gemini-cli", "qwen-code"):
        first = scripted.requests_for(MODELS[cli])[0]
        assert first.files == []
        assert "chart.png (image, 40 × 30 pixels): attached, but your model cannot see images" in first.prompt, cli
