"""Text clean-up every reader shares: thinking blocks, decorations around a value, our template's
unfilled slots (and placeholders echoed in free text), and the keys words and headings are compared
by (a phrase's own key, and a small model's loop of one sentence, are the ground floor's:
``debates.lib.sentences``)."""

import re
import unicodedata

THINK_CLOSE = re.compile(r"</think(?:ing)?\s*>", re.IGNORECASE)
THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
SMART_QUOTES = str.maketrans({"“": '"', "”": '"', "„": '"', "‘": "'", "’": "'"})
# A slot of our own template left unfilled ("<your answer in a few words>", "<0–100>", "<…>") inside
# a line; not an HTML tag a voice wrote ("<b>", "<a href=…>"), which is its text, shown escaped.
SLOT = re.compile(
    r"(?<![\w<])<(?:…|\.\.\.|[\d.]+\s*[–-]\s*[\d.]+|(?=\S)[^<>\n=/]{0,200}\s[^<>\n=/]{0,200}(?<=\S))>(?!>)"
)
# A whole value that is our template's placeholder, echoed: "<…>", "[your decision]", "…", or a
# value that still speaks to the reader ("your decision here").
PLACEHOLDER = re.compile(
    r"<[^<>]*>|\[[^\[\]]*(?:your|decision|answer|verdict|choice|insert|here|text|…|\.\.\.)[^\[\]]*\]|\.\.\.|…"
    r"|.*\byour (?:decision|answer|verdict|choice)\b.*",
    re.IGNORECASE | re.DOTALL,
)


# A placeholder of ours echoed in free text, speaking to the reader: "[Your version of the text]",
# "[insert the verdict here]", "<your verdict in one or two sentences…>"; not a Markdown link
# ("[your account](…)").
ECHOED = re.compile(
    r"\[[^\[\]\n]*\b(?:your|insert)\b[^\[\]\n]*\](?!\()|<(?:your\b|…|\.\.\.)[^<>\n]{0,200}>", re.IGNORECASE
)


def without_thinking(text: str) -> str:
    """What follows the last think block (closed, or with only its end kept by the server), and
    nothing of a think block cut off before it closed."""
    closes = [m.end() for m in THINK_CLOSE.finditer(text)]
    if closes:
        text = text[closes[-1] :]
    opened = THINK_OPEN.search(text)
    return text[: opened.start()] if opened else text


def clean_value(text: str) -> str:
    """A value as written, without the markdown, quotes and end punctuation around it."""
    text = " ".join(text.split())
    while True:
        stripped = text.strip(" *_`\"'“”‘’").rstrip(".!;:,").strip()
        if stripped == text:
            return text
        text = stripped


def placeholder(value: str) -> bool:
    """Whether ``value`` is only our template's placeholder, echoed instead of filled in."""
    return bool(PLACEHOLDER.fullmatch(value.strip()))


def fold(text: str) -> str:
    """``text`` without its accents ("concédée" → "concedee"), where that keeps every position."""
    folded = "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    return folded if len(folded) == len(text) else text


def heading_key(text: str) -> str:
    """A heading as compared: lower case, no accents, no numbering or punctuation
    ("## **3. Verdetto:**" → "verdetto")."""
    plain = unicodedata.normalize("NFKD", text.casefold()).encode("ascii", "ignore").decode()
    return " ".join(w for w in re.split(r"[^a-z0-9]+", plain) if w and not w.isdigit())


def words(text: str) -> list[str]:
    return re.findall(r"[^\W_]+", text)


def phrases(listed: str) -> tuple[str, ...]:
    """Comma-separated phrases written as one string: a long list of words and phrases stays readable."""
    return tuple(phrase.strip() for phrase in listed.split(",") if phrase.strip())
