"""Threads: what a follow-up's panel is told of the question it follows, and how a thread reads.

A follow-up's ``parent`` is the question it follows (its verdict and disputed points brief the
panel); ``root`` is the thread's first question, so History groups a thread in one query.
"""

from collections import defaultdict
from dataclasses import dataclass

from django.core.paginator import Page, Paginator
from django.db.models import Max, QuerySet
from django.db.models.functions import Coalesce

from debates.engine import prompts
from debates.engine.reading import synthesis
from debates.models import Attachment, Question, Status, Synthesis

# A follow-up builds on a verdict: a run that failed or was cancelled has none to build on.
FOLLOWABLE = (Status.DONE, Status.ANSWERED, Status.NEEDS_REVIEW)
DEEPEST = 50  # earlier questions shown at most: a thread is a conversation, not an endless chain


def refusal(question: Question) -> str:
    """Why ``question`` cannot be followed up, in words the asker can act on; "" when it can."""
    if not question.is_finished:
        return f"Question {question.pk} has not finished yet: ask the follow-up once its verdict is in."
    if question.status not in FOLLOWABLE:
        status = question.get_status_display().lower()
        return f"Question {question.pk} ended without a verdict ({status}): ask it again instead of following it up."
    if not question.verdict.strip():
        return f"Question {question.pk} ended without a verdict: ask it again instead of following it up."
    return ""


def by_role(question: Question) -> dict[str, str]:
    """The synthesis's sections by role (consensus, disagreements, verdict), each in full."""
    found = Synthesis.objects.filter(question=question).first()
    bodies: dict[str, list[str]] = defaultdict(list)
    for heading, body in found.sections if found else []:
        if heading and (role := synthesis.role(heading)):
            bodies[role].append(body.strip())
    return {role: "\n\n".join(parts) for role, parts in bodies.items()}


def disputed_points(question: Question, disagreements: str) -> str:
    """The moderator's disagreements section and the ledger's claims attacked and never conceded."""
    contested = [claim["text"] for claim in question.ledger.get("claims", []) if claim.get("status") == "contested"]
    parts = [disagreements] if disagreements else []
    if contested:
        parts.append("Claims attacked and never conceded:\n" + "\n".join(f"- {text}" for text in contested))
    return "\n\n".join(parts) or "None recorded: the moderator named no disagreement and no claim stayed contested."


def context_for(question: Question) -> str:
    """The context the panel reads: the asker's own and, for a follow-up, the earlier question, its
    verdict and its disputed points (prompts/followup.md). Nothing of this run is in it, so the
    blind round stays blind."""
    parent = question.parent
    if parent is None:
        return question.context
    sections = by_role(parent)
    context = question.context.strip()
    return prompts.render(
        "followup",
        question=parent.text.strip(),
        verdict=sections.get("verdict") or parent.verdict or "The moderator wrote no verdict of its own.",
        disputes=disputed_points(parent, sections.get("disagreements", "")),
        context_block=f"\n## The asker's context\n{context}\n" if context else "",
    )


def ancestors(question: Question) -> list[Question]:
    """The earlier questions of the thread, the first one first."""
    chain: list[Question] = []
    current = question.parent
    while current is not None and len(chain) < DEEPEST:
        chain.append(current)
        current = current.parent
    return chain[::-1]


def attachments_for(question: Question) -> list[Attachment]:
    """The files a question's panel reads: its thread's, the earliest question's first, then its own
    (a follow-up is about the same contract, log or chart as the question it follows)."""
    chain = [*(q.pk for q in ancestors(question)), question.pk]
    rows = Attachment.objects.filter(question_id__in=chain)
    return sorted(rows, key=lambda row: (chain.index(row.question_id), row.position))


@dataclass(frozen=True)
class Thread:
    """One History row: the thread's questions this reader sees, the first one first."""

    questions: list[Question]

    @property
    def first(self) -> Question:
        return self.questions[0]

    @property
    def follow_ups(self) -> list[Question]:
        return self.questions[1:]


def history_page(questions: QuerySet[Question], number: str | None, per_page: int) -> Page:
    """A page of threads, the most recently active first, each with its questions among ``questions``."""
    keyed = questions.annotate(thread=Coalesce("root_id", "id"))
    threads = keyed.values("thread").annotate(latest=Max("created_at")).order_by("-latest", "-thread")
    page = Paginator(threads, per_page).get_page(number)
    keys = [row["thread"] for row in page.object_list]
    grouped: dict[int, list[Question]] = defaultdict(list)
    for question in keyed.filter(thread__in=keys).order_by("created_at", "id").prefetch_related("attachments"):
        grouped[question.thread].append(question)
    return Page([Thread(grouped[key]) for key in keys], page.number, page.paginator)
