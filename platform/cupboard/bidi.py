"""Right-to-left names inside left-to-right sentences, where no markup can isolate them.

An HTML page isolates a participant's string with `<bdi>`. Text that is not HTML - a plotly
chart's labels and hover, an audit summary, a run's name in a mail or an `<option>` - cannot:
there an Arabic team name followed by ": 0.52" or "#3" takes the digits and punctuation into its
right-to-left run, and the browser draws them on the wrong side of the name. Unicode's isolates
(FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE, U+2068/U+2069) do what `<bdi>` does, in plain
text. Only strings holding a right-to-left letter are wrapped: a left-to-right name in these
left-to-right sentences needs nothing, and the invisible marks would only be noise in exports,
comparisons and the many strings that are no names at all (plotly's "bar", a colour).
"""
from __future__ import annotations

import re

FSI, PDI = "\u2068", "\u2069"
# The blocks of the right-to-left scripts (Hebrew to Arabic Extended-A, their presentation forms,
# the historic ones of the SMP): a regular expression, as charts pass thousands of strings.
_RIGHT_TO_LEFT = re.compile("[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefe\U00010800-\U00010fff\U0001e800-\U0001efff]")
_ISOLATED = re.compile("[\u2066-\u2068][^\u2069]*\u2069")  # LRI, RLI or FSI ... PDI


def right_to_left(text: str) -> bool:
    """Whether `text` holds a right-to-left letter (Hebrew, Arabic, Persian, Syriac, Thaana, N'Ko...)."""
    return _RIGHT_TO_LEFT.search(text) is not None


def isolate(text: str) -> str:
    """`text` between FSI and PDI when it holds a right-to-left letter outside the isolates it
    already has: laid out in its own direction without moving what is written around it. A label
    built of isolated names ("1. TEAM: METHOD") is left as it is, its rank and colon in order."""
    return FSI + text + PDI if right_to_left(_ISOLATED.sub("", text)) else text
