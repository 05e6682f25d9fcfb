"""The panel actually running: failure policies, degradation and heterogeneity, as measured.

strict: any failed voice stops the run — better no answer than a three-voice monologue posing
as a five-voice panel. degrade: a voice that failed twice in the blind round is replaced by a
surviving voice's model with a forced method (one step down the heterogeneity ladder); later,
and in a vote always, it is dropped: a stand-in would let one model vote twice. quorum: go on
while enough voices answer. The report always says what ran, never what was intended.
"""

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from debates.engine.events import ContributionResult
from debates.engine.prompts import PROMPTS_VERSION
from debates.engine.spec import RunSpec, Seat
from debates.engine.vocabulary import BALLOT_KINDS, POSITION_KINDS, FailurePolicy, Method, Outcome, StepKind

if TYPE_CHECKING:
    from debates.engine.protocols import Step

# A stand-in's method, in order of preference: the first one no active voice follows.
FORCED_METHODS = (Method.COUNTER_EVIDENCE, Method.FIRST_PRINCIPLES, Method.OUTSIDE_VIEW, Method.REPRODUCE)
# A parameter count written in a model's name as a part of its own ("smollm2-135m", "qwen2.5:1.5b",
# "llama3.2:3b"), not glued to letters ("a3b" is a 30B model's active share, "e2b" an effective size).
PARAMETERS = re.compile(r"(?:^|[-_:/ ])(\d+(?:\.\d+)?)([mb])(?=$|[-_:/ .])", re.IGNORECASE)
SMALL = 3e9  # at most this many parameters: too weak for its agreement to count as a family's


def small_model(seat: Seat) -> bool:
    """The embedded demo model, or a model whose name says it has at most 3B parameters."""
    return small(seat.voice.model, seat.voice.endpoint.wire)


def small(model: str, wire: str) -> bool:
    """Whether a model on a wire is the embedded demo model or says it has at most 3B parameters.

    Only what the name states plainly counts ("mini" or "flash" say nothing about the size); a
    name giving several counts is judged by the largest.
    """
    if wire == "local":
        return True
    counts = [float(n) * (1e6 if unit.lower() == "m" else 1e9) for n, unit in PARAMETERS.findall(model)]
    return bool(counts) and max(counts) <= SMALL


# A failure's kind in words that name no provider, model or error text (the attempts' ``fault``).
FAULTS = {
    "auth": "its provider refused the key",
    "rate_limited": "its provider rate-limited it",
    "overloaded": "its provider was overloaded",
    "server": "a server error at its provider",
    "bad_request": "its provider rejected the request",
    "connect_timeout": "its provider could not be reached",
    "connect": "its provider could not be reached",
    "stall": "its stream stalled",
    "timeout": "it did not finish in time",
    "dropped": "the connection dropped mid-answer",
    "malformed": "its provider sent a reply that could not be read",
    "empty": "it returned no text",
    "blocked": "its provider withheld the answer",
    "unavailable": "its model cannot run here",
    "usage_limit": "its subscription's usage limit or its account's credit is spent",
}


def reason(result: ContributionResult) -> str:
    """Why a voice failed, for reports that reach prompts and the page while identities are hidden: the
    kind of failure, never the provider, the model or the error's text (a gated text's quote stays out too)."""
    if result.status == Outcome.GATED:
        return "its text was not an answer (gated out)"
    if result.status == Outcome.CANCELLED:
        return result.error  # our own words (the deadline, another voice's failure), never the provider's
    fault = next((a.get("fault", "") for a in reversed(result.attempts) if a.get("fault")), "")
    return FAULTS.get(fault, "its call failed")


class RunStopped(Exception):
    """The run cannot go on; the message says why, in words for the user."""


@dataclass(frozen=True)
class Heterogeneity:
    level: str  # families | models | methods | none
    strength: str  # strong | weak
    note: str


class Lineup:
    """The voices actually running, as the policy changes them: who is active, who stood in, who dropped."""

    def __init__(self, spec: RunSpec) -> None:
        self.spec = spec
        self.active: list[Seat] = list(spec.seats)
        self.used: dict[str, Seat] = {s.key: s for s in spec.seats}
        self.dropped: dict[str, str] = {}
        self.degradations: list[str] = []

    def by_key(self, key: str) -> Seat:
        return self.used[key]

    def on_failure(
        self, seat: Seat, result: ContributionResult, step: "Step", survivors: dict[str, ContributionResult]
    ) -> Seat | None:
        """Apply the policy to a failed voice; returns a substitute to call, if any."""
        why = reason(result)
        if self.spec.failure_policy == FailurePolicy.STRICT:
            raise RunStopped(
                f"{seat.label} ({seat.name}, {seat.voice.model} via {seat.provider}) failed in "
                f"{step.title.split(' — ')[0].lower()}: {why}. The run stopped: a panel missing a voice "
                "is not the panel you asked for."
            )
        # A ballot is one model's vote: a stand-in on another voter's model would vote twice.
        stand_in_allowed = step.kind == StepKind.ANSWER and not seat.key.endswith("~")
        if self.spec.failure_policy == FailurePolicy.DEGRADE and stand_in_allowed:
            donors = [s for s in self.active if s.key in survivors]
            if donors:
                used = {s.method for s in self.active}
                method = next((m for m in FORCED_METHODS if m not in used), FORCED_METHODS[0])
                donor = donors[len(self.degradations) % len(donors)]
                substitute = seat.substitute(donor, method)
                self._replace(seat, substitute)
                self.degradations.append(
                    f"{seat.label} failed ({why}); its seat went to a second voice on another panelist's "
                    f'model with the forced method "{method}": heterogeneity drops a level.'
                )
                return substitute
        self.drop(seat, result, step)
        return None

    def drop(self, seat: Seat, result: ContributionResult, step: "Step") -> None:
        self.active = [s for s in self.active if s.key != seat.key]
        self.dropped[seat.key] = reason(result)
        if step.kind in BALLOT_KINDS:
            self.degradations.append(
                f"{seat.label} failed in {step.title} ({self.dropped[seat.key]}): it does not vote, and the "
                "threshold applies to the votes cast."
            )
        else:
            self.degradations.append(f"{seat.label} dropped in {step.title}: {self.dropped[seat.key]}.")

    def cut(self, seat: Seat, result: ContributionResult, step: "Step") -> None:
        """A voice stopped at the deadline: without a first answer it is out; in a later round its
        earlier answer stands, and the record says the round was cut short."""
        if step.kind in POSITION_KINDS:
            self.drop(seat, result, step)
        else:
            self.degradations.append(f"{seat.label} was {result.error} in {step.title}: its earlier answer stands.")

    def moderator_stand_in(self, failed: ContributionResult) -> Seat | None:
        """Who writes the synthesis when the moderator failed: the panel's fallback, else the
        tie-breaker, else a voice of another family — never silently, never the same model."""
        moderator = self.spec.moderator
        candidates = [self.spec.fallback_moderator, self.spec.tie_breaker]
        candidates += [s for s in self.active if s.family.casefold() != moderator.family.casefold()]
        candidates += self.active
        chosen = next((s for s in candidates if s is not None and s.voice.model != moderator.voice.model), None)
        if chosen is None:
            return None
        stand_in = replace(chosen, key=f"{moderator.key}~", label=f"{moderator.label} (stand-in)", method=Method.NONE)
        self.used[stand_in.key] = stand_in
        self.degradations.append(
            f"The {moderator.label.lower()} failed ({reason(failed)}); the synthesis was written by "
            f"a stand-in on another model ({chosen.label})."
        )
        return stand_in

    def _replace(self, seat: Seat, substitute: Seat) -> None:
        self.active = [substitute if s.key == seat.key else s for s in self.active]
        self.used[substitute.key] = substitute
        self.dropped[seat.key] = "replaced"

    def check_enough(self, step: "Step") -> None:
        count = len(self.active)
        if self.spec.failure_policy == FailurePolicy.QUORUM and count < (self.spec.quorum or 1):
            raise RunStopped(f"Only {count} voices answered in {step.title}; the panel's quorum is {self.spec.quorum}.")
        if count == 0:
            raise RunStopped(f"No voice answered in {step.title}.")
        if count == 1 and len(self.spec.seats) > 1 and self.spec.failure_policy == FailurePolicy.DEGRADE:
            raise RunStopped(f"Only one voice is left after {step.title}: that is a monologue, not a panel.")

    def heterogeneity(self) -> Heterogeneity:
        """Measured on the voices that answered: a stand-in on another voice's model is that model again,
        and a small model's agreement is no family's worth of evidence."""
        seats = self.active
        families = {s.family.casefold() for s in seats}
        models = {s.voice.model for s in seats}
        small = [s for s in seats if small_model(s)]
        weighty = {s.family.casefold() for s in seats if not small_model(s)}
        if len(families) > 1 and len(models) < len(seats):
            return Heterogeneity(
                "families",
                "weak",
                f"the panel spans {len(families)} model families, but its {len(seats)} answers came from only "
                f"{len(models)} models (a stand-in shares a model): convergence would be weak evidence.",
            )
        if len(families) > 1 and len(weighty) < 2:
            return Heterogeneity(
                "families",
                "weak",
                f"the panel spans {len(families)} model families, but {_count(len(small), 'voice')} of {len(seats)} "
                f"{'runs' if len(small) == 1 else 'run'} a small model (the embedded demo model, or 3B parameters "
                "or fewer), whose agreement adds little: convergence would be weak evidence.",
            )
        if len(families) > 1:
            aside = f" besides {_count(len(small), 'voice')} on a small model" if small else ""
            return Heterogeneity(
                "families",
                "strong",
                f"the panel spans {len(weighty)} model families{aside}: convergence would be strong evidence.",
            )
        if len({s.voice.model for s in seats}) > 1:
            return Heterogeneity(
                "models",
                "weak",
                "one model family, different models: shared blind spots are likely, "
                "so convergence would be weak evidence.",
            )
        if len({s.method for s in seats}) > 1:
            return Heterogeneity(
                "methods",
                "weak",
                "a homogeneous panel (one model with different methods): "
                "convergence would be weak evidence (diversity illusion).",
            )
        return Heterogeneity(
            "none", "weak", "a homogeneous panel (one model, one method): convergence would be weak evidence."
        )

    def report(self, calls_planned: int) -> dict[str, Any]:
        """What is running, by label only: identities stay hidden until the synthesis."""
        het = self.heterogeneity()
        voices = [
            {"seat": s.key, "label": s.label, "method": s.method, "status": "active", "search": s.voice.search}
            for s in self.active
        ]
        voices += [
            {"seat": key, "label": seat.label, "method": seat.method, "status": why, "search": seat.voice.search}
            for key, why in self.dropped.items()
            for seat in [self.used[key]]
        ]
        return {
            "voices": voices,
            "degradations": list(self.degradations),
            "heterogeneity": het.level,
            "evidence": het.strength,
            "note": het.note,
            "policy": self.spec.failure_policy,
            "calls_planned": calls_planned,
            "prompts_version": PROMPTS_VERSION,  # which wording of debates/prompts/ this run used
        }

    def reveal(self) -> dict[str, dict[str, str]]:
        """Seat key -> label and identity, for every voice that took part."""
        seats = [*self.used.values(), self.spec.moderator, *([self.spec.tie_breaker] if self.spec.tie_breaker else [])]
        return {s.key: {"label": s.label, **s.identity} for s in seats}


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"
