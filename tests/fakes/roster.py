"""Roster rows pointing at the fake provider server: a panel ready to run, in one call."""

from debates.models import Panel, Panelist, Provider, Question, Seat

SYNTHESIS = "## Consensus\nReplicas first.\n\n## Disagreements\nNone lasting.\n\n## Verdict\nUse read replicas."


def make_panel(server, models=("model-alpha", "model-beta", "model-gamma"), protocol: str = "teorema",
               moderator: str = "model-moderator", **panel_fields) -> Panel:  # fmt: skip
    """An OpenAI-wire provider on the fake server, one panelist per model, a moderator, a panel."""
    provider, _ = Provider.objects.get_or_create(
        name="Fake OpenAI", defaults={"protocol": "openai", "base_url": server.base_url("openai")}
    )
    provider.set_api_key("sk-fake-0123456789")
    provider.max_retries = 1
    provider.save()
    voices = [
        Panelist.objects.get_or_create(name=m, defaults={"provider": provider, "model": m, "family": m})[0]
        for m in models
    ]
    chair = Panelist.objects.get_or_create(
        name=moderator, defaults={"provider": provider, "model": moderator, "family": "chair"}
    )[0]
    panel = Panel.objects.create(
        name=f"Panel {Panel.objects.count() + 1}", slug=f"panel-{Panel.objects.count() + 1}", protocol=protocol,
        moderator=chair, **panel_fields,
    )  # fmt: skip
    for position, voice in enumerate(voices):
        Seat.objects.create(panel=panel, panelist=voice, position=position)
    return panel


def make_question(panel: Panel, text: str = "Read replicas or sharding for our reporting load?", **fields) -> Question:
    return Question.objects.create(panel=panel, text=text, criticality=fields.pop("criticality", "medium"), **fields)
