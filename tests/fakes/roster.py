"""Roster rows pointing at a fake provider server: a panel ready to run, in one call."""

from debates.models import Membership, Panel, Panelist, Provider, Question

FAMILIES = ("alpha", "beta", "gamma", "delta", "epsilon")
# Random, as a real key is: no piece of it is a word an answer or a page would show.
API_KEY = "sk-fake-Tq7Lw2Vn9Rx4Kc8Mz3"


def make_panel(base_url: str, voices: int = 3, protocol: str = "teorema", slug: str = "house") -> Panel:
    """An OpenAI-wire provider at ``base_url``; ``voices`` panelists of distinct families, each
    on ``model-<family>``; a moderator on ``model-moderator``; the default panel ``slug``."""
    provider = Provider.objects.create(name=f"Fake {slug}", wire="openai", base_url=base_url, max_retries=0)
    provider.set_api_key(API_KEY)
    provider.save()
    members = [
        Panelist.objects.create(
            name=f"{family.title()} {slug}",
            provider=provider,
            model=f"model-{family}",
            family=family,
            price_in="1.00",
            price_out="2.00",
        )
        for family in FAMILIES[:voices]
    ]
    moderator = Panelist.objects.create(
        name=f"Moderator {slug}", provider=provider, model="model-moderator", family="omega"
    )
    panel = Panel.objects.create(
        name=f"Panel {slug}", slug=slug, protocol=protocol, moderator=moderator, is_default=True
    )
    for position, member in enumerate(members):
        Membership.objects.create(panel=panel, panelist=member, position=position)
    return panel


def make_question(panel: Panel, text: str = "Read replicas or sharding for our reporting load?", **fields) -> Question:
    """A question to ``panel``, medium criticality unless ``fields`` say otherwise."""
    return Question.objects.create(panel=panel, text=text, criticality=fields.pop("criticality", "medium"), **fields)
