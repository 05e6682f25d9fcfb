"""The one place that decides what a prompt contains: template files in ``debates/prompts/``."""

from collections.abc import Iterable
from dataclasses import replace
from functools import cache
from pathlib import Path
from string import Template
from typing import TYPE_CHECKING, Any

from debates.engine import checks, dossier, sourcing
from debates.engine.attachments import IMAGE, PDF, Attachment, Delivery, delivery_to
from debates.engine.events import ContributionResult
from debates.engine.reading import closing
from debates.engine.vocabulary import Method, StepKind
from debates.providers.base import Message, Part, Voice

if TYPE_CHECKING:
    from debates.engine.ledger import DissentCheck, Ledger

PROMPTS_DIR = Path(__file__).resolve().parent.parent / "prompts"
# Bump when a template changes meaning; recorded with each run.
PROMPTS_VERSION = 6

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


def brief(question: str, context: str = "", grounding: str = "", restated: str = "", files: str = "") -> str:
    """The self-contained brief every voice gets: the asker's question and context, the
    facilitator's restatement of them when it wrote one, the attached files as this voice gets them
    (``attachments_block``), verified facts."""
    context_block = f"\n# Context\n{context.strip()}\n" if context.strip() else ""
    if restated.strip():
        context_block += (
            "\n# The facilitator's brief (the question restated, with its constraints and the output wanted; "
            f"where it and the asker's words differ, the asker's words win)\n{restated.strip()}\n"
        )
    grounding_block = (
        f"\n# Verified facts (computed by SymPy before the panel; a claim contradicting them is wrong)\n"
        f"{grounding.strip()}\n"
        if grounding.strip()
        else ""
    )
    return render(
        "brief",
        question=question.strip(),
        context_block=context_block,
        attachments_block=files,
        grounding_block=grounding_block,
    )


HOW = {
    Delivery.NATIVE: "attached to this message: read it there",
    Delivery.TEXT: "its text follows, page by page where it has pages",
    Delivery.UNSEEN: "attached, but your model cannot see images: do not guess what it shows; say where it would "
    "change your answer",
}


def attachments_block(files: tuple[Attachment, ...], voice: Voice) -> str:
    """The asker's files as ``voice`` gets them: each named with what it is and how it reaches this voice,
    then the text of those it reads as text, fenced, a PDF's with its pages marked ("[report.pdf p. 4]")."""
    if not files:
        return ""
    listed, texts = [], []
    for attached in files:
        how = delivery_to(attached, voice)
        listed.append(f"- {attached.name} ({describe(attached)}): {HOW[how]}.")
        if how == Delivery.TEXT:
            texts.append(dossier.fence(attached.name, file_text(attached)))
    heading = "# Attachments (the asker's files: cite them by name and page, as in “report.pdf p. 4”)"
    return "\n" + "\n".join([heading, *listed]) + "\n" + "".join(f"\n{text}\n" for text in texts)


def describe(attached: Attachment) -> str:
    """What a file is, in a few words: "PDF, 12 pages", "image, 800 × 600 pixels"."""
    if attached.kind == IMAGE:
        return f"image, {attached.width} × {attached.height} pixels"
    if attached.pages:
        return f"{attached.kind.upper()}, {attached.pages} page{'s' if attached.pages != 1 else ''}"
    return "Word document" if attached.kind == "docx" else attached.kind


def file_text(attached: Attachment) -> str:
    """A file's text, each page of a PDF under its citation ("[report.pdf p. 4]")."""
    if attached.kind != PDF:
        return attached.text
    return "\n\n".join(f"[{attached.citation(n)}]\n{text}" for n, text in enumerate(attached.page_texts, 1))


def with_parts(messages: list[Message], parts: tuple[Part, ...]) -> list[Message]:
    """The prompt with the files this voice reads natively beside its user message (every prompt's user
    message carries the brief that names them)."""
    if not parts:
        return messages
    return [replace(m, parts=parts) if m.role == "user" else m for m in messages]


ROLES = ("panelist", "moderator", "facilitator", "tiebreaker", "judge")


def messages(step: str, method: str = Method.NONE, role: str = "panelist", **values: str) -> list[Message]:
    """The role's system prompt (a panelist's with its method) plus the step's user prompt.

    Each role gets its own: a moderator told it is "one voice on a panel" argues instead of judging.
    """
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    system = render(f"system_{role}", method=METHODS.get(method, ""))
    return [Message("system", system), Message("user", render(step, **values))]


def searching(messages: list[Message]) -> list[Message]:
    """A call that may search the web: its system prompt says how to cite what it finds."""
    note = render("search")
    if messages and messages[0].role == "system":
        return [Message("system", f"{messages[0].content}\n{note}"), *messages[1:]]
    return [Message("system", note), *messages]


def options_block(options: tuple[str, ...]) -> str:
    """The vote prompts' ``$options_block``: "" without options, else the list to copy from."""
    if not options:
        return ""
    listed = "\n".join(f"- {option.strip()}" for option in options)
    return (
        "\nThe asker gave these options. Your decision must be one of them, copied exactly as "
        f"written here (no other words):\n{listed}\n"
    )


def dossier_of(
    results: Iterable[ContributionResult], names: Iterable[str], exclude: str = "", rotation: int = 0
) -> str:
    """Contributions as a dossier: each one's text with its claims numbered by label, scrubbed and
    fenced, in the order of a reader at ``rotation`` (``exclude``: the reader's own seat). Where
    some of them cite sources, each one's are listed under it (numbered as its footnotes), each
    claim marked sourced or unsourced, and a voice that cites nothing is said to."""
    shown = [r for r in results if r.seat != exclude]
    if not any(sourcing.footnotes(r.sources) for r in shown):
        return dossier.dossier(
            [(r.label, closing.with_claims(r.text, r.ledger)) for r in shown], names, rotation=rotation
        )
    return dossier.dossier([(r.label, with_sources(r)) for r in shown], names, rotation=rotation)


def with_sources(result: ContributionResult) -> str:
    """One contribution for the dossier with its claims' sources and the pages it cites."""
    record = dict(result.ledger)
    if "claims" in record:
        record["claims"] = [c | {"text": c["text"] + _backing(c)} for c in record["claims"]]
    notes = sourcing.footnotes(result.sources, result.text)
    cited = f"Sources it cites:\n{sourcing.in_words(notes)}" if notes else "It cites no source."
    return f"{closing.with_claims(result.text, record)}\n\n{cited}"


def _backing(claim: dict[str, Any]) -> str:
    numbers = claim.get("sources") or []
    return f" [sources {', '.join(str(n) for n in numbers)}]" if numbers else " [unsourced]"


DECIDE = """Decide whether this question deserves the panel. Judge by the STAKES — what a wrong answer
would cost the asker — never by how confident you feel about answering it. Important, controversial
or verifiable questions get the panel; trivial or low-stakes ones get a direct answer.

The asker rated this question's criticality **{criticality}** (of low, medium, high): that is the
asker telling you the stakes. Give a direct answer only when a wrong answer would cost the asker
almost nothing. Either way:
"""
DECIDED = "The panel will run: the asker asked for it. Do not judge whether it should."
TRIAGE_SHAPE = (
    '{"stakes": "low" | "high", "panel": true | false, "reason": "<one sentence>", '
    '"direct_answer": "<your answer if panel is false, else empty>", "brief": "<the brief>"}'
)
BRIEF_SHAPE = '{"brief": "<the brief>"}'


def triage(brief_text: str, calls: int, criticality: str, decide: bool) -> list[Message]:
    """The facilitator's call: whether the panel is worth its cost (when ``decide``), and the brief."""
    return messages(
        "triage",
        role="facilitator",
        brief=brief_text,
        calls=str(calls),
        decide=DECIDE.format(criticality=criticality) if decide else DECIDED,
        shape=TRIAGE_SHAPE if decide else BRIEF_SHAPE,
    )


def examples(label: str, labels: Iterable[str]) -> dict[str, str]:
    """Claim ids for a closing block's examples, from this reader's panel: ``own1``/``own2`` are
    its own claims, ``other1``/``other2`` another voice's, so a model that copies the example
    copies an id that exists and is the right kind."""
    own = closing.claim_prefix(label)
    others = [closing.claim_prefix(other) for other in sorted(labels) if other != label] or [own]
    return {
        "own1": f"{own}1",
        "own2": f"{own}2",
        "other1": f"{others[0]}1",
        "other2": f"{others[-1]}2",
    }


def claims_note(
    ledger: "Ledger", dissent: "DissentCheck | None", source: StepKind | None, reader: str, attacking: bool = False
) -> str:
    """The claims a debate works on: only the contested ones when the blind round did not find one
    answer (debate = on_dissent), the dissenters' first; a critique (``attacking``) lists only the
    others' claims, a debate marks the reader's own; else those of the blind answers when the
    dossier no longer shows them (a later debate round)."""
    claims = ledger.claims
    if dissent is not None and dissent.contested:
        ids = [c for c in dissent.contested if c in claims and not (attacking and claims[c]["author"] == reader)]
        mine = " (your own: defend or correct it)"
        listed = "\n".join(f"- {c}: {claims[c]['text']}{mine if claims[c]['author'] == reader else ''}" for c in ids)
        settled = (
            f"The blind answers agree on {', '.join(dissent.shared)}: do not relitigate them. "
            if dissent.shared
            else ""
        )
        if not listed:
            return f"\n{settled}No claim of the others is contested: test the agreement itself.\n"
        what = "Attack only these contested claims of the others" if attacking else "Debate only these contested claims"
        return f"\n{settled}{what}, in this order (the dissenting answers' first):\n{listed}\n"
    if source is not None and source != StepKind.ANSWER and claims:
        listed = "\n".join(f"- {c}: {claim['text']}" for c, claim in claims.items())
        return f"\nThe claims of the blind answers:\n{listed}\n"
    return ""


def block(title: str, lines: list[str]) -> str:
    """A titled list for a prompt; "" when there is nothing to list."""
    return f"\n{title}:\n" + "\n".join(f"- {line}" for line in lines) + "\n" if lines else ""


def checks_block(found: list[dict[str, Any]], moderator: bool = False) -> str:
    """The computations checked between rounds, as facts for the next round (and the moderator):
    computed by the program from the panel's own claims, outside the quoted material. "" when none."""
    facts = checks.decided(found)  # what was not checked is no fact
    if not facts:
        return ""
    lines = "\n".join(f"- {checks.line(c)}" for c in checks.order(facts))
    if moderator:
        rule = (
            "A claim a check refuted cannot stand in your verdict: if your verdict still rests on one, "
            "say why, naming the claim."
        )
    else:
        rule = "Rely on them: a claim a check refuted is wrong as stated; correct it, or say why it still holds."
    return (
        "\nNumbers checked by the program between rounds (SymPy recomputed the computations the panelists "
        f"stated; these are facts, not a panelist's words). {rule}\n{lines}\n"
    )


def ledger_block(ledger: "Ledger") -> str:
    """The claim ledger in words, for the synthesis prompt; "" when it holds nothing."""
    text = ledger.for_moderator()
    found = (
        f"\nThe claim ledger (read by the program from the panelists' closing blocks; build the audit "
        f"trail of attacks accepted and rejected from it, and check it against the text):\n{text}\n"
        if text
        else ""
    )
    return found + (SOURCED if ledger.sourcing else "")


SOURCED = """
Sources: some panelists searched the web; each claim above is marked sourced (with the pages it rests
on) or unsourced, and each answer lists the pages it cites. Weigh a sourced claim above an unsourced
one, but check that a page says what it is cited for. In the Verdict, say which of its points rest
on no source.
"""
