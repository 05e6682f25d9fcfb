"""A model's Markdown as an export carries it: every link that would run or embed something when the
file is opened in a viewer (``javascript:``, ``vbscript:``, ``data:``, ``file:``) points nowhere.

The page never renders such a link (``debates.lib.render``), but an exported file is read by viewers
whose rules we do not know. What the model wrote stays readable: only the address is replaced, by
``#unsafe-link``, wherever a viewer would follow one (a Markdown link or image, a reference
definition, an autolink, an HTML ``href``/``src``), however it is spelled (entities, spaces, case).
"""

import html
import re

UNSAFE_SCHEMES = ("javascript:", "vbscript:", "data:", "file:")
NOWHERE = "#unsafe-link"
# A destination, with one level of parentheses inside ("javascript:alert(1)").
DESTINATION = r"<[^<>\n]*>|(?:[^\s()<>]|\((?:[^\s()]|\([^\s()]*\))*\))+"
LINKS = re.compile(
    rf"(?P<inline>\]\(\s*)(?P<to>{DESTINATION})"  # [text](to) and ![alt](to)
    rf"|(?P<reference>^[ ]{{0,3}}\[[^\]\n]+\]:[ \t]*)(?P<defined>{DESTINATION})"  # [name]: to
    r"|(?P<auto><)(?P<linked>[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>]*)(?=>)"  # <scheme:…>
    r"|(?P<attribute>\b(?:href|src|action|formaction|xlink:href)\s*=\s*)(?P<value>\"[^\"]*\"|'[^']*'|[^\s>]+)",
    re.IGNORECASE | re.MULTILINE,
)


def defanged(text: str) -> str:
    """``text`` with every unsafe link's address replaced by ``#unsafe-link`` (the rest as written)."""
    return LINKS.sub(_replaced, text)


def unsafe(address: str) -> bool:
    """Whether a viewer following ``address`` would run or embed something: its scheme, as a browser
    reads it (entities decoded, spaces and control characters dropped, any case)."""
    read = html.unescape(address.strip("<>\"'"))
    squeezed = "".join(c for c in read if c > " " and c != "\x7f").lower()
    return squeezed.startswith(UNSAFE_SCHEMES)


def _replaced(found: re.Match[str]) -> str:
    lead, address = next((found[k], found[v]) for k, v in PAIRS if found[k] is not None)
    if not unsafe(address):
        return found[0]
    quoted = address[0] if address[:1] in ("'", '"') else ""
    return f"{lead}{quoted}{NOWHERE}{quoted}"


PAIRS = (("inline", "to"), ("reference", "defined"), ("auto", "linked"), ("attribute", "value"))
