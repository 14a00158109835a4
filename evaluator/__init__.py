"""cupboard's evaluator: what a valid TREC run is, and what it scores.

A pure library (no Django): the platform's workers and participants' own machines
(`python -m evaluator ...`) run the same code, so a run that validates locally
validates on upload and scores the same.
"""
from .records import InputError, Problem, Qrels, Run, SubsetResult, ValidationReport

__all__ = ["InputError", "Problem", "Qrels", "Run", "SubsetResult", "ValidationReport"]
