"""Why something asked of Teorema was not done, in words: the one refusal every way in shares.

The service (and the few checks below it: an outcome, an evaluation, a provider probe) raises
``Refused``; each way in only translates it into its own shape: the page into form errors, the
JSON API into its error object, the OpenAI-compatible endpoint into OpenAI's, MCP into a tool
error, Telegram into a reply, the CLI into an exit status. None of them words a refusal itself.
"""

from enum import StrEnum


class Kind(StrEnum):
    """What went wrong, which each channel maps to its own code (HTTP status, exit status…)."""

    INVALID = "invalid"  # the input: ``fields`` says which and why
    UNAUTHENTICATED = "unauthenticated"
    FORBIDDEN = "forbidden"  # known, and not this user's to do
    NOT_FOUND = "not_found"  # missing, or not this user's to see (never told apart)
    CONFLICT = "conflict"  # not now: the question's state does not allow it
    TOO_LARGE = "too_large"
    RATE_LIMITED = "rate_limited"  # ``retry_after`` seconds until it may be asked again
    OVER_BUDGET = "over_budget"  # a budget or the question's cap has no room: ``retry_after``, until it renews
    UNAVAILABLE = "unavailable"  # a part Teorema needs does not answer


HTTP_STATUS: dict[Kind, int] = {
    Kind.INVALID: 400,
    Kind.UNAUTHENTICATED: 401,
    Kind.FORBIDDEN: 403,
    Kind.NOT_FOUND: 404,
    Kind.CONFLICT: 409,
    Kind.TOO_LARGE: 413,
    Kind.RATE_LIMITED: 429,
    Kind.OVER_BUDGET: 402,
    Kind.UNAVAILABLE: 503,
}


class Refused(Exception):
    """``message`` for the person; ``kind``; ``fields``, the inputs at fault with what is wrong with
    each; ``retry_after``, seconds to wait before asking again (rate limited, or over a budget until it renews)."""

    def __init__(
        self,
        message: str,
        kind: Kind = Kind.INVALID,
        fields: dict[str, list[str]] | None = None,
        retry_after: int = 0,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.fields = fields or {}
        self.retry_after = retry_after

    @property
    def field(self) -> str:
        """The first input at fault ("" when the refusal is about no one input)."""
        return next(iter(self.fields), "")

    @property
    def status(self) -> int:
        """The HTTP status of this refusal, for the channels that speak HTTP."""
        return HTTP_STATUS[self.kind]

    @property
    def in_words(self) -> str:
        """What is wrong with each input, else why not: a refusal as a person reads it in a chat or a
        terminal, where the message would only repeat the field's words."""
        return " ".join(word for words in self.fields.values() for word in words) or self.message

    def __str__(self) -> str:
        """The message with what is wrong with each field, for a channel that has one line."""
        details = "; ".join(
            f"{name}: {' '.join(words)}" for name, words in self.fields.items() if words != [self.message]
        )
        return f"{self.message} ({details})" if details else self.message


# A JSON value's type as a refusal names it ("must be a string, not a number"): true is no number.
JSON_TYPES: dict[type, str] = {
    str: "a string",
    int: "a number",
    float: "a number",
    bool: "true or false",
    list: "a list",
    dict: "an object",
    type(None): "null",
}


def json_type(value: object, otherwise: str = "a value") -> str:
    """The JSON type of ``value`` in words (``otherwise`` for a value JSON has no type for)."""
    return JSON_TYPES.get(type(value), otherwise)
