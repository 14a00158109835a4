"""`python -m evaluator validate`: check run files the way an upload is checked.

Exit status 0 when every run is valid, 1 when any is rejected; with `--format json` it
prints {"errors": [{"file", "line", "column", "code", "message"}], "warnings": [...],
"runs": [{"file", "subset", "documents", "queries"}]} (scripts rely on the first two keys).
Several runs of one language may be checked at once.
"""
from __future__ import annotations

import argparse
from typing import Any

from ..io.naming import expand_inputs
from .common import Inputs, add_common, add_documents, add_strict, print_json, read_document_list
from .phase import add_phase_options, phase_inputs


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """Register `validate` on the CLI's subparsers."""
    parser = subparsers.add_parser(
        "validate", help="check TREC run files (format, topics, docids, depth) without scoring them",
        description="Each PATH is a file, a directory of files, or LANG=PATH; the language is "
                    "taken from the file name when not given (run.miracl.bm25.sw.dev.txt -> sw).")
    parser.add_argument("--run", nargs="+", required=True, metavar="PATH", help="run files to check")
    parser.add_argument("--topics", nargs="*", default=[], metavar="PATH",
                        help="topic files; with them, every qid must be a query of its language")
    parser.add_argument("--max-depth", type=int, help="most documents allowed per query (default: the phase's "
                        "max_run_depth with --server, else 1000)")
    add_common(parser, formats=("text", "json"))
    add_strict(parser)
    add_documents(parser)
    add_phase_options(parser)
    parser.set_defaults(func=validate_command)
    return parser


def check_runs(inputs: Inputs, *, topics: list[str], runs: list[str], max_depth: int,
               progress: bool | None) -> list[dict[str, Any]]:
    """Read the topics, then validate each run file on its own (unlike scoring, several runs of one
    language are fine here); problems land in `inputs`. Returns what each valid run holds."""
    codes = inputs.benchmark.codes
    inputs.read_topics([f"{code}={path}" if code else path for code, path in expand_inputs(topics, codes, kind="topics")])
    valid = []
    for code, path in expand_inputs(runs, codes, kind="run"):
        spec = f"{code}={path}" if code else path
        read = inputs.read_runs([spec], keep_depth=max_depth, max_depth=max_depth, progress=progress)
        valid += [{"file": path, "subset": c, "documents": len(run), "queries": len(set(run.qids))}
                  for c, run in read.items()]
    return valid


def validate_command(args: argparse.Namespace) -> int:
    """Validate each run against its language's topics; print the problems; 0 if all valid, else 1."""
    read = phase_inputs(args, "validate")
    if read is None:
        return 2
    phase, inputs = read
    max_depth = args.max_depth or (phase.max_run_depth if phase else 1000)
    valid = [] if not read_document_list(args, inputs) else check_runs(inputs, topics=args.topics, runs=args.run, max_depth=max_depth, progress=args.progress)
    if args.format == "json":
        print_json({**inputs.problems_as_dict(), "runs": valid})
    else:
        for problem in inputs.errors + inputs.warnings:
            print(problem)
        for run in valid:
            print(f"valid: {run['file']} ({run['subset']}, {run['documents']:,} documents, {run['queries']:,} queries)")
        if inputs.errors:
            print(f"rejected: {len(inputs.errors)} error(s)")
    return 1 if inputs.errors else 0
