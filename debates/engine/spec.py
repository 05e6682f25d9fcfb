"""The frozen input of a run: the question, the voices with their labels, the protocol settings."""

from dataclasses import dataclass, replace

from debates.engine.attachments import Attachment
from debates.engine.vocabulary import Criticality, DebateMode, FailurePolicy, Method, Protocol
from debates.providers.base import Voice


@dataclass(frozen=True)
class Seat:
    """A voice's place in this run. ``key`` is stable across a resume; ``label`` is anonymous."""

    key: str  # "p1".., "moderator", "tie_breaker"; a degraded substitute gets "<key>~"
    label: str  # "Panelist A" (shuffled per question), "Moderator", "Tie-breaker"
    voice: Voice
    name: str
    family: str
    provider: str
    method: Method = Method.NONE

    @property
    def identity(self) -> dict[str, str]:
        """What the user learns once the synthesis is out."""
        return {
            "name": self.name,
            "model": self.voice.model,
            "family": self.family,
            "provider": self.provider,
            "method": self.method,
        }

    def names(self) -> set[str]:
        """Every string that would reveal who this voice is."""
        return {self.name, self.voice.model, self.family, self.provider, self.voice.endpoint.name} - {""}

    def substitute(self, other: "Seat", method: Method) -> "Seat":
        """Degradation: ``other``'s model takes this seat's label with a forced method."""
        return replace(other, key=f"{self.key}~", label=self.label, method=method)


@dataclass(frozen=True)
class RunSpec:
    """Everything a run needs, frozen when it starts (protocols.plan reads its shape fields)."""

    question: str
    protocol: Protocol
    seats: tuple[Seat, ...]
    moderator: Seat
    context: str = ""
    criticality: Criticality = Criticality.MEDIUM
    force_panel: bool = False
    rounds: int = 0  # 0: the protocol's default
    merge_critique: bool = False
    revote_on_dissent: bool = False
    failure_policy: FailurePolicy = FailurePolicy.STRICT
    quorum: int | None = None
    tie_breaker: Seat | None = None
    similarity: float = 85.0
    grounding: str = ""  # verified facts (markdown) computed before the panel, if any
    options: tuple[str, ...] = ()  # the asker's options: voters pick one verbatim
    fallback_moderator: Seat | None = None  # writes the synthesis if the moderator fails
    debate: DebateMode = DebateMode.ALWAYS  # on_dissent: skip the debate when a mixed panel agrees
    judge: Seat | None = None  # groups each round's answers by meaning; None: the moderator's model does
    facilitator_brief: bool = False  # the facilitator restates the question as a brief before the panel
    deadline: float | None = None  # seconds the asker gave for the answer, from the run's start
    synthesis_time: float | None = None  # what the moderator's synthesis usually takes, in seconds, if known
    checks: bool = False  # SymPy checks the computations each round states, before the next round reads it
    attachments: tuple[Attachment, ...] = ()  # the question's files and its thread's, in order
    schema: str = ""  # a JSON Schema (as JSON text) the asker wants the verdict in, after it is given; "" none

    @property
    def judging_seat(self) -> Seat:
        """The seat whose model judges agreement: the panel's judge, else the moderator's model."""
        return self.judge or replace(self.moderator, key="judge", label="Judge")

    def all_names(self) -> set[str]:
        extras = (self.tie_breaker, self.fallback_moderator, self.judge)
        seats = [*self.seats, self.moderator, *(s for s in extras if s is not None)]
        return set().union(*(seat.names() for seat in seats))
