"""A cupboard server's API from Python (`Cupboard`, its tables as pandas DataFrames) and
over HTTP: what `python -m evaluator submit` calls.

    from evaluator.client import Cupboard, CupboardError

Standard library only, and apart from the scoring library's core (`evaluator.engines`,
`evaluator.io`), which never talks to a network; pandas is imported by the calls that
return a DataFrame (`frames.py`), never by the command line.
"""
from .cupboard import Cupboard
from .http import CupboardError

__all__ = ["Cupboard", "CupboardError"]
