"""The one place that decides what a prompt contains: template files in ``debates/prompts/``."""

from functools import cache
from pathlib import Path
from string import Template

from debates.engine.vocabulary import Method
from debates.providers.base import Message

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
# Bump when a template changes meaning; recorded with each run.
PROMPTS_VERSION = 3

METHODS: dict[str, str] = {
    Method.NONE: "",
    Method.FIRST_PRINCIPLES: "Method: reason from first principles. Derive the answer from basic mechanisms "
    "and definitions, not from conclusions you remember.",
    Method.OUTSIDE_VIEW: "Method: take the outside view. Start from base rates and reference classes of "
    "similar cases, then adjust for what is specific here.",
    Method.COUNTER_EVIDENCE: "Method: seek only counter-evidence. Look for what would make the obvious answer "
    "wrong and stress-test it; report what survives.",
    Method.REPRODUCE: "Method: reproduce verifiable claims. Recompute every number, re-derive every step, and "
    "say which claims you reproduced and which you could not.",
}


@cache
def template(name: str) -> Template:
    return Template((PROMPTS_DIR / f"{name}.md").read_text(encoding="utf-8"))


def render(name: str, **values: str) -> str:
    """Fill a template; a missing value is a bug, so substitute() raises rather than guessing."""
    return template(name).substitute(**values).strip() + "\n"


def brief(question: str, context: str = "", grounding: str = "") -> str:
    """The self-contained brief every voice gets: question, context, verified facts."""
    context_block = f"\n# Context\n{context.strip()}\n" if context.strip() else ""
    grounding_block = (
        f"\n# Verified facts (computed by SymPy before the panel; a claim contradicting them is wrong)\n"
        f"{grounding.strip()}\n"
        if grounding.strip()
        else ""
    )
    return render("brief", question=question.strip(), context_block=context_block, grounding_block=grounding_block)


ROLES = ("panelist", "moderator", "facilitator", "tiebreaker")


def messages(step: str, method: str = Method.NONE, role: str = "panelist", **values: str) -> list[Message]:
    """The role's system prompt (a panelist's with its method) plus the step's user prompt.

    Each role gets its own: a moderator told it is "one voice on a panel" argues instead of judging.
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    system = render(f"system_{role}", method=METHODS.get(method, ""))
    return [Message("system", system), Message("user", render(step, **values))]


def options_block(options: tuple[str, ...]) -> str:
    """The vote prompts' ``$options_block``: "" without options, else the list to copy from."""
    if not options:
        return ""
    listed = "\n".join(f"- {option.strip()}" for option in options)
    return (
        "\nThe asker gave these options. Your decision must be one of them, copied exactly as "
        f"written here (no other words):\n{listed}\n"
    )
