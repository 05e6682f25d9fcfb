"""The claim ledger read against what real models send, not against what our prompts ask for.

The corpus (tests/corpus/ledger/) holds closing blocks as GPT-4o, Claude, Gemini, Llama,
DeepSeek, Qwen and small local models write them: bold or markdown headings, other languages,
code fences, JSON (single-quoted too), tables, tags and confidences in every shape, think blocks
with a draft block inside, echoes of our own template, quoted errors, truncations, no block.
Each expectation is what a careful reader takes from the text; where the text is unclear it is
the conservative reading: no claim, no verdict, no answer rather than a phantom.
"""

import re
from pathlib import Path
from typing import NamedTuple

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from debates.engine.reading import closing as ledger
from debates.engine.reading.gates import specific
from debates.engine.reading.text import SLOT, without_thinking

CORPUS = Path(__file__).resolve().parents[2] / "corpus" / "ledger"


class Claim(NamedTuple):
    text: str
    kind: str
    confidence: float | None
    falsifier: str


class Answer(NamedTuple):
    count: int
    status: str  # ok | missing | unreadable
    answer: str | None  # None: no ANSWER line a reader would take
    claims: dict[int, Claim] = {}  # claim number (from 1) → what it says


class Said(NamedTuple):
    """A final's replies or a debate's verdicts, (claim, verdict) in order, and its CHANGE and ANSWER lines."""

    verdicts: list[tuple[str, str]]
    degree: str  # none | partial | total | "" (no CHANGE line)
    reason: bool  # whether the CHANGE line gives a reason
    answer: str | None


ANSWERS = {
    "gpt4o_plain_block_as_asked.txt": Answer(
        3,
        "ok",
        "Add read replicas",
        {
            1: Claim(
                "Reads are about 90% of the queries on the primary",
                "fact",
                0.85,
                "pg_stat_statements over a full week shows more than 30% of calls are writes",
            ),
            3: Claim(
                "Sharding will not be needed within the next two years",
                "speculation",
                0.55,
                "the dataset grows past 2 TB before the end of 2026",
            ),
        },
    ),
    "claude_bold_headings_despite_instructions.txt": Answer(
        3,
        "ok",
        "Canberra",
        {
            2: Claim(
                "Section 125 of the Australian Constitution requires the capital to be in New South Wales, at least "
                "100 miles from Sydney",
                "fact",
                0.95,
                "the text of section 125 says otherwise",
            ),
        },
    ),
    "gemini_markdown_headings_bold_tags.txt": Answer(
        3,
        "ok",
        "Store every timestamp in UTC and keep the user's time zone as a separate IANA name",
        {
            1: Claim(
                "PostgreSQL's `timestamptz` stores instants as UTC internally and converts on output",
                "fact",
                0.95,
                "the PostgreSQL docs or a `SELECT` under a different `TimeZone` setting shows a stored value changing",
            ),
            3: Claim(
                "Your reporting team will want per-user local days sooner or later",
                "speculation",
                0.6,
                "no report in the next year groups by the user's local date",
            ),
        },
    ),
    "italian_risposta_affermazioni.txt": Answer(
        3,
        "ok",
        "Aggiungere repliche di lettura",
        {
            1: Claim(
                "Le letture sono circa il 90% delle query sul primario",
                "fact",
                0.8,
                "pg_stat_statements su una settimana mostra più del 30% di scritture",
            ),
            3: Claim(
                "Lo sharding non servirà nei prossimi due anni",
                "speculation",
                0.5,
                "i dati superano i 2 TB prima della fine del 2026",
            ),
        },
    ),
    "spanish_headings_afirmaciones.txt": Answer(
        3,
        "ok",
        "No: para trabajo CPU-bound en CPython usa procesos, no hilos",
        {
            1: Claim(
                "El GIL impide que dos hilos ejecuten bytecode de Python al mismo tiempo en CPython",
                "fact",
                0.95,
                "un benchmark en CPython 3.12 (sin free-threading) muestra aceleración lineal con hilos en un "
                "bucle de Python puro",
            ),
            3: Claim(
                "La compilación free-threaded no estará lista para producción antes de Python 3.15",
                "speculation",
                0.5,
                "la documentación de Python 3.14 la declara soportada oficialmente",
            ),
        },
    ),
    "french_reponse_affirmations_spaced_colons.txt": Answer(
        2,
        "ok",
        "Oui, Canberra",
        {
            1: Claim(
                "Le Parlement australien siège à Canberra depuis 1927",
                "fact",
                0.99,
                "le site officiel du Parlement australien indique un autre siège",
            ),
        },
    ),
    "german_antwort_behauptungen.txt": Answer(
        2,
        "ok",
        "Nein, zuerst die Abfragen optimieren",
        {
            1: Claim(
                "Die Listenansicht führt 412 Abfragen für 50 Zeilen aus",
                "fact",
                0.85,
                "die Debug Toolbar nach einem Neustart deutlich weniger als 100 Abfragen zeigt",
            ),
            2: Claim(
                "Mit select_related und prefetch_related sinkt die Antwortzeit unter 300 ms",
                "inference",
                0.7,
                "die gemessene Antwortzeit nach der Änderung über 300 ms bleibt",
            ),
        },
    ),
    "whole_block_in_code_fence.txt": Answer(
        3,
        "ok",
        "Keep the monolith",
        {
            2: Claim(
                "Splitting into services would add network failure modes without removing a current bottleneck",
                "inference",
                0.75,
                "profiling shows a component whose scaling needs differ by 10x from the rest",
            ),
        },
    ),
    "json_list_under_claims_heading.txt": Answer(
        2,
        "ok",
        "Use Redis for sessions",
        {
            1: Claim(
                "With SESSION_SAVE_EVERY_REQUEST enabled the db backend writes to the primary on every request",
                "fact",
                0.9,
                "pg_stat_statements shows no UPDATE on django_session per request",
            ),
        },
    ),
    "json_single_quoted_python_repr.txt": Answer(
        2,
        "ok",
        "Enable WAL mode",
        {
            1: Claim(
                "WAL mode lets readers proceed while one writer commits",
                "fact",
                0.9,
                "a reader gets SQLITE_BUSY during a write in a WAL-mode database",
            ),
            2: Claim("The import's long write transaction is what locks out the app's readers", "inference", 0.75, ""),
        },
    ),
    "json_object_answer_and_claims_only.txt": Answer(
        2,
        "ok",
        "Shard by tenant_id",
        {
            1: Claim(
                "The largest tenant writes about 4,000 rows per second at peak",
                "fact",
                0.8,
                "the write metrics for the last month peak below 1,500 rows per second",
            ),
        },
    ),
    "bullets_trailing_paren_tags.txt": Answer(
        2,
        "ok",
        "Yes, store UTC",
        {
            1: Claim(
                "Postgres timestamptz normalises every value to UTC on write",
                "fact",
                0.85,
                "a value read back under a different TimeZone setting shows a different instant",
            ),
            2: Claim(
                "Storing wall-clock local times loses the instant for times inside a DST fold",
                "inference",
                0.7,
                "both 01:30 instants of the November fold can be told apart from the stored column alone",
            ),
        },
    ),
    "llama_small_numbered_parens_combined_tag.txt": Answer(
        2,
        "ok",
        "Yes, 2^61 - 1 is prime",
        {
            1: Claim(
                "2^61 - 1 is a Mersenne prime, proven by Pervushin in 1883",
                "fact",
                0.95,
                "a nontrivial factor of 2^61 - 1 is found",
            ),
            2: Claim(
                "The Lucas-Lehmer test on M61 ends with residue 0",
                "inference",
                0.9,
                "running the test gives a nonzero final residue",
            ),
        },
    ),
    "upper_bracket_tags_word_confidence.txt": Answer(
        3,
        "ok",
        "Go with the monolith",
        {
            1: Claim(
                "The team has six developers and a single deploy pipeline",
                "fact",
                0.8,
                "the org chart shows more than one team owning deploys",
            ),
            2: Claim(
                "Splitting now would slow delivery for at least two quarters",
                "inference",
                0.5,
                "a comparable team ships the split in under three months without slowing feature work",
            ),
            3: Claim(
                "A billing team will form within a year",
                "speculation",
                0.3,
                "no new hires are planned for billing in the next budget",
            ),
        },
    ),
    "deepseek_r1_think_with_draft_block.txt": Answer(
        2,
        "ok",
        "Add read replicas",
        {
            2: Claim(
                "A single PostgreSQL node can hold 600 GB with room to grow for years",
                "inference",
                0.8,
                "growth since last year exceeds 100%",
            ),
        },
    ),
    "qwen3_think_then_bold_fullwidth_colon.txt": Answer(
        2,
        "ok",
        "PostgreSQL",
        {
            1: Claim(
                "PostgreSQL ships text-search configurations for Italian, Spanish and English",
                "fact",
                0.9,
                "`SELECT cfgname FROM pg_ts_config` on a stock install lacks italian or spanish",
            ),
        },
    ),
    "small_model_echoes_template.txt": Answer(0, "unreadable", None),
    "template_half_filled.txt": Answer(
        2,
        "ok",
        "Keep SQLite with WAL mode",
        {
            2: Claim(
                "Your write rate, about 5 rows a second, is far below what a single SQLite writer handles",
                "inference",
                None,
                "",
            ),
        },
    ),
    "traceback_quoted_before_block.txt": Answer(
        3,
        "ok",
        "Commit the import in batches and raise the busy timeout",
        {
            1: Claim(
                'Django\'s SQLite backend waits 5 seconds for a lock by default before raising "database is locked"',
                "fact",
                0.85,
                "the Django docs or the sqlite3 module's default timeout give a different value",
            ),
        },
    ),
    "error_quoted_note_after_block.txt": Answer(
        2,
        "ok",
        "Cap concurrency and back off on 429",
        {
            2: Claim(
                "Twelve concurrent requests of about 1,600 tokens exhaust the limit within the first seconds of each "
                "minute",
                "inference",
                0.8,
                "the request log shows 429s spread evenly across the minute",
            ),
        },
    ),
    "truncated_in_last_falsifier.txt": Answer(
        3,
        "ok",
        "Scale the web tier first, not the database",
        {
            3: Claim("Traffic will double by the end of Q3", "speculation", 0.4, "the Q2 numbers show fewer than"),
        },
    ),
    "truncated_right_after_claims_heading.txt": Answer(0, "unreadable", "Use PostgreSQL"),
    "truncated_before_block.txt": Answer(0, "missing", None),
    "no_block_plain_prose.txt": Answer(0, "missing", None),
    "claims_fields_left_empty.txt": Answer(0, "unreadable", "Canberra"),
    "claims_not_applicable.txt": Answer(0, "unreadable", "Canberra"),
    "gpt4o_claims_with_indented_subfields.txt": Answer(
        3,
        "ok",
        "Move sessions to Redis",
        {
            1: Claim(
                "The session table receives about 1,200 UPDATEs per second at peak",
                "fact",
                0.85,
                "pg_stat_statements shows fewer than 300 UPDATEs per second on django_session at peak",
            ),
            3: Claim(
                "Losing all sessions on a Redis restart is acceptable to the business",
                "speculation",
                0.5,
                "product requires that users stay logged in across infrastructure restarts",
            ),
        },
    ),
    "markdown_table_claims.txt": Answer(
        3,
        "ok",
        "Keep the monolith and modularise it",
        {
            1: Claim(
                "Six developers share a single deploy pipeline today",
                "fact",
                0.95,
                "more than one team ships on its own release schedule",
            ),
            3: Claim(
                "Extracting services would cost at least two quarters of feature work",
                "speculation",
                0.55,
                "a team of similar size completes the split in under three months",
            ),
        },
    ),
    "claude_claim_text_with_parenthetical_numbers.txt": Answer(
        2,
        "ok",
        "Fix the N+1 queries before adding a cache",
        {
            1: Claim(
                "The order list issues about 340 queries per request (p95 1.1 s, 0.8 s of it in the database)",
                "fact",
                0.85,
                "the Debug Toolbar shows fewer than 50 queries on /orders/",
            ),
            2: Claim(
                "select_related and prefetch_related bring p95 under 300 ms",
                "inference",
                0.7,
                "p95 stays above 300 ms for a day after the deploy",
            ),
        },
    ),
    "mistral_title_case_labels_decimal_confidence.txt": Answer(
        2,
        "ok",
        "Go",
        {
            1: Claim(
                "Two of the four developers already maintain Go services in production",
                "fact",
                0.9,
                "the team roster shows fewer than two developers with Go code in production",
            ),
            2: Claim(
                "The tool is I/O-bound, so Rust's speed advantage would not be noticeable to users",
                "inference",
                0.75,
                "profiling a prototype shows more than 30% of the time in CPU-bound hashing",
            ),
        },
    ),
    "answer_line_only_no_claims.txt": Answer(0, "missing", "Canberra"),
    "jwt_yaml_claims_key_no_block.txt": Answer(0, "missing", None),
    # an HTML tag a voice writes is its text, not a slot of our template
    "html_tags_in_claims_are_text.txt": Answer(
        2,
        "ok",
        "Remove |safe and sanitise with an allow-list",
        {
            1: Claim(
                "Django's autoescaping turns <script> into &lt;script&gt; unless the value is marked safe",
                "fact",
                0.95,
                "a template renders {{ value }} containing <script> unescaped without |safe or mark_safe",
            ),
        },
    ),
}

CRITIQUES = {
    "plain_as_asked.txt": [("B2", "factual_error"), ("C1", "hidden_assumption"), ("B1", "weak_evidence")],
    "panelist_b_claim_2_numbered.txt": [("B2", "factual_error"), ("C1", "overlooked_alternative")],
    "dotted_refs_and_hyphen_kinds.txt": [("B2", "logical_gap"), ("C1", "weak_evidence")],
    "claim_word_before_ref.txt": [("B2", "factual_error"), ("C3", "hidden_assumption")],
    "parenthesised_and_bold_refs.txt": [("B2", "factual_error"), ("C2", "factual_error"), ("A3", "weak_evidence")],
    # B9 does not exist: the record keeps it, and the ledger marks it unmatched
    "attacks_nonexistent_claim_b9.txt": [("B9", "factual_error"), ("B3", "weak_evidence"), ("C1", "weak_evidence")],
    "italian_attacchi.txt": [("B2", "factual_error"), ("C1", "hidden_assumption"), ("A1", "overlooked_alternative")],
    "spanish_ataques.txt": [("C1", "hidden_assumption"), ("B2", "factual_error"), ("B1", "weak_evidence")],
    "french_attaques.txt": [("B2", "factual_error"), ("C2", "logical_gap")],
    "kinds_spelled_differently.txt": [
        ("B2", "factual_error"),
        ("B3", "logical_gap"),
        ("C1", "weak_evidence"),
        ("C2", "hidden_assumption"),
    ],
    "kind_not_stated.txt": [("B2", ""), ("C1", "")],  # "evidence:" is the field's label, not a kind
    "think_block_then_attacks.txt": [("C2", "factual_error")],
    "echo_template_plus_one_real.txt": [("A2", "logical_gap")],
    "bold_numbered_evidence_on_next_line.txt": [
        ("B2", "factual_error"),
        ("C1", "overlooked_alternative"),
        ("C3", "weak_evidence"),
    ],
}

FINALS = {
    "plain_as_asked.txt": Said([("A1", "conceded"), ("A2", "defended")], "partial", True, "Add read replicas"),
    "prose_verbs_i_concede.txt": Said(
        [("A2", "conceded"), ("A3", "defended")], "partial", True, "Batch the import, then enable WAL"
    ),
    "accepted_and_maintained.txt": Said([("A1", "conceded"), ("A2", "defended"), ("A3", "partly")], "none", True, "Go"),
    "partly_conceded.txt": Said(
        [("A1", "defended"), ("A2", "partly")], "partial", True, "Fix the N+1 queries before adding a cache"
    ),
    "italian_risposte_cambio_parziale.txt": Said(
        [("A1", "conceded"), ("A2", "defended"), ("A3", "partly")], "partial", True, "Aggiungere repliche di lettura"
    ),
    "spanish_respuestas.txt": Said([("A1", "conceded"), ("A2", "defended")], "none", True, "Usar procesos, no hilos"),
    "french_reponses_accents.txt": Said([("A1", "conceded"), ("A2", "defended")], "partial", True, "Canberra"),
    "german_antworten.txt": Said(
        [("A1", "conceded"), ("A2", "defended")], "none", True, "Zuerst die Abfragen optimieren"
    ),
    "change_no_change_sentence.txt": Said(
        [("A1", "defended"), ("A2", "defended")], "none", False, "Enable WAL mode and raise the timeout"
    ),
    # the sycophancy signal: a total change and nothing that says why
    "change_total_no_reason.txt": Said([("A1", "conceded"), ("A2", "conceded")], "total", False, "Shard the database"),
    "change_total_colon_reason.txt": Said([("A1", "conceded"), ("A2", "conceded")], "total", True, "Shard by tenant"),
    "change_sentence_completely_because.txt": Said([("A1", "conceded"), ("A2", "conceded")], "total", True, "Go"),
    "bold_replies_bold_verdicts.txt": Said(
        [("A1", "conceded"), ("A2", "defended"), ("A3", "defended")], "none", True, "Canberra"
    ),
    "think_with_draft_replies.txt": Said([("A1", "partly"), ("A2", "defended")], "partial", True, "Add read replicas"),
    "truncated_in_replies.txt": Said([("A1", "conceded")], "", False, None),  # "A2 defen" is cut, not a verdict
    "echo_template.txt": Said([], "", False, None),
}

DEBATES = {
    "plain_as_asked.txt": Said(
        [("B1", "confirm"), ("C2", "refute"), ("A1", "correct")], "partial", True, "Add read replicas"
    ),
    "italian_sulle_affermazioni.txt": Said(
        [("B1", "confirm"), ("C2", "refute"), ("A1", "correct")], "partial", True, "Aggiungere repliche di lettura"
    ),
    "spanish_sobre_las_afirmaciones.txt": Said(
        [("A1", "confirm"), ("B2", "refute"), ("C1", "correct")], "none", True, "Usar procesos, no hilos"
    ),
    "french_sur_les_affirmations.txt": Said(
        [("A1", "confirm"), ("B2", "refute"), ("C1", "correct")], "none", False, "Canberra"
    ),
    "german_zu_den_behauptungen.txt": Said(
        [("A1", "confirm"), ("B2", "refute"), ("C1", "correct")], "partial", True, "Zuerst die Abfragen optimieren"
    ),
    "bold_past_tense_verdicts.txt": Said(
        [("B1", "confirm"), ("C2", "refute"), ("A1", "correct")], "none", True, "Add read replicas"
    ),
    "uppercase_and_bracketed_refs.txt": Said(
        [("B1", "confirm"), ("C2", "refute"), ("A1", "correct")], "none", False, "Go"
    ),
    # "B1 is correct" confirms B1; "A2 needs correcting" corrects A2
    "is_correct_means_confirm.txt": Said(
        [("B1", "confirm"), ("C1", "refute"), ("A2", "correct"), ("C2", "confirm")], "partial", True, "Canberra"
    ),
    "think_block_draft_verdicts.txt": Said(
        [("B1", "confirm"), ("C1", "confirm"), ("A1", "correct")], "partial", True, "Add read replicas"
    ),
    "truncated_mid_on_claims.txt": Said([("B1", "confirm"), ("C1", "refute")], "", False, None),
    "echo_template.txt": Said([], "", False, None),
    "markdown_heading_panelist_claim_refs.txt": Said(
        [("B1", "confirm"), ("C2", "refute")], "partial", True, "Add read replicas now; revisit sharding at 1.5 TB"
    ),
    "change_total_no_reason.txt": Said(
        [("A1", "confirm"), ("B1", "confirm"), ("C1", "refute")], "total", False, "Add read replicas"
    ),
}

FOLDERS = {"answers": ANSWERS, "critiques": CRITIQUES, "finals": FINALS, "debates": DEBATES}


def sample(folder: str, name: str) -> str:
    return (CORPUS / folder / name).read_text(encoding="utf-8")


def same_words(text: str) -> str:
    return " ".join(text.split()).rstrip(".")


@pytest.mark.parametrize("folder", sorted(FOLDERS))
def test_every_corpus_sample_has_an_expected_reading_and_every_expectation_a_sample(folder):
    assert sorted(p.name for p in (CORPUS / folder).glob("*.txt")) == sorted(FOLDERS[folder])


def test_the_corpus_has_enough_samples_of_each_kind():
    sizes = [len(ANSWERS), len(CRITIQUES), len(FINALS), len(DEBATES)]
    assert all(size >= least for size, least in zip(sizes, [25, 12, 12, 10], strict=True))


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_answers_are_read_as_their_author_meant(name):
    expected = ANSWERS[name]
    record = ledger.read("answer", sample("answers", name), "Panelist B")
    assert (len(record["claims"]), record["claims_status"], record.get("answer")) == expected[:3]
    assert [c["id"] for c in record["claims"]] == [f"B{i}" for i in range(1, expected.count + 1)]
    for number, claim in expected.claims.items():
        got = record["claims"][number - 1]
        stated = got.get("stated", got["confidence"])  # a confidence without a real falsifier is void
        read = Claim(same_words(got["text"]), got["kind"], stated, same_words(got["falsifier"]))
        assert (got["confidence"] is None) == (stated is None or not specific(got["falsifier"]))
        assert read == claim._replace(confidence=pytest.approx(claim.confidence) if claim.confidence else None)


@pytest.mark.parametrize("name", sorted(CRITIQUES))
def test_critiques_attack_the_claims_they_name_with_the_kind_they_say(name):
    record = ledger.read("critique", sample("critiques", name), "Panelist D")
    assert [(a["target"], a["kind"]) for a in record["attacks"]] == CRITIQUES[name]


@pytest.mark.parametrize("name", sorted(CRITIQUES))
def test_every_attack_keeps_the_evidence_its_critic_gave(name):
    record = ledger.read("critique", sample("critiques", name), "Panelist D")
    assert all(attack["evidence"] for attack in record["attacks"]), record["attacks"]


@pytest.mark.parametrize("name", sorted(FINALS))
def test_finals_reply_to_each_attacked_claim_and_state_their_change(name):
    expected = FINALS[name]
    record = ledger.read("final", sample("finals", name), "Panelist A")
    assert [(r["target"], r["verdict"]) for r in record["replies"]] == expected.verdicts
    change = record["change"]
    assert (change["degree"], bool(change["reason"]), record.get("answer")) == expected[1:]


@pytest.mark.parametrize("name", sorted(DEBATES))
def test_debates_confirm_correct_or_refute_the_claims_they_name(name):
    expected = DEBATES[name]
    record = ledger.read("debate", sample("debates", name), "Panelist A")
    assert [(v["target"], v["verdict"]) for v in record["verdicts"]] == expected.verdicts
    change = record["change"]
    assert (change["degree"], bool(change["reason"]), record.get("answer")) == expected[1:]


SAMPLES = [(folder, name) for folder, expectations in FOLDERS.items() for name in expectations]
RAW_HEADING = re.compile(r"(?m)^\W*(?:ANSWER|CLAIMS|ATTACKS|REPLIES|ON CLAIMS|CHANGE|RISPOSTA|AFFERMAZIONI)\W*:")


def said_in(record: dict) -> list[str]:
    """Every value a reader takes from a record: the answer, the claims, reasons, evidence, the change."""
    said = [str(record.get("answer", ""))]
    said += [c[key] for c in record.get("claims", []) for key in ("text", "falsifier")]
    said += [r["reason"] for r in record.get("replies", []) + record.get("verdicts", [])]
    said += [a[key] for a in record.get("attacks", []) for key in ("quote", "evidence")]
    return [*said, (record.get("change") or {}).get("reason", "")]


@pytest.mark.parametrize(("folder", "name"), SAMPLES)
def test_a_contribution_as_people_read_it_keeps_all_it_said_without_the_lines_a_program_reads(folder, name):
    text = sample(folder, name)
    record = ledger.read(folder.removesuffix("s"), text, "Panelist A")
    shown = ledger.for_people(text, record)
    assert all(same_words(value) in same_words(shown) for value in said_in(record) if value)
    if shown != text:  # else kept as written: a part of its block could not be read
        assert not RAW_HEADING.search(without_thinking(shown)), shown
        assert same_words(ledger.without_block(text)) in same_words(shown)  # the prose, whole


def test_most_closing_blocks_are_shown_as_what_was_read_of_them():
    changed = [
        (folder, name)
        for folder, name in SAMPLES
        if ledger.for_people(text := sample(folder, name), ledger.read(folder.removesuffix("s"), text, "Panelist A"))
        != text
    ]
    assert len(changed) >= 0.8 * len(SAMPLES)


def test_a_note_under_the_block_and_a_fence_around_it_stay_where_people_read_them():
    text = (
        "Cap concurrency at 4.\n\n```\nANSWER: Cap concurrency\nCLAIMS:\n"
        "1. [fact] The limit is 30k tokens a minute | confidence: 90% | falsified if: the limits page says otherwise\n"
        "```\n\nNote: a quota error is billing, not a rate limit."
    )
    shown = ledger.for_people(text, ledger.read("answer", text, "Panelist B"))
    assert shown == (
        "Cap concurrency at 4.\n\n**Answer:** Cap concurrency\n\n**Claims:**\n"
        "- **B1** (fact · 90%) The limit is 30k tokens a minute — *falsified if* the limits page says otherwise"
        "\n\nNote: a quota error is billing, not a rate limit."
    )


def test_a_block_with_a_part_that_could_not_be_read_stays_as_written():
    text = "Replicas.\n\nANSWER: Add replicas\nCLAIMS:\n1. ???\n"
    record = ledger.read("answer", text, "Panelist A")
    assert record["claims_status"] == "unreadable"
    assert ledger.for_people(text, record) == text


PROMPTS = Path(__file__).resolve().parents[3] / "debates" / "prompts"
# The slots of our own templates ("<your answer in a few words…>", "<…>"), as the prompts write them.
SLOTS = {slot for f in PROMPTS.glob("*.md") for slot in re.findall(r"<[^<>\n]*[\s…][^<>\n]*>", f.read_text())}


def test_no_slot_of_our_templates_is_ever_read_as_a_claim_a_verdict_or_an_answer():
    assert "<a central claim your answer rests on>" in SLOTS
    for folder, expectations in FOLDERS.items():
        for name in expectations:
            kind = folder.removesuffix("s")
            record = ledger.read(kind, sample(folder, name), "Panelist A")
            texts = [c["text"] for c in record.get("claims", [])] + [str(record.get("answer", ""))]
            texts += [r["reason"] for r in record.get("replies", []) + record.get("verdicts", [])]
            texts += [a["evidence"] for a in record.get("attacks", [])]
            assert not any(slot in t for slot in SLOTS for t in texts), (name, texts)


BLOCKISH = [
    *"ABC129 \n-*#|:[](){}<>\"'`,.%",
    "CLAIMS:",
    "ANSWER:",
    "ATTACKS:",
    "REPLIES:",
    "ON CLAIMS:",
    "CHANGE:",
    "fact",
    "confidence",
    "falsified if",
    "conceded",
    "partly",
    "refute",
    "```",
    "<think>",
    "</think>",
    "N/A",
]


@given(st.lists(st.sampled_from(BLOCKISH), max_size=80).map("".join), st.sampled_from(sorted(FOLDERS)))
@example("\nCLAIMS:", "answers")  # an empty heading alone: once shown as nothing
def test_reading_junk_never_crashes_and_never_keeps_an_unfilled_slot(text, folder):
    record = ledger.read(folder.removesuffix("s"), text, "Panelist A")
    said = [record.get("answer", "")] + [c["text"] for c in record.get("claims", [])]
    assert not any(SLOT.search(words) for words in said)
    assert ledger.for_people(text, record).strip() or not text.strip()
    assert record.get("claims_status", "ok") in ("ok", "missing", "unreadable")


@pytest.mark.parametrize(
    ("falsifier", "void"),
    [
        ("", "no falsification condition"),
        ("if new evidence emerges", "a vague falsification condition"),
        ("unless something changes", "a vague falsification condition"),
    ],
)
def test_a_claims_confidence_without_a_specific_falsifier_counts_as_missing(falsifier, void):
    tail = f" | falsified if: {falsifier}" if falsifier else ""
    text = f"Reasoning.\n\nANSWER: Replicas\nCLAIMS:\n1. [fact] Reads dominate the load | confidence: 90%{tail}\n"
    (claim,) = ledger.read("answer", text, "Panelist A")["claims"]
    assert (claim["confidence"], claim["stated"], claim["void"]) == (None, pytest.approx(0.9), void)


def test_a_claim_with_a_specific_falsifier_keeps_its_confidence():
    text = "ANSWER: Replicas\nCLAIMS:\n1. [fact] Reads dominate | confidence: 90% | falsified if: writes exceed 30%\n"
    (claim,) = ledger.read("answer", text, "Panelist A")["claims"]
    assert claim["confidence"] == pytest.approx(0.9)
    assert "void" not in claim
