"""The claim ledger end to end on the fake provider server, and debate only where the panel splits.

Voices answer in the shapes real models use (bold headings, other languages, JSON claims, no
block at all); the ledger must record claims, attacks, concessions and position changes, give
them to the moderator, survive a resume, and let ``debate = on_dissent`` skip the debate
exactly when a mixed panel agrees — as the request log shows.
"""

import pytest

from debates.engine import sameness
from debates.engine.events import ContributionFinished, LedgerUpdated, PanelChanged, RoundStarted
from debates.engine.run import run
from tests.fakes import judge
from tests.fakes.answers import SYNTHESIS

WIRES = ["openai", "anthropic", "gemini"]
MODELS = ["model-alpha", "model-beta", "model-gamma"]


def answer_block(
    answer: str, *claims: str, lead: str = "Reads dominate this workload, so the load is on reads."
) -> str:
    listed = "\n".join(f"{i}. {c}" for i, c in enumerate(claims, 1))
    return f"{lead}\n\nANSWER: {answer}\nCLAIMS:\n{listed}\n"


REPLICAS_A = answer_block(
    "Add read replicas",
    "[fact] Reads are 90% of the queries | confidence: 85% | falsified if: pg_stat_statements shows >30% writes",
    "[inference] Replicas halve the primary's load | confidence: 70% | falsified if: replica lag exceeds 1 s",
)
REPLICAS_B = (
    "Le repliche bastano.\n\n**RISPOSTA:** Add read replicas\n\n**AFFERMAZIONI:**\n"
    "- [fatto] Reads are 90% of the queries (80%) — falsificato se: i log mostrano più scritture\n"
    "- [speculazione] Sharding will not be needed for two years | confidence: 50% | falsified if: growth doubles\n"
)
SHARD_C = answer_block(
    "Shard the database",
    "[fact] Reads are about 90% of the queries | confidence: 90% | falsified if: the logs show more writes",
    "[fact] The dataset outgrows one node within a year | confidence: 75% | falsified if: growth stays under 20%",
)
AGREE_C = answer_block(
    "Add read replicas",
    "[fact] Reads are ninety percent of the queries | confidence: 80% | falsified if: writes exceed 30%",
)


LONG_NO_LINE = "Read replicas, surely: the workload is dominated by reads and replicas scale reads cheaply."


def voice(answer: str, later: str = "", basis: str = "none") -> object:
    """A voice that answers the blind round with ``answer``, every later round with ``later``, and
    the question of the basis of a change with ``basis``."""

    def reply(r) -> str:
        if "basis of the change" in r.prompt:
            return f"BASIS: {basis}"
        return answer if "on your own" in r.prompt else later or "I keep my answer. CHANGE: none | no new evidence"

    return reply


@pytest.fixture
def panel(fake_provider, spec_factory):
    def build(answers: list[object], protocol: str = "teorema", **settings):
        for model, answer in zip(MODELS, answers, strict=True):
            fake_provider.script(model, answer)
        fake_provider.script("model-moderator", SYNTHESIS)
        return spec_factory(3, models=MODELS, wires=WIRES, protocol=protocol, **settings)

    return build


def ledgers(sink) -> list[dict]:
    return [e.ledger for e in sink.of(LedgerUpdated)]


async def test_teorema_records_claims_confirmations_refutations_and_changes(panel, fake_provider, sink):
    debate_a = (
        "I was partly wrong.\n\nON CLAIMS:\n- C2 refute | growth is 15%/yr per the capacity report\n"
        "- A2 correct | replicas take reads, not writes: the load falls by the read share only\n"
        "- B1 confirm | matches our own measurement\nCHANGE: partial | A2 overstated the effect\n"
        "ANSWER: Add read replicas"
    )
    debate_c = "ON CLAIMS:\n- A1 confirm | the 90% figure holds\nCHANGE: total\nANSWER: Add read replicas"
    spec = panel([voice(REPLICAS_A, debate_a), voice(REPLICAS_B), voice(SHARD_C, debate_c)])
    finished = await run(spec, sink)
    assert finished.status == "done"
    ledger = ledgers(sink)[-1]
    claims = {c["id"]: c for c in ledger["claims"]}
    assert set(claims) == {"A1", "A2", "B1", "B2", "C1", "C2"}
    assert claims["A1"]["kind"] == "fact"
    assert claims["A1"]["confidence"] == 0.85
    assert claims["B2"]["kind"] == "speculation"
    assert claims["C2"]["cells"]["Panelist A"] == {"start": "", "end": "attacked"}
    assert claims["A2"]["cells"]["Panelist A"]["end"] == "conceded"  # correcting one's own claim concedes it
    assert claims["A1"]["cells"]["Panelist C"] == {"start": "supported", "end": "supported"}
    assert claims["A1"]["cells"]["Panelist B"]["start"] == "supported"  # B's own B1 says the same at round 0
    assert claims["C2"]["cells"]["Panelist C"]["end"] == "changed"
    assert ledger["changes"]["Panelist C"]["degree"] == "total"
    assert ledger["changes"]["Panelist C"]["unexplained"] is True  # asked for its basis, it gave none
    assert any("Panelist C: sycophancy: changed its position entirely" in f for f in ledger["flags"])
    assert ledger["stances"]["Panelist C"]["stance"] == "unexplained"  # its move to replicas weighs nothing
    # A changed in part and attacked C2, but the judge puts it in the largest group fully: one source.
    assert ledger["stances"]["Panelist A"] == {"stance": "agrees", "why": "answers “Add read replicas”"}
    # Later rounds name claims by number; the moderator builds its audit trail from the ledger.
    debate_prompt = next(r.prompt for r in fake_provider.requests_for("model-beta") if "Now debate" in r.prompt)
    assert "A1 (fact, 85%; falsified if pg_stat_statements shows >30% writes) Reads are 90%" in debate_prompt
    assert "CLAIMS:\n1." not in debate_prompt.split("<<<BEGIN", 1)[1]  # the raw block was rewritten
    moderator = fake_provider.requests_for("model-moderator")[0].prompt
    assert "The claim ledger" in moderator
    assert "Panelist A attacked C2 (refute): growth is 15%/yr" in moderator
    assert "Panelist C: total — no reason given" in moderator
    assert "Panelist C: changed position without a reason of substance: weighs nothing" in moderator
    (basis,) = [r for r in fake_provider.requests_for("model-gamma") if "basis of the change" in r.prompt]
    assert "before: “Shard the database”; now: “Add read replicas”" in basis.prompt


async def test_a_total_change_with_a_basis_of_substance_given_when_asked_is_accepted(panel, fake_provider, sink):
    debate_c = "ON CLAIMS:\n- A1 confirm | the 90% figure holds\nCHANGE: total\nANSWER: Add read replicas"
    reason = "A1's 90% read share means sharding buys nothing replicas do not"
    spec = panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(SHARD_C, debate_c, basis=reason)])
    await run(spec, sink)
    ledger = ledgers(sink)[-1]
    assert ledger["changes"]["Panelist C"]["reason"] == reason
    assert "unexplained" not in ledger["changes"]["Panelist C"]
    assert ledger["stances"]["Panelist C"]["stance"] == "agrees"
    assert not any("Panelist C" in f and "sycophancy" in f for f in ledger["flags"])


async def test_the_ledger_is_emitted_after_every_panel_round_and_stored_with_each_contribution(panel, sink):
    spec = panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(SHARD_C)], rounds=2)
    await run(spec, sink)
    rounds = [e for e in sink.of(RoundStarted) if e.kind in ("answer", "debate")]
    assert len(ledgers(sink)) == len(rounds) == 3
    answers = [e.result for e in sink.of(ContributionFinished) if e.result.kind == "answer"]
    assert {r.label: len(r.ledger["claims"]) for r in answers} == {"Panelist A": 2, "Panelist B": 2, "Panelist C": 2}


async def test_answers_with_missing_or_unreadable_claims_still_count_and_invent_nothing(panel, fake_provider, sink):
    no_block = "Add read replicas: reads dominate. I am fairly sure of it."
    garbage = "Replicas.\n\nCLAIMS:\n- \n- ???\n"
    spec = panel([voice(REPLICAS_A), voice(no_block), voice(garbage)])
    finished = await run(spec, sink)
    assert finished.status == "done"
    ledger = ledgers(sink)[-1]
    assert {c["author"] for c in ledger["claims"]} == {"Panelist A"}
    assert ledger["unreadable"] == ["Panelist B", "Panelist C"]
    statuses = {
        e.result.label: e.result.ledger["claims_status"]
        for e in sink.of(ContributionFinished)
        if e.result.kind == "answer"
    }
    assert statuses == {"Panelist A": "ok", "Panelist B": "missing", "Panelist C": "unreadable"}
    moderator = fake_provider.requests_for("model-moderator")[0].prompt
    assert "claims of Panelist B, Panelist C: could not be read" in moderator


async def test_adversarial_records_attacks_replies_and_the_sycophancy_signal(panel, fake_provider, sink):
    critique_b = (
        'Cross-critique.\n\nATTACKS:\n- A2 [logical gap] "Replicas halve the primary\'s load" | evidence: writes '
        "still go to the primary, so the load falls by the read share only\n"
        '- C2 [factual error] "outgrows one node within a year" | evidence: 12 months of growth were 15%\n'
        '- B9 [factual error] "nothing" | evidence: a claim that does not exist'
    )
    final_a = (
        "My final position.\n\nREPLIES:\n- A2 conceded | B is right: writes stay on the primary (10% of queries)\n"
        "CHANGE: partial | A2 was overstated\nANSWER: Add read replicas"
    )
    final_c = "REPLIES:\n- C2 defended | the 15% ignores the new product line\nCHANGE: none\nANSWER: Shard the database"

    def speaks(answer: str, critique: str = "", final: str = ""):
        def respond(r):
            if "basis of the change" in r.prompt:
                return "BASIS: none, the others outnumber me"
            if "on your own" in r.prompt:
                return answer
            if "State your final position" not in r.prompt:
                return critique or 'ATTACKS:\n- B1 [weak evidence] "90%" | evidence: one day of logs only'
            return final or "CHANGE: total\nANSWER: Shard the database"

        return respond

    spec = panel(
        [speaks(REPLICAS_A, final=final_a), speaks(REPLICAS_B, critique_b), speaks(SHARD_C, final=final_c)],
        protocol="adversarial",
        rounds=2,
        force_panel=True,
    )
    finished = await run(spec, sink)
    assert finished.status == "done"
    ledger = ledgers(sink)[-1]
    claims = {c["id"]: c for c in ledger["claims"]}
    assert claims["A2"]["cells"]["Panelist B"]["end"] == "attacked"
    assert claims["A2"]["cells"]["Panelist A"]["end"] == "conceded"
    assert claims["A2"]["status"] == "conceded"
    assert claims["C2"]["cells"]["Panelist C"]["end"] == "defended"
    assert claims["C2"]["status"] == "contested"
    assert [u["target"] for u in ledger["unmatched"]] == ["B9"]
    attack = next(e for e in ledger["events"] if e["target"] == "A2" and e["what"] == "attacked")
    assert attack["kind"] == "logical_gap"
    assert attack["quote"] == "Replicas halve the primary's load"
    assert ledger["changes"]["Panelist B"]["degree"] == "total"
    assert any("Panelist B: sycophancy: changed its position entirely" in f for f in ledger["flags"])
    assert ledger["stances"]["Panelist B"]["stance"] == "unexplained"
    # The critique prompt numbers the others' claims so an attack can name one; a voice's own is left out.
    critique = next(r.prompt for r in fake_provider.requests_for("model-beta") if "Cross-critique" in r.prompt)
    assert "A2 (inference, 70%" in critique
    assert "B1 (" not in critique


async def test_the_vote_protocol_records_claims_from_ballots_and_changes_on_revote(panel, sink):
    def voter(first: str, second: str):
        def respond(r):
            if "Decide." in r.prompt:
                return first
            if "vote again" in r.prompt:
                return second
            return "ON CLAIMS:\n- A1 refute | cost is not the only criterion"

        return respond

    ballot_a = '{"decision": "PostgreSQL", "confidence": 0.8, "reasoning": "mature", "claims": ["It is mature"]}'
    ballot_b = "{'decision': 'MySQL', 'confidence': 0.6, 'reasoning': 'cheaper', 'claims': ['Hosting is cheaper']}"
    revote_b = '{"decision": "PostgreSQL", "confidence": 0.7, "reasoning": "A showed the cost gap is under 5%"}'
    spec = panel(
        [voter(ballot_a, ballot_a), voter(ballot_b, revote_b), voter(ballot_b, ballot_b)],
        protocol="vote",
        revote_on_dissent=True,
        criticality="high",
    )
    await run(spec, sink)
    ledger = ledgers(sink)[-1]
    assert {c["id"]: c["text"] for c in ledger["claims"]} == {
        "A1": "It is mature",
        "B1": "Hosting is cheaper",
        "C1": "Hosting is cheaper",
    }
    assert ledger["changes"]["Panelist B"] == {
        "degree": "total",
        "reason": "A showed the cost gap is under 5%",
        "before": "MySQL",
        "after": "PostgreSQL",
        "round": 3,
        "kind": "revote",
    }
    assert ledger["changes"]["Panelist C"]["degree"] == "none"
    assert any(e["what"] == "attacked" and e["target"] == "A1" for e in ledger["events"])


# --- debate = on_dissent -----------------------------------------------------------------------------


def panel_calls(fake_provider) -> list[str]:
    return [r.model for r in fake_provider.requests if r.model != "model-moderator"]


async def test_on_dissent_skips_the_debate_when_a_mixed_panel_agrees(panel, fake_provider, sink):
    spec = panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(AGREE_C)], debate="on_dissent", rounds=2)
    finished = await run(spec, sink)
    assert finished.status == "done"
    assert sorted(panel_calls(fake_provider)) == MODELS  # the blind round only
    assert [e.kind for e in sink.of(RoundStarted)] == ["answer", "synthesis"]
    report = sink.of(PanelChanged)[-1].panel_run["debate"]
    assert report["skipped"] is True
    assert report["agreement"] == "3/3"
    assert report["threshold"] == "every voice that answered"
    assert report["calls_saved"] == 6  # two debate rounds of three voices; the same words needed no judge
    assert report["judge"]["calls"] == 0
    assert report["tokens_saved"] > 0
    moderator = fake_provider.requests_for("model-moderator")[0].prompt
    assert "No debate ran: every voice that answered gives one answer (3/3, grouped by wording only)" in moderator


async def test_on_dissent_debates_only_the_contested_claims_when_the_panel_splits(panel, fake_provider, sink):
    spec = panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(SHARD_C)], debate="on_dissent")
    await run(spec, sink)
    debates = [r.prompt for r in fake_provider.requests if "Now debate" in r.prompt]
    assert len(debates) == 3
    report = sink.of(PanelChanged)[-1].panel_run["debate"]
    assert report["skipped"] is False
    assert report["agreement"] == "2/3"
    assert set(report["contested"]) == {"A2", "B2", "C2"}
    assert set(report["shared"]) == {"A1", "B1", "C1"}
    listed = debates[0].split("Debate only these contested claims, in this order", 1)[1].split("Now debate", 1)[0]
    assert "- A2: Replicas halve" in listed
    assert "- C2: The dataset outgrows" in listed
    assert listed.index("- C2") < listed.index("- A2")  # the dissenter's claims first
    assert "A1:" not in listed
    assert "The blind answers agree on A1, B1, C1" in debates[0]


async def test_claims_in_shared_words_with_different_days_or_options_are_debated(panel, fake_provider, sink):
    """Issue 40: the ledger took "Deploy on Friday" for "Deploy on Monday" and left both out of the debate."""
    friday = answer_block("Ship the release", "[inference] Deploy on Friday | confidence: 70% | falsified if: QA slips")
    monday = answer_block("Ship the release", "[inference] Deploy on Monday | confidence: 70% | falsified if: QA slips")
    hold = answer_block("Hold the release", "[inference] Deploy on Friday | confidence: 60% | falsified if: QA slips")
    spec = panel([voice(friday), voice(monday), voice(hold)], debate="on_dissent")
    await run(spec, sink)
    report = sink.of(PanelChanged)[-1].panel_run["debate"]
    assert {"A1", "B1", "C1"} <= set(report["contested"])  # Monday is no Friday: not shared by every voice
    assert not report["shared"]
    debates = [r.prompt for r in fake_provider.requests if "Now debate" in r.prompt]
    listed = debates[0].split("Debate only these contested claims, in this order", 1)[1].split("Now debate", 1)[0]
    assert "Deploy on Friday" in listed
    assert "Deploy on Monday" in listed


async def test_on_dissent_still_debates_when_the_agreeing_panel_is_one_family(panel, fake_provider, spec_factory, sink):
    for model in MODELS:
        fake_provider.script(model, voice(REPLICAS_A))
    fake_provider.script("model-moderator", SYNTHESIS)
    spec = spec_factory(3, models=["model-alpha"] * 3, debate="on_dissent")
    await run(spec, sink)
    assert any("Now debate" in r.prompt for r in fake_provider.requests)
    assert "share a model family" in sink.of(PanelChanged)[-1].panel_run["debate"]["reason"]


async def test_on_dissent_skips_only_when_the_judge_reads_a_voice_without_an_answer_line_as_agreeing(
    panel, fake_provider, sink
):
    spec = panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(LONG_NO_LINE)], debate="on_dissent", criticality="low")
    await run(spec, sink)  # the default fake judge groups by words: the long answer stands alone
    report = sink.of(PanelChanged)[-1].panel_run["debate"]
    assert (report["agreement"], report["skipped"]) == ("2/3", False)  # 2 of 3 is not every voice
    assert any("Now debate" in r.prompt for r in fake_provider.requests)
    fake_provider.reset()
    fake_provider.script_judge(judge.grouping({LONG_NO_LINE: "add read replicas"}))
    spec = panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(LONG_NO_LINE)], debate="on_dissent", criticality="low")
    await run(spec, sink)
    report = sink.of(PanelChanged)[-1].panel_run["debate"]
    assert (report["agreement"], report["skipped"], report["grouped_by"]) == ("3/3", True, "judge")
    assert report["judge"]["calls"] == 1
    assert report["calls_saved"] == 3 + 1 - 1  # the debate and its judge's call, less the call that decided it
    assert not any("Now debate" in r.prompt for r in fake_provider.requests)


async def test_always_mode_reports_nothing_about_skipping(panel, sink):
    await run(panel([voice(REPLICAS_A), voice(REPLICAS_B), voice(AGREE_C)]), sink)
    assert "debate" not in sink.of(PanelChanged)[-1].panel_run


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("Reads are 90% of the queries", "Reads are about 90% of the queries", True),
        ("Reads are 90% of the queries", "Reads make up 90% of all queries", True),
        ("Reads are 90% of the queries", "Reads are 60% of the queries", False),  # numbers differ
        ("The migration is reversible", "The migration locks the table", False),
        ("The window is long enough", "The window is too short", False),
        ("The cache is safe", "The cache is not safe", False),
        ("Latency will increase", "Latency will decrease", False),
        # Issue 40: the ledger took these for one claim (and left them out of the debate).
        ("Deploy on Friday", "Deploy on Monday", False),
        ("Choose option A", "Choose option B", False),
        ("Reads dominate the load", "The load is dominated by reads", True),
        ("Postgres handles the write load", "PostgreSQL handles the write load", True),
    ],
)
def test_claims_count_as_shared_only_when_they_plainly_say_the_same(a, b, same):
    assert sameness.same_claim(a, b) is same
