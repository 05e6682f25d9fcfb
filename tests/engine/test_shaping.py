"""The verdict in the asker's schema: a step after the run's end, whichever step ended it, by the
moderator, natively structured, checked against the schema and asked again once; over the fake
provider server's real sockets."""

import json

from debates.engine.events import ContributionFinished, RoundStarted
from debates.engine.protocols import plan
from debates.engine.reading import shaped
from debates.engine.run import run
from debates.engine.vocabulary import StepKind
from tests.fakes.answers import SYNTHESIS
from tests.fakes.provider_server import Script

SCHEMA = {
    "type": "object",
    "properties": {"choice": {"enum": ["replicas", "sharding"]}, "confidence": {"type": ["number", "null"]}},
    "required": ["choice", "confidence"],
    "additionalProperties": False,
}
DECIDED = {"choice": "replicas", "confidence": 0.7}
VOICE = "Add read replicas, since reads dominate. Confidence 70%, fails if writes triple."


def moderator(*shaped_answers: str):
    """The synthesis when asked for prose; asked in a schema, each of ``shaped_answers`` in turn."""
    told = iter(shaped_answers)
    return lambda request: next(told) if request.schema else SYNTHESIS


def voices(fake_provider, *models: str) -> None:
    for model in models:
        fake_provider.script(model, VOICE)


def test_the_step_is_planned_last_only_when_a_schema_is_asked_for(spec_factory):
    for protocol in ("teorema", "adversarial", "vote"):
        assert StepKind.SHAPED not in [s.kind for s in plan(spec_factory(3, protocol=protocol))]
        steps = plan(spec_factory(3, protocol=protocol, schema=json.dumps(SCHEMA)))
        assert steps[-1].kind == StepKind.SHAPED
        assert [s.index for s in steps] == list(range(len(steps)))


async def test_the_moderator_writes_the_verdict_in_the_schema_from_its_synthesis(fake_provider, spec_factory, sink):
    voices(fake_provider, "model-alpha", "model-beta", "model-gamma")
    fake_provider.script("model-moderator", Script(answer=moderator(json.dumps(DECIDED))))
    finished = await run(spec_factory(3, schema=json.dumps(SCHEMA)), sink)
    assert finished.status == "done"
    assert finished.verdict == "Use read replicas."
    assert finished.shaped == DECIDED
    [asked] = [r for r in fake_provider.requests_for("model-moderator") if r.schema]
    assert asked.schema == SCHEMA  # natively: OpenAI's response_format json_schema
    assert "Use read replicas." in asked.prompt
    assert "Panelist A: Alpha Voice (model-alpha)" in asked.prompt
    [stored] = [e.result for e in sink.of(ContributionFinished) if e.result.kind == StepKind.SHAPED]
    assert stored.seat == "moderator"
    assert stored.tokens_out > 0  # billed as every call
    assert sink.of(RoundStarted)[-1].kind == StepKind.SHAPED


async def test_a_value_the_schema_refuses_is_asked_again_once_then_said(fake_provider, spec_factory, sink):
    voices(fake_provider, "model-alpha", "model-beta", "model-gamma")
    wrong = json.dumps({"choice": "both", "confidence": 0.7})
    fake_provider.script("model-moderator", Script(answer=moderator(wrong, wrong)))
    finished = await run(spec_factory(3, schema=json.dumps(SCHEMA)), sink)
    assert finished.status == "done"  # the verdict stands; only its shape is missing
    assert finished.shaped is None
    [stored] = [e.result for e in sink.of(ContributionFinished) if e.result.kind == StepKind.SHAPED]
    assert stored.status == "gated"
    assert "choice: 'both' is not one of ['replicas', 'sharding']" in stored.error


async def test_a_second_try_that_fits_is_kept(fake_provider, spec_factory, sink):
    voices(fake_provider, "model-alpha", "model-beta", "model-gamma")
    fake_provider.script("model-moderator", Script(answer=moderator("Replicas, I think.", json.dumps(DECIDED))))
    assert (await run(spec_factory(3, schema=json.dumps(SCHEMA)), sink)).shaped == DECIDED


async def test_a_vote_that_ends_early_is_shaped_all_the_same(fake_provider, spec_factory, sink):
    ballot = json.dumps({"decision": "Add read replicas", "confidence": 0.8, "reasoning": "reads dominate"})
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, ballot)
    fake_provider.script("model-moderator", Script(answer=moderator(json.dumps(DECIDED))))
    finished = await run(spec_factory(3, protocol="vote", schema=json.dumps(SCHEMA)), sink)
    assert finished.verdict
    assert finished.shaped == DECIDED
    kinds = [e.result.kind for e in sink.of(ContributionFinished)]
    assert StepKind.TIEBREAK not in kinds  # the steps between the end and the shape do not run
    assert kinds[-1] == StepKind.SHAPED


async def test_a_failed_run_is_not_shaped(fake_provider, spec_factory, sink):
    for model in ("model-alpha", "model-beta", "model-gamma"):
        fake_provider.script(model, *[Script(status=500, error="down")] * 4)
    finished = await run(spec_factory(3, schema=json.dumps(SCHEMA)), sink)
    assert finished.status == "failed"
    assert not [r for r in fake_provider.requests if r.schema]


def test_the_reader_takes_json_as_models_write_it_and_refuses_what_does_not_fit():
    written = [
        '{"choice": "replicas", "confidence": 0.7}',
        '```json\n{"choice": "replicas", "confidence": 0.7}\n```',
        'Here is the verdict:\n{"choice": "replicas", "confidence": 0.7}',
        "{'choice': 'replicas', 'confidence': 0.7,}",  # JSON5: single quotes, a trailing comma
    ]
    for text in written:
        assert shaped.read(text, SCHEMA) == (DECIDED, ""), text
    assert shaped.read("Replicas, confidence 0.7.", SCHEMA) == (None, "it wrote no JSON value")
    value, why = shaped.read('{"choice": "replicas"}', SCHEMA)
    assert value is None
    assert "'confidence' is a required property" in why
    assert shaped.read('{"choice": "replicas", "confidence": "70%"}', SCHEMA)[0] is None  # never mended
