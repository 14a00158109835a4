"""A competition's own pages (overview, rules, data, evaluation, FAQ), written by its organizers
in Markdown in the YAML definition, and rendered safely.

Markdown comes from a file an organizer edits, but it is shown to everyone, so it is treated
as untrusted: markdown-it-py renders it with raw HTML off (a `<script>` stays text) and its
link check (no `javascript:`, `vbscript:`, `file:` or `data:` links), and nh3 then keeps only
the tags and attributes Markdown itself produces, so nothing that slips past the first step
can run or restyle the page.
"""
from __future__ import annotations

from functools import lru_cache

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

# name -> title, in the order the competition page lists them.
PAGES = {"overview": "Overview", "rules": "Rules", "data": "Data", "evaluation": "Evaluation", "faq": "FAQ"}
# Always listed: it says how the leaderboards rank, with or without the organizer's text.
RULES = "rules"

_TAGS = {"a", "blockquote", "br", "code", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "img", "li", "ol", "p",
         "pre", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul", "del"}
_ATTRIBUTES = {"a": {"href", "title"}, "img": {"src", "alt", "title"}, "td": {"style"}, "th": {"style"},
               "ol": {"start"}}


@lru_cache(maxsize=1)
def _parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False}).enable(
        ["table", "strikethrough"])


@lru_cache(maxsize=256)
def render_markdown(text: str) -> SafeString:
    """HTML for a page's Markdown, safe to put in a template as is."""
    html = _parser().render(text or "")
    clean = nh3.clean(html, tags=_TAGS, attributes=_ATTRIBUTES, url_schemes={"http", "https", "mailto"},
                      link_rel="noopener noreferrer nofollow",
                      filter_style_properties={"text-align"})
    return mark_safe(clean)


def page_links(competition) -> list[dict]:
    """The pages a competition has, as {name, title} in display order (Rules always)."""
    return [{"name": name, "title": title} for name, title in PAGES.items()
            if competition.pages.get(name) or name == RULES]
