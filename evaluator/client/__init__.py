"""A cupboard server's API from Python (`Cupboard`, its tables as pandas DataFrames) and
over HTTP: what `python -m evaluator submit` calls.

    from evaluator.client import Cupboard, CupboardError

Standard library only, and apart from the scoring library's core (`evaluator.engines`,
`evaluator.io`), which never talks to a network; pandas is imported by the calls that
return a DataFrame (`frames.py`), never by the command line. `Cupboard` and `CupboardError`
load on first use: a command that needs only the contract (`api`) loads nothing more.
"""
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cupboard import Cupboard
    from .http import CupboardError

__all__ = ["Cupboard", "CupboardError"]


def __getattr__(name: str) -> Any:
    if name == "Cupboard":
        from .cupboard import Cupboard

        return Cupboard
    if name == "CupboardError":
        from .http import CupboardError

        return CupboardError
    raise AttributeError(f"module 'evaluator.client' has no attribute {name!r}")
