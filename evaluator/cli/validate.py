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
        small = None if inputs.documents is not None else read_small_run(inputs, spec, max_depth=max_depth)
        if small is not None:
            valid.append(small)
            continue
        read = inputs.read_runs([spec], keep_depth=max_depth, max_depth=max_depth, progress=progress)
        valid += [{"file": path, "subset": c, "documents": len(run), "queries": len(set(run.qids))}
                  for c, run in read.items()]
    return valid


def read_small_run(inputs: Inputs, spec: str, *, max_depth: int) -> dict[str, Any] | None:
    """What a small plain run holds, read by the pure-Python engine's reader (no numpy or
    pyarrow to start: a small file is checked in about trec_eval's time), its warnings added
    to `inputs`; None, with nothing recorded, when the run needs the full reader (a problem
    to report, an odd line, a subset to tell apart from an error, a large or gzip file)."""
    from ..engines.jobs import Job
    from ..engines.small import is_small, read_plain_run

    probe = Inputs(inputs.benchmark, known=inputs.known, strict=inputs.strict, topics=inputs.topics)
    found = probe.by_subset([spec])
    if probe.errors or len(found) != 1:
        return None
    (code, path), = found.items()
    if (inputs.topics and code not in inputs.topics) or not is_small(Job(code, None, path)):
        return None
    read = read_plain_run(path, topics=inputs.topics.get(code), docid_pattern=inputs.benchmark.docid_pattern,
                          max_depth=max_depth, strict=inputs.strict)
    if read is None:
        return None
    _, report = read
    inputs.warnings += report.warnings
    return {"file": path, "subset": code, "documents": report.lines, "queries": report.queries}


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
