"""Model output is untrusted: markdown is rendered without raw HTML, then sanitised again.

markdown-it-py escapes any HTML a model writes; nh3 is the second wall (an allow-list of
tags and attributes, only http/https/mailto links, rel=noopener noreferrer). Images are
turned into links, so a model cannot make the viewer's browser fetch from a remote host,
and no ``style`` attribute survives (the CSP forbids inline style).
"""

from functools import lru_cache

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt
from markdown_it.common.utils import escapeHtml

TAGS = {
    *("p", "br", "hr", "blockquote", "pre", "code", "em", "strong", "s", "del", "a"),
    *("h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li"),
    *("table", "thead", "tbody", "tr", "th", "td"),
}
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}}
SCHEMES = {"http", "https", "mailto"}


def _image_as_link(renderer, tokens, idx, options, env) -> str:
    token = tokens[idx]
    src = escapeHtml(token.attrGet("src") or "")
    alt = escapeHtml(token.content or "image")
    return f'<a href="{src}">[image: {alt}]</a>'


MARKDOWN = MarkdownIt("commonmark", {"html": False, "breaks": False}).enable(["table", "strikethrough"])
MARKDOWN.add_render_rule("image", _image_as_link)


@lru_cache(maxsize=1024)
def markdown(text: str) -> SafeString:
    """Markdown from a model → HTML that is safe to put in the page as is.

    Remembered: a finished answer is drawn for the live stream, then for every viewer's
    snapshot and page, from the same text."""
    html = MARKDOWN.render(text or "")
    clean = nh3.clean(html, tags=TAGS, attributes=ATTRIBUTES, url_schemes=SCHEMES, link_rel="noopener noreferrer")
    return mark_safe(clean)  # sanitised just above
