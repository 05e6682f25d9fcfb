"""The verification gate and the anti-pattern flags, against a corpus of real-looking model output.

tests/corpus/{answers,critiques,finals}/ hold one sample per file; what each must give is kept
here, so a new sample without an expectation fails the suite.
"""

from pathlib import Path

import pytest

from debates.engine.reading.gates import OFF_TOPIC, change_flag, flags, gate, off_topic, substantive

QUESTION = "Should we shard the Postgres database or add read replicas for the reporting workload?"
CORPUS = Path(__file__).parents[2] / "corpus"

# What the gate must say of each answer: the start of its reason, or "" when it is an answer.
ANSWERS = {
    "status_processing_please_wait.txt": "a status message",
    "status_task_queued_please_wait.txt": "a status message",
    "status_working_on_it_please_wait.txt": "a status message",
    "status_json_queued_with_task_id.txt": "a status message",
    "status_italian_elaborazione_in_corso.txt": "a status message",
    "status_spinner_with_percentage.txt": "a status message",
    "status_request_received_check_back_later.txt": "a status message",
    "error_rate_limit_exceeded.txt": "an error message",
    "error_context_length_exceeded.txt": "an error message",
    "error_openai_sdk_quota_repr.txt": "an error dump",
    "dump_gemini_json_error_body.txt": "an error dump",
    "dump_anthropic_overloaded_json.txt": "an error dump",
    "dump_python_traceback_httpx_timeout.txt": "an error dump",
    "dump_html_nginx_502.txt": "an error dump",
    "dump_html_cloudflare_524.txt": "an error dump",
    "dump_raw_http_response.txt": "an error dump",
    "dump_java_stack_trace.txt": "an error dump",
    "dump_node_module_not_found.txt": "an error dump",
    "dump_curl_connection_refused.txt": "an error dump",
    "refusal_sorry_cant_help.txt": "a refusal",
    "refusal_cannot_assist.txt": "a refusal",
    "refusal_as_an_ai_cant.txt": "a refusal",
    "refusal_with_offer_of_other_help.txt": "a refusal",
    "refusal_italian.txt": "a refusal",
    "refusal_spanish.txt": "a refusal",
    "answer_opens_with_operational_error.txt": "",
    "answer_traceback_then_explanation.txt": "",
    "answer_http_status_line_explained.txt": "",
    "answer_with_json_error_snippet.txt": "",
    "answer_postgres_error_with_hint_explained.txt": "",
    "answer_log_lines_explained.txt": "",
    "answer_spanish_root_cause.txt": "",
    "answer_italian_replicas.txt": "",
    "answer_plain_recommendation.txt": "",
    "answer_cant_verify_but_answers.txt": "",
    "answer_apology_then_conditional_answer.txt": "",
    "answer_error_handling_heading.txt": "",
    "answer_starts_with_done.txt": "",
    "answer_vote_ballot_json.txt": "",
}
# Whether a critique attacks nothing (the "no attack" flag).
CRITIQUES = {
    "bad_praise_but_agree.txt": True,
    "bad_praise_no_flaws.txt": True,
    "bad_vague_could_be_wrong.txt": True,
    "bad_summary_only.txt": True,
    "bad_nothing_wrong.txt": True,
    "bad_generic_it_depends.txt": True,
    "bad_agree_with_minor_caveat.txt": True,
    "bad_italian_praise.txt": True,
    "bad_spanish_praise.txt": True,
    "good_quoted_claim_is_wrong.txt": False,
    "good_estimate_too_optimistic.txt": False,
    "good_counterexample.txt": False,
    "good_numbers_refute.txt": False,
    "good_praise_then_real_attack.txt": False,
    "good_markdown_bullets.txt": False,
    "good_ignores_specific_factor.txt": False,
    "good_bold_headers_per_panelist.txt": False,
    "good_italian_attack.txt": False,
    "good_spanish_attack.txt": False,
}
# The flags a final position must get, by name.
FINALS = {
    "bad_agree_nothing_to_add.txt": {"sycophancy"},
    "bad_reversal_good_points_vague_condition.txt": {"sycophancy", "confidence theatre"},
    "bad_reversal_others_convinced_me.txt": {"sycophancy"},
    "bad_reversal_argument_is_stronger.txt": {"sycophancy", "confidence theatre"},
    "bad_defer_to_majority.txt": {"sycophancy"},
    "bad_italian_reversal_vague.txt": {"sycophancy", "confidence theatre"},
    "bad_spanish_agreement.txt": {"sycophancy", "confidence theatre"},
    "bad_confidence_new_evidence_emerges.txt": {"confidence theatre"},
    "bad_confidence_unless_something_changes.txt": {"confidence theatre"},
    "bad_confidence_without_condition.txt": {"confidence theatre"},
    "good_maintain_with_threshold.txt": set(),
    "good_reversal_with_benchmark.txt": set(),
    "good_agreement_with_mechanism.txt": set(),
    "good_reversal_with_counterexample.txt": set(),
    "good_concede_with_mechanism.txt": set(),
    "good_keeps_answer_answers_critique.txt": set(),
    "good_confidence_word_with_condition.txt": set(),
    "good_italian_final.txt": set(),
    "good_spanish_final.txt": set(),
    "good_plain_position_no_confidence.txt": set(),
}


def sample(folder: str, name: str) -> str:
    return (CORPUS / folder / name).read_text(encoding="utf-8")


@pytest.mark.parametrize(("folder", "expected"), [("answers", ANSWERS), ("critiques", CRITIQUES), ("finals", FINALS)])
def test_every_corpus_sample_has_an_expectation(folder, expected):
    assert sorted(p.name for p in (CORPUS / folder).glob("*.txt")) == sorted(expected)


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_the_gate_stops_only_what_is_only_a_status_an_error_or_a_refusal(name):
    reason = gate(sample("answers", name))
    if ANSWERS[name]:
        assert reason.startswith(ANSWERS[name]), reason
        assert reason.endswith(("not an answer", "”)"))  # words a person reads, not a repr
        assert "\\" not in reason
    else:
        assert reason == ""


@pytest.mark.parametrize("name", sorted(CRITIQUES))
def test_a_critique_must_attack_a_specific_claim(name):
    flagged = any(f.startswith("no attack") for f in flags("critique", sample("critiques", name)))
    assert flagged == CRITIQUES[name]


@pytest.mark.parametrize("name", sorted(FINALS))
def test_final_positions_get_exactly_their_flags(name):
    found = {f.split(":")[0] for f in flags("final", sample("finals", name))}
    assert found == FINALS[name]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   ",
        "Processing...",
        "Task started",
        "OK",
        'Traceback (most recent call last):\n  File "x.py", line 1',
        '{"error": {"message": "rate limited", "type": "server_error"}}',
        "Too short.",
    ],
)
def test_phantom_answers_are_gated(text):
    assert gate(text)


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("Invalid API key · Please run /login", "a login notice"),
        ("You've hit your limit · resets 3pm (Europe/Rome)", "a usage limit notice"),
        ("Credit balance is too low", "a credit notice"),
    ],
)
def test_a_clis_status_line_is_gated_whoever_printed_it(text, kind):
    assert gate(text).startswith(kind)


def test_a_real_answer_passes():
    answer = "Add read replicas first: the reporting workload is read-heavy, and sharding Postgres costs more."
    assert gate(answer) == ""


def test_an_answer_sharing_no_word_with_the_question_is_kept_and_flagged_never_gated():
    recipe = "Mix flour, butter, sugar and eggs; bake the cake at medium heat until golden, then let it cool down."
    assert gate(recipe) == ""
    assert off_topic(recipe, QUESTION) == OFF_TOPIC


def test_a_real_answer_in_other_words_than_the_question_is_not_flagged_off_topic():
    question = "Should our billing service move from cron jobs to a message queue?"
    answer = "Yes. Use RabbitMQ with idempotent consumers; keep nightly reconciliation as a safety net."
    assert gate(answer) == ""
    assert off_topic(answer, question) == ""


@pytest.mark.parametrize(
    ("degree", "reason", "flagged"),
    [
        ("total", "", True),
        ("total", "the others make good points", True),
        ("total", "B2's benchmark shows 40% writes, so replicas help less than I said", False),
        ("partial", "the others are right", True),
        ("partial", "the others make good points", True),
        ("partial", "A1 and B2 conceded", False),
        # Issue 41: a reasoned partial change was flagged for its "convinced me".
        ("partial", "the critique's replica-lag evidence convinced me to add a lag budget", False),
        ("partial", "Panelist B's point about replica lag convinced me to add a budget", False),
        ("partial", "the majority convinced me", True),
        ("total", "without evidence, I go with the majority", True),
        ("none", "", False),
    ],
)
def test_a_change_without_a_reason_of_substance_is_a_sycophancy_signal(degree, reason, flagged):
    assert bool(change_flag(degree, reason)) == flagged


def test_claim_ids_in_the_closing_block_are_no_reason_of_substance():
    final = "I agree with the other panelists; nothing to add.\n\nREPLIES:\n- A1 defended | agreed\nANSWER: Replicas"
    assert any(f.startswith("sycophancy") for f in flags("final", final))


def test_total_reversal_without_reasons_is_flagged_as_sycophancy():
    assert any("sycophancy" in f for f in flags("final", "I concede. I now agree with Panelist B entirely."))
    assert not any("sycophancy" in f for f in flags("final", "I concede because the benchmark shows 3x."))


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("because they make good points", False),
        ("since the others convinced me", False),
        ("because their argument is stronger", False),
        ("perché hanno ragione", False),
        ("because the benchmark shows 3x", True),
        ('because "writes are rare" is false at month end', True),
        ("since every commit waits for the synchronous standby", True),
        ("p99 went from 40 ms to 2 s", True),
    ],
)
def test_a_substantive_reason_is_evidence_or_a_mechanism_not_deference(reason, expected):
    assert substantive(f"I now agree with Panelist B, {reason}.") == expected


def test_confidence_without_falsification_is_flagged():
    assert any("confidence theatre" in f for f in flags("final", "Replicas. Confidence: 80%."))
    assert not flags("final", "Replicas. Confidence 80%; this fails if writes exceed 5k/s.")


@pytest.mark.parametrize(
    "condition", ["would change if new evidence emerges", "unless something changes", "wrong if proven otherwise"]
)
def test_a_falsification_condition_that_names_nothing_is_confidence_theatre(condition):
    assert any("vague" in f for f in flags("final", f"Replicas. Confidence 80%; this {condition}."))


def test_critique_that_attacks_nothing_is_flagged():
    assert any("no attack" in f for f in flags("critique", "Great answers all round, well put."))
    assert not flags("critique", 'Panelist B says "sharding is cheap", which is wrong: resharding costs weeks.')
