"""A CLI's status lines, read where an answer should be, against tests/corpus/cli/: the messages the
CLIs print, and answers that quote or explain them (never read as a notice: precision first)."""

from pathlib import Path

import pytest

from debates.providers.cli.notices import Kind, notice

CORPUS = Path(__file__).parents[2] / "corpus" / "cli"
# What each sample is: a notice's kind and when its limit resets, or None for an answer.
EXPECTED: dict[str, tuple[Kind, str] | None] = {
    "notice_claude_invalid_key.txt": (Kind.LOGIN, ""),
    "notice_claude_not_logged_in.txt": (Kind.LOGIN, ""),
    "notice_claude_oauth_expired.txt": (Kind.LOGIN, ""),
    "notice_claude_credit.txt": (Kind.CREDIT, ""),
    "notice_claude_usage_limit_epoch.txt": (Kind.LIMIT, "at 08:53 UTC on 09 Oct 2025"),
    "notice_claude_hit_limit.txt": (Kind.LIMIT, "3pm (Europe/Rome)"),
    "notice_claude_five_hour.txt": (Kind.LIMIT, "2pm"),
    "notice_claude_api_error_429.txt": (Kind.RATE, ""),
    "notice_claude_overloaded.txt": (Kind.RATE, ""),
    "notice_gemini_no_auth.txt": (Kind.LOGIN, ""),
    "notice_gemini_daily_quota.txt": (Kind.LIMIT, ""),
    "notice_gemini_quota_metric.txt": (Kind.LIMIT, ""),
    "notice_qwen_free_quota.txt": (Kind.CREDIT, ""),
    "notice_codex_usage_limit_in.txt": (Kind.LIMIT, "in 4 days 1 hour 5 minutes"),
    "notice_codex_usage_limit_at.txt": (Kind.LIMIT, "at 3:05 PM"),
    "notice_rate_limited_try_later.txt": (Kind.RATE, ""),
    "answer_explains_please_run_login.txt": None,
    "answer_when_it_says_login.txt": None,
    "answer_token_bucket_429.txt": None,
    "answer_rate_limit_design.txt": None,
    "answer_usage_limit_question.txt": None,
    "answer_credit_balance_explained.txt": None,
    "answer_italian_quota.txt": None,
    "answer_spanish_limit.txt": None,
    "answer_numbers_prime.txt": None,
    "answer_login_flow_steps.txt": None,
}


def test_every_sample_has_an_expectation():
    assert sorted(p.name for p in CORPUS.glob("*.txt")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_a_notice_is_read_as_one_and_an_answer_never_is(name):
    found = notice((CORPUS / name).read_text(encoding="utf-8"))
    expected = EXPECTED[name]
    if expected is None:
        assert found is None, found
    else:
        assert found is not None
        assert (found.kind, found.resets) == expected


def test_a_notice_is_said_in_words_with_what_the_cli_printed():
    found = notice("You've hit your limit · resets 3pm (Europe/Rome)")
    assert found is not None
    assert found.words("Claude Code") == (
        "Claude Code reached its subscription's usage limit; it resets 3pm (Europe/Rome): "
        "“You've hit your limit · resets 3pm (Europe/Rome)”"
    )
