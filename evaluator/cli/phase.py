"""A competition phase's definition, asked of its cupboard server (`--server`, `--competition`,
`--phase`) or read from the competition's YAML file (`--definition FILE`, `--phase`): the
subset codes its files are named with, and how it scores.

The CLI's built-in benchmarks know only their own language codes; a competition of its own
(CIRAL's ha, so, sw, yo...) names files with codes the CLI has never heard of, which the
server reads fine. With the phase's definition, `submit --topics`, `validate` and `score`
tell a file's subset exactly as the server does, and `score` scores with the phase's
metrics and depths. The endpoint is public (the token is sent when there is one): it lists
only the subsets the caller may see. A local file gives what the server would derive from it
(evaluator/definition.py holds the rules both use), its averages included, before it is loaded.
"""
from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..benchmarks import ALL, BENCHMARKS, Benchmark, GroupSpec, SubsetSpec, get_benchmark
from ..records import InputError
from .common import Inputs, benchmark_of, inputs_of

if TYPE_CHECKING:
    import argparse


@dataclass(frozen=True, slots=True)
class PhaseDefinition:
    """What the server says of a phase (api.DEFINITION_FIELDS), or a definition file, as the CLI uses it."""

    benchmark: str
    codes: tuple[str, ...]
    metrics: tuple[str, ...]
    max_run_depth: int
    scoring_depth: int
    relevance_level: int | None = None
    declared: Benchmark | None = None  # a file's benchmark as the competition declares it: its averages
    missing_subset: str | None = None  # a file's rule for a subset without a run in an average

    averages: tuple[tuple[str, str, tuple[str, ...]], ...] = ()  # the server's (key, label, subset codes)

    @classmethod
    def from_answer(cls, answer: dict[str, Any]) -> PhaseDefinition:
        averages = tuple((a["key"], a["label"], tuple(a["subsets"])) for a in answer.get("averages") or ())
        return cls(benchmark=answer["benchmark"], codes=tuple(s["code"] for s in answer["subsets"]),
                   metrics=tuple(answer["metrics"]), max_run_depth=answer["max_run_depth"],
                   scoring_depth=answer["scoring_depth"], relevance_level=answer.get("relevance_level"),
                   averages=averages)

    @classmethod
    def from_file(cls, path: str, phase: str | None) -> PhaseDefinition:
        """InputError naming the file, line and key of each problem."""
        from ..definition import definition_scoring  # only with --definition: it reads YAML

        scoring = definition_scoring(path, phase=phase)
        declared = scoring.benchmark
        return cls(benchmark=declared.key, codes=declared.codes, metrics=declared.metrics,
                   max_run_depth=scoring.max_run_depth, scoring_depth=scoring.scoring_depth,
                   relevance_level=declared.relevance_level, declared=declared,
                   missing_subset=scoring.missing_subset)

    def benchmark_spec(self, args: argparse.Namespace, fallback: Callable[[], Benchmark]) -> Benchmark:
        """--benchmark when given, else the phase's (as its file declares it, or when this
        evaluator knows it), else `fallback`; judged relevant from the phase's relevance level."""
        if args.benchmark:
            return get_benchmark(args.benchmark)
        spec = self.declared or (get_benchmark(self.benchmark) if self.benchmark in BENCHMARKS else fallback())
        if self.averages and self.declared is None:
            spec = self._averaged(spec)
        if self.relevance_level is None:
            return spec
        return dataclasses.replace(spec, relevance_level=self.relevance_level)

    def _averaged(self, spec: Benchmark) -> Benchmark:
        """`spec` with the server's subsets and average columns (a competition's own groups)."""
        names = {s.code: s.name for s in spec.subsets}
        group = {code: key for key, _, codes in self.averages if key != ALL for code in codes}
        subsets = tuple(SubsetSpec(code, names.get(code, code), group=group.get(code, ALL)) for code in self.codes)
        return dataclasses.replace(spec, subsets=subsets, groups=tuple(GroupSpec(k, label) for k, label, _ in self.averages))


def add_phase_options(parser: argparse.ArgumentParser) -> None:
    """--server, --competition, --phase (and --token), or --definition (and --phase), for the
    commands that may ask for them."""
    group = parser.add_argument_group("a competition's phase", "with --server, --competition and --phase, the "
                                      "phase's subsets (and, for score, its metrics, averages and depths) come "
                                      "from its server; with --definition, from the competition's YAML file")
    group.add_argument("--server", help="the platform's address, e.g. https://cup.example.org")
    group.add_argument("--competition", metavar="SLUG")
    group.add_argument("--phase", metavar="SLUG")
    group.add_argument("--token", default=None, help="API token (default: $CUPBOARD_TOKEN; optional here)")
    group.add_argument("--definition", metavar="FILE", help="the competition definition (YAML, as loaded with "
                       "manage.py load_competition): score as the platform would, before it is loaded")


def phase_definition(args: argparse.Namespace) -> PhaseDefinition | None:
    """The phase's definition when --server, --competition and --phase are given, or
    --definition (the phase is optional then: the scoring keys are the competition's), else
    None. Raises SystemExit naming the problem when only some are given, CupboardError when
    the server cannot say, InputError when the file cannot be read."""
    if getattr(args, "definition", None):
        if getattr(args, "server", None) or getattr(args, "competition", None):
            raise SystemExit("give --definition or --server and --competition, not both")
        return PhaseDefinition.from_file(args.definition, args.phase)
    given = [getattr(args, name, None) for name in ("server", "competition", "phase")]
    if not any(given):
        return None
    if not all(given):
        raise SystemExit("give --server, --competition and --phase together (or none of them)")
    from ..client import api

    token = getattr(args, "token", None) or os.environ.get(api.TOKEN_ENV, "")
    from ..client.cupboard import Cupboard  # only when a server is asked

    client = Cupboard(args.server, token, timeout=60, patience=0)  # a command asks once: no waiting out a 429
    return PhaseDefinition.from_answer(client.definition(args.competition, args.phase))


def phase_definition_or_none(args: argparse.Namespace) -> PhaseDefinition | None:
    """As `phase_definition`, but a server that cannot say (an older one without the endpoint,
    a network problem) is a warning: the built-in benchmarks' codes are used instead."""
    from ..client.http import CupboardError  # the HTTP client only when a phase is asked for

    try:
        return phase_definition(args)
    except CupboardError as error:
        print(f"warning: the phase's subsets could not be read from the server ({error}); "
              "telling subsets by the built-in benchmarks' codes", file=sys.stderr)
        return None


def inputs_for(args: argparse.Namespace, phase: PhaseDefinition | None) -> Inputs:
    """The command's Inputs: the phase's subset codes and benchmark when the server gave them."""
    if phase is None:
        return inputs_of(args, benchmark_of(args))
    # a phase's runs are checked as its uploads are: by the competition's rules
    return Inputs(phase.benchmark_spec(args, lambda: benchmark_of(args)), known=phase.codes, strict=True)


def phase_inputs(args: argparse.Namespace, command: str) -> tuple[PhaseDefinition | None, Inputs] | None:
    """(the phase's definition or None, the command's Inputs); None when the server was asked
    and could not say, which is printed (the command then exits 2: nothing was read)."""
    if not any(getattr(args, name, None) for name in ("definition", "server", "competition", "phase")):
        return None, inputs_for(args, None)  # no phase asked for: the HTTP client stays unloaded
    from ..client.http import CupboardError

    try:
        phase = phase_definition(args)
    except CupboardError as error:
        print(f"python -m evaluator {command}: {error}", file=sys.stderr)
        return None
    except InputError as error:
        for problem in error.problems:
            print(problem, file=sys.stderr)
        return None
    return phase, inputs_for(args, phase)
