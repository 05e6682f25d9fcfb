"""The example questions the ask page offers on a click: each shows one thing a panel is good at."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Example:
    title: str  # the button's words
    shows: str  # what a panel does with it, in a line
    text: str
    options: tuple[str, ...] = ()  # filled in with the vote protocol: the voters pick one verbatim

    @property
    def option_lines(self) -> str:
        """The options as the form's field takes them: one per line."""
        return "\n".join(self.options)

    @property
    def protocol(self) -> str:
        return "vote" if self.options else ""


EXAMPLES = (
    Example(
        "Where models disagree",
        "Independent answers, then a debate: the verdict keeps the disagreement as the map of where not to trust it.",
        "Will more than half of the new cars sold in the EU in 2030 be fully electric? Give the evidence on both "
        "sides and what would change your answer.",
    ),
    Example(
        "A decision between options",
        "The vote protocol: each voter picks one option with a confidence; the criticality sets how many must agree.",
        "Which database should a three-person team choose for a new multi-tenant SaaS product with about "
        "10,000 customers in its first year?",
        ("PostgreSQL", "MySQL", "MongoDB", "SQLite"),
    ),
    Example(
        "A factual trap",
        "The intuitive answer is wrong: one voice that computes it catches the others.",
        "A bat and a ball cost $1.10 in total. The bat costs $1.00 more than the ball. How much does the ball cost?",
    ),
)
