"""The optional compiled reader (`evaluator/io/_lines.c`, built by setup.py where a C compiler is found).

One place decides whether it is used, so the run reader and the qrels reader never disagree:
`BUILT` is the extension or None (no compiler at install time); `COMPILED` is what the readers
use, None also when `CUPBOARD_PURE_PYTHON=1` asks for the numpy/pyarrow paths (to compare
them, or to rule the extension out). The
tests set `COMPILED` to None to run every case both ways.
"""
from __future__ import annotations

import os
from types import ModuleType

FUNCTIONS = ("parse_run", "parse_qrels", "any_repeated")


def _built() -> ModuleType | None:
    """The extension; None where it was not built, or was built from an older _lines.c
    without every function the readers call (`make install` rebuilds it; until then the
    pure-Python paths answer, and test_compiled_reader fails to say so)."""
    try:
        from . import _lines  # type: ignore[attr-defined]
    except ImportError:
        return None
    reader: ModuleType = _lines
    return reader if all(hasattr(reader, name) for name in FUNCTIONS) else None


BUILT = _built()
COMPILED = BUILT if os.environ.get("CUPBOARD_PURE_PYTHON", "") in ("", "0") else None
