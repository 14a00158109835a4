"""Audit details as people read them: `key: value` lines instead of a Python dict, with a
SHA-256 shortened for the eye (the page keeps the full value in its title)."""
from __future__ import annotations

import re

_SHA256 = re.compile(r"[0-9a-f]{64}")


def readable_details(details: dict) -> list[dict]:
    """[{"key", "text", "full"}] in the stored order: `text` is the value in words (lists and
    nested objects joined, SHA-256 cut to 12 hex digits), `full` the value uncut."""
    return [{"key": key.replace("_", " "), "text": _text(value, short=True), "full": _text(value, short=False)}
            for key, value in (details or {}).items()]


def _text(value, *, short: bool) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k}: {_text(v, short=short)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return "; ".join(_text(v, short=short) for v in value) or "none"
    text = str(value)
    return text[:12] + "…" if short and _SHA256.fullmatch(text) else text
