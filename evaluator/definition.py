"""How a competition definition scores: its subsets and averages, measures, relevance level
and depths, declared once as schema keys (evaluator/schema.py), with the benchmark's defaults
filled in; and those keys read from a local file.

The competition definition is the YAML file organizers load into cupboard
(`manage.py load_competition`; every key in docs/definition.md). `ScoringDef` declares and
checks the keys that decide what a run scores; the platform's `Definition`
(cupboard/competitions/definition.py) extends it with the rest of the file. So the loader and
the command line (`python -m evaluator score --definition my-task.yaml`) read those keys with
one reader: the same values, and the same problem at the same key path and line, from the same
file. Nothing here knows the platform.
"""
from __future__ import annotations

import dataclasses
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from . import schema
from .aggregate import MISSING_RULES
from .benchmarks import ALL, BENCHMARKS, Benchmark, GroupSpec, Kind, SubsetSpec
from .measures import parse_metric, scoring_depth
from .records import InputError, Problem
from .schema import Fail, key
from .yaml_lines import key_lines, line_of

AVG_LABEL = "Avg"  # the heading of the one average over every subset


# --- the rules, shared with the platform's loader ------------------------------------------------
def definition_metrics(benchmark: Benchmark | None, metrics: Sequence[str] | None) -> list[str]:
    """The measures as listed, else the benchmark's."""
    if metrics is not None:
        return list(metrics)
    return list(benchmark.metrics) if benchmark is not None else []


def definition_primary_metric(benchmark: Benchmark | None, metrics: Sequence[str], primary: str | None) -> str | None:
    """As given; else the benchmark's, when `metrics` holds it; else the first of them:
    `benchmark: generic` with `metrics: [nDCG@20, R@100]` ranks by nDCG@20, not by its AP."""
    if primary:
        return primary
    own = benchmark.primary_metric if benchmark is not None else None
    return own if own in metrics or not metrics else metrics[0]


def definition_relevance_level(benchmark: Benchmark | None, level: int | None) -> int:
    """As given; else the benchmark's; else 1."""
    if level is not None:
        return level
    return benchmark.relevance_level if benchmark is not None else 1


@dataclass(frozen=True, slots=True)
class ListedSubset:
    """A subset as a definition lists it: every key but the code may be left to defaults."""

    code: str
    name: str | None = None
    group: str | None = None
    kind: str | None = None


def definition_subsets(benchmark: Benchmark | None, listed: Sequence[ListedSubset] | None, *,
                       grouped: bool) -> list[SubsetSpec]:
    """The subsets (leaderboard columns): as listed, a benchmark's code taking its name,
    group and kind; without a group, a subset is in the one average (`all`), unless the
    definition lists `groups` (`grouped`), where it is in none (group "": the loader refuses
    that). Not listed: the benchmark's."""
    if listed is None:
        return list(benchmark.subsets) if benchmark is not None else []
    known = {s.code: s for s in benchmark.subsets} if benchmark is not None else {}
    found = []
    for subset in listed:
        spec = known.get(subset.code)
        group = subset.group or ("" if grouped else spec.group if spec else ALL)
        kind: Any = subset.kind or (spec.kind if spec else "language")
        found.append(SubsetSpec(subset.code, subset.name or (spec.name if spec else subset.code), kind, group))
    return found


def definition_groups(benchmark: Benchmark | None, listed: Sequence[GroupSpec] | None,
                      subsets: Sequence[SubsetSpec]) -> list[GroupSpec]:
    """The average columns a subset belongs to: as listed, else the benchmark's that one of
    its subsets belongs to (its implicit `all` average spans every subset and needs no row),
    and `all` (Avg) when the listed subsets without a group belong to it."""
    if listed is not None or benchmark is None:
        return list(listed or ())
    used = {s.group for s in benchmark.subsets}
    groups = [g for g in benchmark.groups if g.name in used]
    if ALL not in used and any(s.group == ALL for s in subsets):
        groups.append(GroupSpec(ALL, AVG_LABEL))
    return groups


# --- the scoring keys, declared once ------------------------------------------------------------
@dataclass(frozen=True, kw_only=True)
class GroupDef:
    """An average column over the subsets that belong to it (MIRACL: known -> K.Avg, surprise -> S.Avg).
    A group with a `reveal_at` hides its subsets' columns, topics and scores until then. With one
    group (or none: subsets listed without one), the board has a single average, Avg."""

    name: str = key(help="its name, as subsets' `group` names it")
    label: str = key(help="the heading of its average column, e.g. K.Avg")
    reveal_at: datetime | None = key(None, help="hidden until this instant", shown_default="visible from the start")


@dataclass(frozen=True, kw_only=True)
class SubsetDef:
    """One leaderboard column: a language (sw), a language pair (en-zh) or a test set (cmedqa).
    Its code is how published file names and uploads name it."""

    code: str = key(help="as it appears in file names, e.g. sw or en-zh; for a benchmark other than "
                         "`generic`, one of the benchmark's codes")
    name: str | None = key(None, help="shown in column tips and pages, e.g. Swahili",
                           shown_default="the benchmark's name for the code, else the code")
    group: str | None = key(None, help="the `name` of the group it is averaged in; required when `groups` are "
                                       "listed", shown_default="the benchmark's group for the code, else the one "
                                                               "average (Avg): a single-average board")
    kind: str | None = key(None, help="what the column is", choices=lambda: typing.get_args(Kind),
                           shown_default="the benchmark's, else `language`")


@dataclass(frozen=True, kw_only=True)
class ScoringDef:
    """The keys of a competition definition that decide what a run scores, and their rules.
    The platform's Definition extends it (placing these keys among its own: KEY_ORDER)."""

    benchmark: str = key(choices=lambda: tuple(sorted(BENCHMARKS)),
                         help="a key of evaluator.benchmarks: its subsets, metrics, docid shape and file names; "
                              "`generic` for any TREC collection")
    metrics: list[str] | None = key(None, help="measures shown, e.g. [nDCG@10, R@100]",
                                    shown_default="the benchmark's")
    primary_metric: str | None = key(None, help="ranks teams by its overall average; one of `metrics`",
                                     shown_default="the benchmark's where `metrics` holds it, else the first of `metrics`")
    relevance_level: int | None = key(None, minimum=0, help="labels at or above it are relevant (binary measures)",
                                      shown_default="the benchmark's, else 1")
    missing_subset: str = key(MISSING_RULES[0], choices=MISSING_RULES,
                              help="zero: a subset without a run counts 0 in averages; incomplete: the average "
                                   "is left empty")
    max_run_depth: int = key(1000, minimum=1, help="documents per query a run may hold")
    scoring_depth: int | None = key(None, minimum=1, help="documents per query scored, as trec_eval -M; at most "
                                                          "`max_run_depth` and at least the deepest cutoff",
                                    shown_default="the deepest cutoff of `metrics`, or `max_run_depth` when a "
                                                  "measure has none (AP, RR, nDCG): trec_eval -c on whole runs")
    groups: list[GroupDef] | None = key(None, help="average columns, below", shown_default="the benchmark's")
    subsets: list[SubsetDef] | None = key(None, help="leaderboard columns, below", shown_default="the benchmark's")

    def check(self, fail: Fail) -> None:
        self._check_metrics(fail)
        self._check_depth(fail)
        self._check_columns(fail)

    def _check_metrics(self, fail: Fail) -> None:
        metrics, primary = self.resolved_metrics(), self.resolved_primary_metric()
        if self.metrics is not None and (not self.metrics or not all(self.metrics)):
            fail("metrics", "must be a non-empty list of metric names like nDCG@10")
        elif len(set(metrics)) != len(metrics):
            fail("metrics", "lists a metric twice")
        elif bad := _unknown_metrics(metrics):
            for index, message in bad:
                fail(f"metrics[{index}]", message)
        elif primary not in metrics and metrics:
            fail("primary_metric", f"{primary!r} is not one of metrics")

    def _check_depth(self, fail: Fail) -> None:
        """A measure deeper than the runs may go is refused when the file is read, never when
        the first run is scored."""
        metrics = self.resolved_metrics()
        if self.max_run_depth is None or not all(metrics) or _unknown_metrics(metrics):
            return  # reported by _check_metrics
        if self.scoring_depth is not None and self.scoring_depth > self.max_run_depth:
            fail("scoring_depth", f"{self.scoring_depth} is deeper than max_run_depth {self.max_run_depth}, "
                                  "the most documents a run may hold per query")
            return
        parsed = [parse_metric(name) for name in metrics]
        depth = scoring_depth(parsed, max_depth=self.max_run_depth, depth=self.scoring_depth)
        limit = "scoring_depth" if self.scoring_depth is not None else "max_run_depth"
        for index, (name, metric) in enumerate(zip(metrics, parsed, strict=True)):
            if metric.cutoff is not None and metric.cutoff > depth:
                what = "documents per query scored" if limit == "scoring_depth" else "documents per query a run may hold"
                fail(f"metrics[{index}]", f"{name} looks deeper than {limit} {depth} ({what}): raise {limit} "
                                          f"to {metric.cutoff} or cut the measure at {depth}")

    def _check_columns(self, fail: Fail) -> None:
        if self.groups is not None and not self.groups:
            fail("groups", "at least one group is required")
        if self.subsets is not None and not self.subsets:
            fail("subsets", "at least one subset is required")
        elif not self.resolved_subsets() and self.benchmark_spec() is not None:
            fail("subsets", f"at least one subset is required (benchmark {self.benchmark!r} declares none)")
        schema.unique(self.groups, "groups", "name", "group {!r} is defined twice", fail)
        schema.unique(self.subsets, "subsets", "code", "subset {!r} is listed twice", fail)
        known = {s.code for s in getattr(self.benchmark_spec(), "subsets", ())}
        names = {g["name"] for g in self.resolved_groups()}
        for index, subset in enumerate(self.subsets or ()):
            if subset is None:
                continue
            if subset.code is not None and known and subset.code not in known:
                fail(f"subsets[{index}].code", f"{subset.code!r} is not a subset of benchmark {self.benchmark!r}")
            if subset.group is not None and subset.group not in names:
                fail(f"subsets[{index}].group", f"no group named {subset.group!r}")
            elif subset.group is None and self.groups:
                fail(f"subsets[{index}].group", "is required when groups are listed (leave out `groups` for "
                                                "one average over every subset)")

    # --- the values, defaults resolved ------------------------------------------------------------
    def benchmark_spec(self) -> Benchmark | None:
        """The Benchmark, or None when the key is missing or unknown (reported by read)."""
        return BENCHMARKS.get(self.benchmark or "")

    def resolved_metrics(self) -> list[str]:
        return definition_metrics(self.benchmark_spec(), self.metrics)

    def resolved_primary_metric(self) -> str | None:
        return definition_primary_metric(self.benchmark_spec(), self.resolved_metrics(), self.primary_metric)

    def resolved_relevance_level(self) -> int:
        return definition_relevance_level(self.benchmark_spec(), self.relevance_level)

    def resolved_groups(self) -> list[dict[str, Any]]:
        listed = [GroupSpec(g.name, g.label) for g in self.groups or () if g] if self.groups is not None else None
        reveal = {g.name: g.reveal_at for g in self.groups or () if g}
        groups = definition_groups(self.benchmark_spec(), listed, self.subset_specs())
        return [{"name": g.name, "label": g.label, "reveal_at": reveal.get(g.name)} for g in groups]

    def resolved_subsets(self) -> list[dict[str, Any]]:
        return [{"code": s.code, "name": s.name, "group": s.group or None, "kind": s.kind}
                for s in self.subset_specs()]

    def subset_specs(self) -> list[SubsetSpec]:
        listed = None if self.subsets is None else [
            ListedSubset(s.code, s.name, s.group, s.kind) for s in self.subsets if s is not None]
        return definition_subsets(self.benchmark_spec(), listed, grouped=bool(self.groups))


def _unknown_metrics(metrics: list[str]) -> list[tuple[int, str]]:
    bad = []
    for index, name in enumerate(metrics):
        try:
            parse_metric(name)
        except ValueError as error:
            bad.append((index, str(error)))
    return bad


# --- the scoring keys of a local file ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class DefinitionScoring:
    """What a definition file says of scoring one of its phases, defaults resolved: the
    benchmark as the competition declares it (its subsets, averages, measures, relevance
    level), the runs' allowed depth and the scored depth (as trec_eval -M)."""

    benchmark: Benchmark
    phase: str | None
    max_run_depth: int
    scoring_depth: int
    missing_subset: str = "zero"  # in an average, a subset without a run counts 0, or leaves it empty


def definition_scoring(path: str | Path, *, phase: str | None = None) -> DefinitionScoring:
    """The scoring keys of the definition file at `path` (for `phase`, which must be one of
    its phases, when given), read and checked by ScoringDef as the platform's loader reads
    them; the loader checks the rest of the file. InputError names the file, line and key of
    every problem."""
    import yaml

    from .yaml_bounded import yaml_bounded_load

    source = Path(path)
    try:
        text = source.read_text(encoding="utf-8")
        data = yaml_bounded_load(text)
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark
        raise InputError([Problem("bad-definition", f"cannot read the definition: {error.problem}", str(path),
                                  mark.line + 1 if mark is not None else None)]) from None
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise InputError([Problem("bad-definition", f"cannot read the definition: {error}", str(path))]) from None
    if not isinstance(data, dict):
        raise InputError([Problem("bad-definition", "the file must hold a mapping of keys", str(path))])
    lines = key_lines(text)
    problems: list[Problem] = []

    def fail(where: str, message: str) -> None:
        problems.append(Problem("bad-definition", f"{where or '(top)'}: {message}", str(path), line_of(where, lines)))

    names = {k.name for k in schema.keys(ScoringDef)}
    declared = schema.read(ScoringDef, {name: value for name, value in data.items() if name in names}, "", fail)
    _check_phase(data.get("phases"), phase, fail)
    if problems or declared is None:
        raise InputError(problems)
    return _scoring(declared, phase)


def _check_phase(phases: Any, phase: str | None, fail: Fail) -> None:
    slugs = [p.get("slug") for p in phases if isinstance(p, dict)] if isinstance(phases, list) else []
    if phase is not None and phase not in slugs:
        fail("phases", f"has no phase {phase!r} (it has {', '.join(map(str, slugs)) or 'none'})")


def _scoring(declared: ScoringDef, phase: str | None) -> DefinitionScoring:
    """The benchmark as the file declares it, and its depths."""
    benchmark = declared.benchmark_spec()
    assert benchmark is not None  # read refused an unknown one
    subsets = declared.subset_specs()
    listed = None if declared.groups is None else [GroupSpec(g.name, g.label) for g in declared.groups]
    every = [g for g in definition_groups(benchmark, listed, subsets) if g.name != ALL]
    label = next((g.label for g in benchmark.groups if g.name == ALL), AVG_LABEL)
    metrics = declared.resolved_metrics()
    full = dataclasses.replace(
        benchmark, subsets=tuple(subsets), groups=(*every, GroupSpec(ALL, label)), metrics=tuple(metrics),
        primary_metric=declared.resolved_primary_metric() or "", relevance_level=declared.resolved_relevance_level())
    scored = scoring_depth([parse_metric(m) for m in metrics], max_depth=declared.max_run_depth,
                           depth=declared.scoring_depth)
    return DefinitionScoring(full, phase, declared.max_run_depth, scored, declared.missing_subset)
