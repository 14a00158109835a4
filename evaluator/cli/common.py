"""What every `python -m evaluator` subcommand shares: inputs read by subset, common options, output.

Inputs are files, directories of files, or LANG=PATH; the language of a file is read
from its name as the published files name it (`qrels.miracl-v1.0-sw-dev.tsv`,
`run.miracl.bm25.sw.dev.txt`). Problems are collected as `Problem` records, never
raised at the user, so one bad file lists every problem of every file at once.
"""
from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ..benchmarks import BENCHMARKS, Benchmark, get_benchmark
from ..benchmarks.generic import DEFAULT_SUBSET
from ..io.naming import expand_inputs, split_assignment
from ..io.qrels import read_qrels
from ..io.topics import read_topics
from ..records import InputError, Problem, Qrels, Run
from .progress import Progress

if TYPE_CHECKING:
    import argparse

    from ..io.documents import DocumentList

GENERIC = "generic"
T = TypeVar("T")


@dataclass
class Inputs:
    """Files read for one command, by subset code, and every problem found on the way."""

    benchmark: Benchmark
    known: tuple[str, ...] = ()  # the subset codes files are named with, when a server said (cli/phase.py)
    # a competition's rules (a benchmark, a phase, --strict); else trec_eval's reading, with warnings
    strict: bool = True
    qrels: dict[str, Qrels] = field(default_factory=dict)
    topics: dict[str, dict[str, str]] = field(default_factory=dict)
    errors: list[Problem] = field(default_factory=list)
    warnings: list[Problem] = field(default_factory=list)
    documents: DocumentList | None = None  # --documents: the docids a run may name
    refuse_unknown: bool = True  # --unknown-documents refuse (else warn)

    def by_subset(self, paths: Sequence[str]) -> dict[str, str]:
        """{code: path}; a file whose subset cannot be told, a subset the benchmark does not
        declare (never dropped silently), or a subset given twice, is an error. In the
        generic profile any NAME=PATH is a subset, and one unnamed file is `default`."""
        found: dict[str, str] = {}
        # the generic profile still tells `run.bm25.sw.txt` is sw, by every benchmark's codes
        # (loaded only when a file's name must say it: all=run.txt needs no benchmark module)
        all_named = all(split_assignment(path)[0] for path in paths)
        known = self.known or self.benchmark.codes or ([] if all_named else sorted(
            {c for b in BENCHMARKS.values() for c in b.codes}))
        inputs = expand_inputs(paths, known)
        for code, path in inputs:
            if code is None and self.benchmark.open_subsets and len(inputs) == 1 and not self.known:
                code = DEFAULT_SUBSET
            if code is None:
                named = f" (the phase's subsets: {', '.join(self.known)})" if self.known else ""
                self.errors.append(Problem("unknown-subset", f"cannot tell the subset from the file name{named}; "
                                           "give it as NAME=PATH", path))
            elif self.known and code not in self.known:
                self.errors.append(Problem("unknown-subset", f"the phase has no subset {code!r} "
                                           f"(it has {', '.join(self.known)})", path))
            elif not self.benchmark.open_subsets and code not in self.benchmark.codes:
                self.errors.append(Problem("unknown-subset", f"{self.benchmark.key} has no subset {code!r} "
                                           f"(it has {', '.join(self.benchmark.codes)})", path))
            elif code in found:
                self.errors.append(Problem("duplicate-subset", f"{code!r} is also given by {found[code]}", path))
            else:
                found[code] = path
        return found

    def _read_each(self, paths: Sequence[str], reader: Callable[[str], T], into: dict[str, T]) -> None:
        for code, path in self.by_subset(paths).items():
            try:
                into[code] = reader(path)
            except InputError as exc:
                self.errors += exc.problems

    def read_qrels(self, paths: Sequence[str]) -> None:
        self._read_each(paths, lambda path: read_qrels(path, strict=self.strict), self.qrels)

    def read_topics(self, paths: Sequence[str]) -> None:
        self._read_each(paths, read_topics, self.topics)

    def read_runs(self, paths: Sequence[str], *, keep_depth: int, max_depth: int,
                  progress: bool | None, require_qrels: bool = False) -> dict[str, Run]:
        """Validate and read each run (against its language's topics when topics were given)."""
        runs: dict[str, Run] = {}
        for code, path in self.by_subset(paths).items():
            if require_qrels and code not in self.qrels:
                self.errors.append(Problem("no-qrels", f"no qrels were given for {code!r}", path))
                continue
            if self.topics and code not in self.topics:
                self.errors.append(Problem("no-topics", f"no topics were given for {code!r}", path))
                continue
            from ..io.documents import DocumentCheck
            from ..io.runs import read_run  # numpy and pyarrow: only when a run is read here

            bar = Progress(f"reading {code}", enabled=progress)
            check = None if self.documents is None else DocumentCheck(self.documents, refuse=self.refuse_unknown)
            run, report = read_run(path, topics=self.topics.get(code), docid_pattern=self.benchmark.docid_pattern,
                                   max_depth=max_depth, keep_depth=keep_depth, progress=bar.update,
                                   strict=self.strict, documents=check)
            bar.close()
            self.errors += report.errors
            self.warnings += report.warnings
            if run is not None:
                runs[code] = run
        return runs

    def problems_as_dict(self) -> dict[str, Any]:
        return {"errors": [p.as_dict() for p in self.errors], "warnings": [p.as_dict() for p in self.warnings]}


def add_common(parser: argparse.ArgumentParser, *, formats: Sequence[str] = ("table", "json", "csv")) -> None:
    parser.add_argument("--benchmark", choices=sorted(BENCHMARKS),
                        help="languages, docid pattern, run rules, default metrics and groups (default: the "
                             "benchmark the file names carry, e.g. qrels.miracl-v1.0-sw-dev.tsv, else generic: "
                             "any TREC collection as trec_eval reads it)")
    parser.add_argument("--format", choices=formats, default=formats[0])
    parser.add_argument("--progress", action="store_true", default=None,
                        help="draw a progress bar on stderr (default: only when stderr is a terminal)")


def add_strict(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--strict", action="store_true",
                        help="a competition's rules for runs and qrels even without a benchmark: one run tag of "
                             "1-20 characters from A-Z a-z 0-9 _ . -, integer ranks and labels, decimal scores, "
                             "fields of at most 100 bytes, lines of at most 1,024 (default: as trec_eval reads "
                             "them, with a warning where a competition would refuse)")


def add_documents(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--documents", metavar="PATH",
                        help="the collection's document list: an id file (one docid per line), a TSV or JSON-lines "
                             "corpus, or a .npy of docid hashes; a run naming another docid is refused at its line")
    parser.add_argument("--unknown-documents", choices=("refuse", "warn"), default="refuse",
                        help="with --documents: refuse a run naming an unknown docid (default), or warn once")


def read_document_list(args: argparse.Namespace, inputs: Inputs) -> bool:
    """--documents read into `inputs`; False (its problems recorded) when it cannot be read."""
    if not getattr(args, "documents", None):
        return True
    from ..io.documents import document_list

    try:
        inputs.documents = document_list(args.documents)
    except InputError as exc:
        inputs.errors += exc.problems
        return False
    inputs.refuse_unknown = args.unknown_documents != "warn"
    return True


def inputs_of(args: argparse.Namespace, benchmark: Benchmark) -> Inputs:
    """Inputs read by a competition's rules with a benchmark or --strict; else as trec_eval reads them."""
    return Inputs(benchmark, strict=getattr(args, "strict", False) or not benchmark.open_subsets)


def benchmark_of(args: argparse.Namespace) -> Benchmark:
    """--benchmark when given; else the one benchmark whose name the input files carry
    (`qrels.miracl-v1.0-sw-dev.tsv`, `run.miracl.bm25.sw.dev.txt`), saying so on stderr;
    else the generic profile."""
    if args.benchmark:
        return get_benchmark(args.benchmark)
    given = [getattr(args, key, None) or [] for key in ("qrels", "run", "topics", "run_a", "run_b")]
    flat = [arg for args_of in given for item in args_of for arg in (item if isinstance(item, list) else [item])]
    names = [os.path.basename(path).lower() for _, path in expand_inputs(flat, ())]
    named = {key for key in BENCHMARKS if key != GENERIC for name in names
             if re.search(rf"(?<![a-z0-9]){key}(?![a-z])", name)}
    if len(named) == 1:
        key = named.pop()
        print(f"python -m evaluator: the files are named as {key}'s; using --benchmark {key} "
              f"(--benchmark {GENERIC} reads them as any TREC files)", file=sys.stderr)
        return get_benchmark(key)
    return get_benchmark(GENERIC)


def report_problems(inputs: Inputs, fmt: str) -> None:
    """Errors go where the output goes in JSON (one document), else to stderr as lines."""
    if fmt == "json":
        print_json(inputs.problems_as_dict())
    else:
        for problem in inputs.errors + inputs.warnings:
            print(problem, file=sys.stderr)


def print_json(document: dict[str, Any]) -> None:
    import json

    json.dump(document, sys.stdout, indent=2, ensure_ascii=False)
    sys.stdout.write("\n")
