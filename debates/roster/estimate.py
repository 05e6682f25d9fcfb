"""What a run would cost, before it starts, as low / expected / high: what the ask page, the API's
``GET /api/panels``, MCP's ``list_panels`` and ``GET /v1/models`` show beside each panel.

The expected is the ask page's figure (``PanelOption.cost``: the roster's prices, a typical call's
tokens, the planned calls, the search price). The low is the fewest calls a question on the panel
can make (the facilitator's triage answering directly; the debate rounds skipped, as ``debate =
on_dissent`` does when the blind answers agree), each a short call. The high walks every step the
plan can take (re-votes, the tie-breaker, the verdict in a schema), with every escalation inside
a step (the judge after each round of answers, a voice asked for the basis of a change, the
moderator's stand-in), every call writing its ``max_tokens``, reading the brief and all that was
written before it, and searching as often as a provider lets it. Not in it: a call a provider or the
gate makes again after a failure, a substitute for a failed voice, a question longer than a typical
brief, and the files' tokens, which the ask page prices apart (readiness.file_rates).
"""

from dataclasses import dataclass
from decimal import Decimal

from debates.engine.policy import small
from debates.engine.protocols import Shape, Step, call_steps, plan
from debates.engine.purse import ESTIMATE_IN, ESTIMATE_OUT, typical_call
from debates.engine.vocabulary import CHANGE_KINDS, DEBATE_KINDS, NOT_CALLS, SEARCH_KINDS, Protocol, StepKind
from debates.models import Panel, Panelist
from debates.providers.catalog import MAX_SEARCHES, always_searches

# The shortest call a run makes: a brief of a few lines and a one-line answer (the low); a typical
# call's size (the expected) is the engine's (purse), as a run's next call is reckoned.
LOW_IN, LOW_OUT = 300, 50
CENTS = Decimal("0.0001")
# Where a voice may change its position totally (a re-vote's changed ballot too), and be asked its basis.
MOVING_KINDS = CHANGE_KINDS | {StepKind.REVOTE}


@dataclass(frozen=True)
class Estimate:
    """A run's cost and calls: the fewest, the usual, every escalation."""

    low: Decimal
    expected: Decimal
    high: Decimal
    calls_low: int
    calls: int
    calls_high: int

    def as_dict(self) -> dict:
        return {
            "currency": "USD",
            **{name: str(getattr(self, name).quantize(CENTS)) for name in ("low", "expected", "high")},
            "calls": {"low": self.calls_low, "expected": self.calls, "high": self.calls_high},
        }


def expected(panel: Panel) -> tuple[Decimal, Decimal]:
    """What a run on this panel is expected to cost (the ask page's figure, which a question reserves
    against its budgets, budgets.hold), and what its searches add to that."""
    members = panel.roster()
    steps = plan_of(panel)
    per_voice, moderator_calls = call_steps(steps, judging=False)
    cost = per_voice * sum((call_cost(p) for p in members), Decimal(0))
    cost += moderator_calls * call_cost(panel.moderator) + judge_calls_of(panel, steps) * call_cost(judge_of(panel))
    # Each of their calls in the panel's rounds searches about once (Anthropic's may search more);
    # a search model's searches are in its calls' cost already, turned off or not.
    optional = [p for p in searchers(panel) if not always_searches(p.model)]
    search_cost = per_voice * sum((p.price_search for p in optional), Decimal(0)) / 1000
    return cost + search_cost, search_cost


def ranged(panel: Panel, expected: Decimal, calls: int) -> Estimate:
    """The panel's run, from its fewest calls to every escalation, around the ask page's expected."""
    low, calls_low = fewest(panel)
    high, calls_high = most(panel)
    return Estimate(
        min(low, expected), expected, max(high, expected), min(calls_low, calls), calls, max(calls_high, calls)
    )


def fewest(panel: Panel) -> tuple[Decimal, int]:
    """The shortest path: an adversarial triage that answers directly, else the planned steps but the
    debate rounds (the blind answers agreed), each call short."""
    if panel.protocol == Protocol.ADVERSARIAL:
        return call_cost(panel.moderator, LOW_IN, LOW_OUT), 1
    steps = [s for s in plan_of(panel) if s.kind not in DEBATE_KINDS]
    judge, members = judge_of(panel), panel.roster()
    panel_steps, solo_steps = call_steps(steps, judging=False)
    judge_calls = judge_calls_of(panel, steps)
    cost = panel_steps * sum((call_cost(p, LOW_IN, LOW_OUT) for p in members), Decimal(0))
    cost += solo_steps * call_cost(panel.moderator, LOW_IN, LOW_OUT) + judge_calls * call_cost(judge, LOW_IN, LOW_OUT)
    return cost, panel_steps * len(members) + solo_steps + judge_calls


def most(panel: Panel) -> tuple[Decimal, int]:
    """Every step the plan can take and every escalation in it, each call as long as it may be."""
    shape = Shape(
        Protocol(panel.protocol),
        panel.rounds,
        panel.merge_critique,
        panel.revote_on_dissent,
        False,
        panel.facilitator_brief,
        schema="asked",  # the verdict in the asker's schema: one more call
    )
    members, judge = panel.roster(), judge_of(panel)
    judging = not small(judge.model, judge.provider.wire)
    searching = {p.pk for p in searchers(panel) if not always_searches(p.model)}
    written, calls, cost = 0, 0, Decimal(0)
    for step in plan(shape):
        if step.kind in NOT_CALLS:
            continue
        if step.panel:
            for p in members:
                cost += longest(p, written) + searches(p, step, searching)
                calls += 1
                if step.kind in MOVING_KINDS:  # a total change without a reason: asked its basis, one more call
                    cost += longest(p, written)
                    calls += 1
            written += sum(p.max_tokens for p in members)
            if judging and step.judged:
                cost += longest(judge, written)
                calls += 1
            continue
        for p in solo(panel, step, written):
            cost += longest(p, written)
            calls += 1
    return cost, calls


def longest(panelist: Panelist, written: int) -> Decimal:
    """A call reading the brief and everything written before it, writing all it may."""
    return call_cost(panelist, ESTIMATE_IN + written, panelist.max_tokens)


def searches(panelist: Panelist, step: Step, searching: set[int]) -> Decimal:
    """The most a voice's searches in a step cost: as many as a provider allows a call (Anthropic's limit)."""
    if panelist.pk not in searching or step.kind not in SEARCH_KINDS:
        return Decimal(0)
    return MAX_SEARCHES * panelist.price_search / 1000


def solo(panel: Panel, step: Step, written: int) -> list[Panelist]:
    """Who makes a step's one call: the moderator (and, for the synthesis, its costliest possible
    stand-in, engine.policy), or the tie-breaker (none configured: a person decides)."""
    if step.kind == StepKind.TIEBREAK:
        return [panel.tie_breaker] if panel.tie_breaker else []
    if step.kind != StepKind.SYNTHESIS:
        return [panel.moderator]
    stand_ins = [p for p in (panel.fallback_moderator, panel.tie_breaker) if p] or panel.roster()
    dearest = max(stand_ins, key=lambda p: longest(p, written), default=None)
    return [panel.moderator, *([dearest] if dearest else [])]


def call_cost(panelist: Panelist, tokens_in: int = ESTIMATE_IN, tokens_out: int = ESTIMATE_OUT) -> Decimal:
    """A call's cost (a typical one's unless told its tokens; it writes at most its ``max_tokens``): its
    tokens, and the search an OpenAI search model is billed on every call (in any role, whether its
    question may search or not)."""
    fee = panelist.price_search / 1000 if always_searches(panelist.model) else Decimal(0)
    return typical_call(panelist.price_in, panelist.price_out, panelist.max_tokens, tokens_in, tokens_out) + fee


def searchers(panel: Panel) -> list[Panelist]:
    """The panel's voices that search the web in its rounds (unless a question turns it off): those
    whose panelist may, on a provider that can, where the panel does not forbid it."""
    if panel.forbid_search:
        return []
    return [p for p in panel.roster() if p.may_search]


def plan_of(panel: Panel) -> list[Step]:
    """The steps a question on this panel usually runs (the plan the engine makes of its settings)."""
    protocol = Protocol(panel.protocol)
    return plan(
        Shape(protocol, panel.rounds, panel.merge_critique, panel.revote_on_dissent, False, panel.facilitator_brief)
    )


def judge_of(panel: Panel) -> Panelist:
    """Whose model judges agreement: the panel's judge, else its moderator."""
    return panel.judge or panel.moderator


def judge_calls_of(panel: Panel, steps: list[Step]) -> int:
    """The judge's calls a run usually makes: one per round of answers, none for a judge on a small model."""
    judge = judge_of(panel)
    return 0 if small(judge.model, judge.provider.wire) else sum(s.judged for s in steps if s.planned)
