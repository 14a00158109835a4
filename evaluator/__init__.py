"""cupboard's evaluator: what a valid TREC run is, and what it scores.

A pure library (no Django): the platform's workers and participants' own machines
(`python -m evaluator ...`) run the same code, so a run that validates locally
validates on upload and scores the same.

From Python, `evaluate`, `compare` and `fuse` (evaluator/api.py) take paths, dicts or
DataFrames and return pandas DataFrames; they are loaded on first use, so the command
line never imports pandas.
"""
from typing import TYPE_CHECKING, Any

from .records import InputError, Problem, Qrels, Run, SubsetResult, ValidationReport

if TYPE_CHECKING:
    from .api import Results, compare, evaluate, fuse

__all__ = ["InputError", "Problem", "Qrels", "Results", "Run", "SubsetResult", "ValidationReport",
           "compare", "evaluate", "fuse"]
_API = ("Results", "compare", "evaluate", "fuse")


def __getattr__(name: str) -> Any:
    if name in _API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'evaluator' has no attribute {name!r}")
