"""The verdict in the asker's schema: a step after the run's end (an OpenAI client's
``response_format`` json_schema asks for it). The moderator, who wrote the synthesis, writes the
verdict as JSON in that schema, natively structured where its wire can; what it writes is checked
against the schema and asked again once when it does not fit. The call is the run's, stored,
billed and shown as every other; a verdict that never fits is said, never sent as if it did."""

import json
from dataclasses import replace

from debates.engine import dossier, prompts
from debates.engine.context import Run
from debates.engine.events import RunFinished
from debates.engine.protocols import Step
from debates.engine.reading import shaped as reading
from debates.providers.base import Structure


async def shaped(run: Run, step: Step) -> RunFinished | None:
    """The run's end with its verdict in the asker's schema (``RunFinished.shaped``); nothing to do
    for a run that gave no verdict."""
    finished = run.finished
    if finished is None or not (finished.verdict or finished.synthesis):
        return None
    schema = json.loads(run.spec.schema)
    seat = run.spec.moderator
    writer = replace(seat, voice=replace(seat.voice, structure=Structure("verdict", run.spec.schema)))
    panel = [
        f"- {who['label']}: {who.get('name', '')} ({who.get('model', '')}) — "
        f"{finished.stances.get(who['label'], 'stance not given')}"
        for seat_key, who in finished.reveal.items()
        if seat_key.startswith("p")  # the panelists (p1, p2~ …), not the moderator
    ]
    messages = prompts.messages(
        "shaped",
        role="moderator",
        brief=run.brief(seat),
        synthesis=dossier.fence("Moderator", finished.synthesis or finished.verdict),
        verdict=finished.verdict or "(none in one line: see the synthesis)",
        confidence=f"{finished.confidence:.2f}" if finished.confidence is not None else "not given",
        panel="\n".join(panel) or "(not known)",
        schema=json.dumps(schema, indent=2, ensure_ascii=False),
    )
    result = await run.solo(step, writer, messages, check=lambda text: reading.read(text, schema)[1])
    return replace(finished, shaped=reading.read(result.text, schema)[0] if result.ok else None)
