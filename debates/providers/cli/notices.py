"""A CLI's own status lines, read where an answer should be: "Please run /login", "Credit balance is
too low", a subscription's usage limit and when it resets, a rate limit.

Precision first: a text is a notice only when it is short (a line or two, as the CLIs print them)
and nothing in it is prose of its own; an answer that explains such a message ("'Please run /login'
means your token expired: …") is an answer. ``tests/corpus/cli/`` holds the messages the CLIs
print and answers that quote them; ``bench/bench_cli.py`` prints the reader's figures.
"""

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from debates.providers.base import Fault

MAX_CHARS = 400
MAX_LINES = 3

# "resets 3pm (Europe/Rome)", "resets at 15:00", "Access resets at 2:37 PM GMT+1", "try again at 3:05 PM",
# "try again in 4 days 1 hour", "resets Aug 8", "resets in 2h 5m".
_WHEN = r"[\w :.,+/()-]{1,60}?"
RESETS = re.compile(
    rf"(?i)\b(?:(?:limit\s+will\s+)?resets?|access\s+resets|try\s+again|available\s+again)\s+"
    rf"(?P<when>(?:at|on|in|after)\s+{_WHEN}|{_WHEN})\s*(?:[.!·∙]|$)"
)
EPOCH = re.compile(r"\|(?P<epoch>\d{10})\b")  # Claude Code's "Claude AI usage limit reached|1760000000"

LOGIN = re.compile(
    r"(?i)(?:please\s+run\s+/login|not\s+logged\s+in|invalid\s+api\s+key|oauth\s+token\s+(?:has\s+)?expired|"
    r"(?:please\s+)?(?:log\s*in|sign\s+in)\s+(?:again|first)|authentication\s+(?:failed|required)|"
    r"please\s+set\s+an\s+auth\s+method|must\s+specify\s+the\s+\w+_API_KEY|no\s+(?:api\s+)?key\s+(?:was\s+)?found|"
    r"run\s+`?(?:claude|gemini|qwen|codex)(?:\s+login)?`?\s+(?:to\s+log\s+in|first))"
)
CREDIT = re.compile(
    r"(?i)(?:credit\s+balance\s+is\s+too\s+low|insufficient\s+(?:credits?|balance|quota)|out\s+of\s+credits?|"
    r"billing\s+(?:error|hard\s+limit)|spend\s+limit\s+reached|free\s+allocated\s+quota\s+exceeded)"
)
USAGE_LIMIT = re.compile(
    r"(?i)(?:usage\s+limit\s+(?:reached|exceeded)|(?:you['’]ve|you\s+have)\s+(?:hit|reached)\s+your\s+"
    r"(?:\w+\s+){0,3}(?:usage\s+)?limit|\b(?:5|five)-hour\s+limit\s+reached|weekly\s+(?:usage\s+)?limit\s+reached|"
    r"(?:you\s+have\s+)?exhausted\s+your\s+(?:daily\s+)?quota|daily\s+(?:request\s+)?limit\s+reached|"
    r"quota\s+exceeded\s+for\s+quota\s+metric|usage\s+limit\s+reached\s+for)"
)
RATE_LIMIT = re.compile(
    r"(?i)(?:rate[\s_-]limit(?:ed|_error|\s+exceeded|\s+reached)?|too\s+many\s+requests|\b429\b|overloaded(?:_error)?|\b529\b)"
)
PROSE = re.compile(
    r"(?i)\b(?:means?|because|this\s+is|you\s+(?:can|should|need)\s+to|the\s+cause|caused\s+by|happens)\b"
)
# The words the CLIs' notices are made of: a text with more than STRANGE others is prose, not a notice.
_WORDS = """please run login logged log sign again first invalid api key keys token tokens oauth has have had expired
    obtain new or refresh your existing not you credit credits balance is too low usage limit limits reached
    exceeded hit resets reset try at in on after upgrade pro plus max plan weekly daily hour hours minute minutes
    day days second seconds week month the a an to of for this that model models quota metric requests request
    per user tier error errors api rate limited many overloaded service unavailable set auth method specify one
    following environment variables variable before running must when using gemini claude qwen codex free
    allocated exhausted all access will available spend organization number input output wait moment later
    and type message status code authentication failed required found was no with account billing insufficient
    out hard five your"""
VOCABULARY = frozenset(_WORDS.split())
STRANGE = 1
NOT_WORDS = re.compile(r"`[^`]*`|\S*[/\\]\S*|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b\d+\w*")


class Kind(StrEnum):
    LOGIN = "login"
    LIMIT = "usage limit"
    CREDIT = "credit"
    RATE = "rate limit"


FAULTS = {
    Kind.LOGIN: Fault.AUTH,
    Kind.LIMIT: Fault.USAGE_LIMIT,
    Kind.CREDIT: Fault.USAGE_LIMIT,
    Kind.RATE: Fault.RATE_LIMITED,
}


@dataclass(frozen=True)
class Notice:
    kind: Kind
    said: str  # what the CLI printed, on one line
    resets: str = ""  # when the limit resets, as the CLI said it

    @property
    def fault(self) -> Fault:
        return FAULTS[self.kind]

    def words(self, label: str) -> str:
        """The failure in words, for the page and the clients."""
        match self.kind:
            case Kind.LOGIN:
                return f"{label} is not logged in, or its login or key was refused: “{self.said}”"
            case Kind.LIMIT:
                when = f"; it resets {self.resets}" if self.resets else ""
                return f"{label} reached its subscription's usage limit{when}: “{self.said}”"
            case Kind.CREDIT:
                return f"{label}'s account has no credit left: “{self.said}”"
        return f"{label} is rate limited: “{self.said}”"


def notice(text: str) -> Notice | None:
    """The notice ``text`` is, when it is only one; None for anything else (an answer, however it opens)."""
    said = " ".join(text.split())
    if not said or len(said) > MAX_CHARS or text.strip().count("\n") >= MAX_LINES or PROSE.search(said):
        return None
    for kind, pattern in ((Kind.LIMIT, USAGE_LIMIT), (Kind.CREDIT, CREDIT), (Kind.LOGIN, LOGIN)):
        if pattern.search(said) and _bare(RESETS.sub(" ", said)):
            return Notice(kind, said, resets(said) if kind == Kind.LIMIT else "")
    if RATE_LIMIT.search(said) and _bare(said):
        return Notice(Kind.RATE, said)
    return None


def _bare(said: str) -> bool:
    """Made of a notice's words alone (paths, URLs, variable names and numbers aside)."""
    words = re.findall(r"[^\W\d_]{2,}", NOT_WORDS.sub(" ", said))
    return sum(word.casefold() not in VOCABULARY for word in words) <= STRANGE


def resets(said: str) -> str:
    """When a limit resets, as the CLI said it ("3pm (Europe/Rome)", "in 4 days"), or ""."""
    if epoch := EPOCH.search(said):
        return datetime.fromtimestamp(int(epoch["epoch"]), UTC).strftime("at %H:%M UTC on %d %b %Y")
    if found := RESETS.search(said):
        return found["when"].strip(" .,")
    return ""
