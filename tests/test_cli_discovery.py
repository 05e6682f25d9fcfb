"""Found, not typed: the CLIs installed here are noticed by the ask page, the admin's guided setup and
`manage.py bootstrap`, each with whether it is logged in (no call made), and become a panel in one
step; readiness refuses a CLI voice that cannot run here, in words."""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.test import override_settings
from django.urls import reverse
from django.utils import timezone

from debates.models import CliReport, Panel, Provider
from debates.roster import discover
from debates.roster.readiness import cli_problem, problems

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cli_sandbox")]


def log_in(home, monkeypatch) -> None:
    """Claude Code on an API key, Gemini CLI on a Google login (its credentials file)."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-of-the-user")
    (home / ".gemini").mkdir()
    (home / ".gemini" / "oauth_creds.json").write_text(json.dumps({"refresh_token": "r"}))


@pytest.fixture
def home(tmp_path):
    return tmp_path / "home"


def test_every_pinned_cli_is_found_and_none_is_logged_in_in_an_empty_home():
    found = discover.installed_clis()
    assert [f.preset for f in found] == ["claude-code", "gemini-cli", "qwen-code", "codex"]
    assert [f.login.said for f in found] == [
        f"{label} is installed but not logged in: run `{program}` once in a terminal (or give the provider an API key)"
        for label, program in (
            ("Claude Code", "claude"),
            ("Gemini CLI", "gemini"),
            ("Qwen Code", "qwen"),
            ("Codex", "codex"),
        )
    ]
    with pytest.raises(ValueError, match="no CLI on this machine is logged in"):
        discover.adopt_clis(found)


def test_the_logged_in_clis_become_the_default_panel_of_two_families(home, monkeypatch):
    log_in(home, monkeypatch)
    panel = discover.adopt_clis(discover.installed_clis())
    assert panel.is_default
    assert [(p.name, p.model, p.family) for p in panel.roster()] == [
        ("Claude Code", "sonnet", "claude"),
        ("Gemini CLI", "gemini-2.5-pro", "gemini"),
    ]
    assert not problems(panel)
    again = discover.adopt_clis(discover.installed_clis())
    assert again.pk == panel.pk
    assert Provider.objects.count() == 2


def test_readiness_refuses_a_cli_voice_that_is_not_logged_in_here(home, monkeypatch):
    log_in(home, monkeypatch)
    panel = discover.adopt_clis(discover.installed_clis())
    monkeypatch.delenv("ANTHROPIC_API_KEY")
    assert problems(Panel.objects.get(pk=panel.pk)) == [
        "Claude Code is installed but not logged in: run `claude` once in a terminal (or give the provider an API "
        "key) on the machine that runs the debates"
    ]
    assert cli_problem(Provider.objects.get(name="Gemini CLI")) == ""


def test_bootstrap_says_what_it_found_and_seats_them_when_asked(home, monkeypatch):
    log_in(home, monkeypatch)
    out = io.StringIO()
    call_command("bootstrap", stdout=out)
    said = out.getvalue()
    assert "Claude Code runs with the key in ANTHROPIC_API_KEY." in said
    assert "Gemini CLI is logged in (oauth_creds.json)." in said
    assert "Seat them as a panel: manage.py bootstrap --clis" in said
    call_command("bootstrap", "--clis", stdout=out)
    assert Panel.objects.default().slug == "clis"


def test_the_ask_page_offers_the_clis_it_found(client, staff, home, monkeypatch):
    log_in(home, monkeypatch)
    client.force_login(staff)
    page = client.get(reverse("debates:ask")).content.decode()
    assert "Gemini CLI is logged in (oauth_creds.json)" in page
    assert "Use the logged-in CLIs as a panel" in page
    response = client.post(reverse("debates:adopt_clis"))
    assert response.status_code == 302
    assert Panel.objects.default().slug == "clis"


def test_a_cli_provider_goes_through_the_roster_file_and_back():
    from debates.roster.toml import export_roster, import_roster

    report = import_roster(
        """
[[providers]]
name = "My llm"
preset = "command"
command = "llm -m gpt-4o-mini {prompt}"

[[providers]]
name = "Claude Code"
preset = "claude-code"
"""
    )
    assert report.summary()
    mine = Provider.objects.get(name="My llm")
    assert mine.wire == "cli"
    assert mine.command_words == ("llm", "-m", "gpt-4o-mini", "{prompt}")
    assert 'command = "llm -m gpt-4o-mini {prompt}"' in export_roster()


def test_a_command_provider_without_a_command_is_refused_in_words():
    from debates.roster.toml import RosterError, import_roster

    with pytest.raises(RosterError, match="command: A command is needed"):
        import_roster('[[providers]]\nname = "Nothing"\npreset = "command"\n')


def test_the_admins_guided_setup_offers_the_clis_it_found_before_any_preset_or_key(admin_client, home, monkeypatch):
    log_in(home, monkeypatch)
    page = admin_client.get(reverse("admin:debates_provider_add")).content.decode()
    assert "Claude Code runs with the key in ANTHROPIC_API_KEY" in page
    assert "Qwen Code is installed but not logged in: run `qwen` once in a terminal" in page
    assert f'action="{reverse("debates:adopt_clis")}"' in page
    assert "Use the logged-in CLIs as a panel" in page
    admin_client.post(reverse("debates:adopt_clis"))
    assert [p.name for p in Panel.objects.default().roster()] == ["Claude Code", "Gemini CLI"]


def test_the_admins_guided_setup_says_when_no_cli_found_here_is_logged_in(admin_client):
    page = admin_client.get(reverse("admin:debates_provider_add")).content.decode()
    assert "Claude Code is installed but not logged in: run `claude` once in a terminal" in page
    assert "Use the logged-in CLIs as a panel" not in page
    assert "Log one in, then reload this page" in page


def test_test_connection_reads_a_clis_login_without_a_call_then_with_a_panelist_makes_one_tiny_call(
    admin_client, fake_provider
):
    from tests.fakes.clis import MODELS, make_cli_panel

    unlogged = Provider.objects.create(name="Claude Code", wire="cli", preset="claude-code")
    response = admin_client.post(reverse("admin:debates_provider_test", args=[unlogged.pk]), follow=True)
    assert [str(m) for m in response.context["messages"]] == [
        "Claude Code: Claude Code is installed but not logged in: run `claude` once in a terminal "
        "(or give the provider an API key)"
    ]
    unlogged.delete()
    assert not fake_provider.requests  # nothing was called

    make_cli_panel(fake_provider.url, ("claude-code",))
    provider = Provider.objects.get(name="Claude Code")
    fake_provider.script(MODELS["claude-code"], "pong")
    response = admin_client.post(reverse("admin:debates_provider_test", args=[provider.pk]), follow=True)
    (said,) = [str(m) for m in response.context["messages"]]
    assert said.startswith(f"Claude Code answered as {MODELS['claude-code']} in ")
    (request,) = fake_provider.requests_for(MODELS["claude-code"])
    assert request.prompt.endswith("ping")  # one tiny call, asked for (after Claude Code's own reminders)


def test_gemini_cli_where_it_would_skip_teoremas_settings_is_found_but_not_offered_and_says_why(home, monkeypatch):
    """Not root: Gemini CLI would skip the settings that switch its tools off, so each call is refused; the
    ask page, the guided setup, bootstrap and readiness say so before any call, not each call after."""
    from debates.providers.cli import gemini

    log_in(home, monkeypatch)
    panel = discover.adopt_clis(discover.installed_clis())  # as root: both seated
    monkeypatch.setattr(gemini.os, "geteuid", lambda: 1000)
    found = {f.preset: f for f in discover.installed_clis()}
    assert not found["gemini-cli"].usable
    assert found["gemini-cli"].login.said.startswith(
        "Gemini CLI would not read Teorema's settings, which switch its tools off, so it is not run: "
        "the file would belong to this user, not root"
    )
    (said,) = problems(Panel.objects.get(pk=panel.pk))
    assert said.startswith("Gemini CLI would not read Teorema's settings")
    assert said.endswith("on the machine that runs the debates")
    again = discover.adopt_clis(list(found.values()))
    assert {p.provider.name for p in again.roster()} == {"Claude Code"}  # one CLI: three methods


SERVER_SETUP = override_settings(RUN_IN_PROCESS=False)


@SERVER_SETUP
def test_in_the_server_setup_readiness_believes_the_workers_reports_not_the_web_processs_disk(home, monkeypatch):
    """A CLI runs on the worker that claimed its debate: a web host without the CLI does not refuse a panel
    a worker can run, and a web host with it does not pass one no worker can run."""
    from debates.runs import clis

    provider = Provider.objects.create(name="Claude Code", wire="cli", preset="claude-code")
    assert cli_problem(provider) == (
        "no debate worker has said whether it can run Claude Code (each reports every 30 s): start "
        "`manage.py debate_worker` where its CLI is installed and logged in"
    )

    clis.report("worker-a")  # not logged in on its machine
    assert cli_problem(provider) == (
        "no debate worker can run Claude Code: Claude Code is installed but not logged in: run `claude` once "
        "in a terminal (or give the provider an API key) (on the one worker)"
    )

    log_in(home, monkeypatch)
    clis.report("worker-b")  # logged in on its machine: one worker able is enough
    assert cli_problem(provider) == ""

    clis.withdraw("worker-b")  # stopped
    assert cli_problem(provider).startswith("no debate worker can run Claude Code:")
    CliReport.objects.update(seen_at=timezone.now() - timedelta(minutes=5))  # worker-a silent since
    clis.report("worker-c")  # a worker's report forgets the reports of workers gone
    assert list(CliReport.objects.values_list("worker", flat=True)) == ["worker-c"]


def test_a_cli_whose_login_only_a_call_can_tell_is_tried_on_request_with_one_tiny_call(
    admin_client, home, fake_provider
):
    """Claude Code with an account and no credentials file keeps its login in the system's keychain: the ask
    page offers one tiny call, and says what it answered."""
    from tests.fakes.clis import MODELS, make_cli_panel

    home.mkdir(exist_ok=True)
    (home / ".claude.json").write_text(json.dumps({"oauthAccount": {"emailAddress": "me@example.org"}}))
    page = admin_client.get(reverse("debates:ask")).content.decode()
    assert "Claude Code has an account; only a call can tell whether its login holds" in page
    assert f'formaction="{reverse("debates:try_cli", args=["claude-code"])}"' in page

    make_cli_panel(fake_provider.url, ("claude-code",))  # a provider made for it is called as configured
    fake_provider.script(MODELS["claude-code"], "pong")
    response = admin_client.post(reverse("debates:try_cli", args=["claude-code"]), follow=True)
    (said,) = [str(m) for m in response.context["messages"]]
    assert said.startswith(f"Claude Code answered as {MODELS['claude-code']} in ")
    (request,) = fake_provider.requests_for(MODELS["claude-code"])
    assert request.prompt.endswith("ping")
    assert admin_client.post(reverse("debates:try_cli", args=["nothing-here"])).status_code == 302
