"""How a competition definition scores: its subsets and averages, measures, relevance level
and depths, with the benchmark's defaults filled in; and those keys read from a local file.

The competition definition is the YAML file organizers load into cupboard
(`manage.py load_competition`; every key in docs/definition.md). The platform's loader
checks the whole file; these rules, which decide what a run scores, live here so that the
loader and the command line (`python -m evaluator score --definition my-task.yaml`) derive
the same values from the same file. The platform calls them; nothing here knows it.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .aggregate import MISSING_RULES
from .benchmarks import ALL, BENCHMARKS, Benchmark, GroupSpec, SubsetSpec
from .measures import parse_metric, scoring_depth
from .records import InputError, Problem
from .yaml_lines import key_lines, line_of

AVG_LABEL = "Avg"  # the heading of the one average over every subset
DEFAULT_MAX_RUN_DEPTH = 1000  # the definition's `max_run_depth` when absent


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
    its phases, when given). Reads only those keys (`benchmark`, `metrics`, `primary_metric`,
    `relevance_level`, `max_run_depth`, `scoring_depth`, `missing_subset`, `subsets`, `groups`,
    `phases[].slug`):
    the platform's loader checks the rest. InputError names the file, line and key of every
    problem."""
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
    reader = _Reader(str(path), key_lines(text))
    scoring = reader.scoring(data, phase)
    if scoring is None:
        raise InputError(reader.problems)
    return scoring


class _Reader:
    """Reads the scoring keys, collecting each problem at its key's line."""

    def __init__(self, file: str, lines: dict[str, int]):
        self.file, self.lines = file, lines
        self.problems: list[Problem] = []

    def fail(self, key: str, message: str) -> None:
        self.problems.append(Problem("bad-definition", f"{key or '(top)'}: {message}", self.file,
                                     line_of(key, self.lines)))

    def scoring(self, data: Mapping[str, Any], phase: str | None) -> DefinitionScoring | None:
        key = data.get("benchmark")
        benchmark = BENCHMARKS.get(key) if isinstance(key, str) else None
        if benchmark is None:
            self.fail("benchmark", f"must be one of {', '.join(sorted(BENCHMARKS))}, not {key!r}")
        metrics = definition_metrics(benchmark, self.texts(data, "metrics"))
        for index, name in enumerate(metrics):
            self.check(f"metrics[{index}]", parse_metric, name)
        listed = self.subsets(data)
        groups = self.groups(data)
        subsets = definition_subsets(benchmark, listed, grouped=groups is not None)
        if not subsets:
            self.fail("subsets", "at least one subset is required")
        max_depth = self.number(data, "max_run_depth", DEFAULT_MAX_RUN_DEPTH)
        depth = self.number(data, "scoring_depth", None)
        missing = self.text(data, "missing_subset") or "zero"
        if missing not in MISSING_RULES:
            self.fail("missing_subset", f"must be one of {', '.join(MISSING_RULES)}, not {missing!r}")
        self.phase(data, phase)
        if benchmark is None or self.problems:
            return None
        every = [g for g in definition_groups(benchmark, groups, subsets) if g.name != ALL]
        label = next((g.label for g in benchmark.groups if g.name == ALL), AVG_LABEL)
        declared = dataclasses.replace(
            benchmark, subsets=tuple(subsets), groups=(*every, GroupSpec(ALL, label)), metrics=tuple(metrics),
            primary_metric=definition_primary_metric(benchmark, metrics, self.text(data, "primary_metric")) or "",
            relevance_level=definition_relevance_level(benchmark, self.number(data, "relevance_level", None)))
        assert max_depth is not None  # it has a default
        scored = scoring_depth([parse_metric(m) for m in metrics], max_depth=max_depth, depth=depth)
        return DefinitionScoring(declared, phase, max_depth, scored, missing)

    def subsets(self, data: Mapping[str, Any]) -> list[ListedSubset] | None:
        items = data.get("subsets")
        if items is None:
            return None
        if not isinstance(items, list):
            self.fail("subsets", "must be a list of mappings like {code: sw}")
            return []
        found = []
        for index, item in enumerate(items):
            at = f"subsets[{index}]"
            if not isinstance(item, dict) or not isinstance(item.get("code"), str):
                self.fail(at, "must be a mapping with a `code`, e.g. {code: sw}")
                continue
            found.append(ListedSubset(item["code"], self.text(item, "name", at), self.text(item, "group", at),
                                      self.text(item, "kind", at)))
        return found

    def groups(self, data: Mapping[str, Any]) -> list[GroupSpec] | None:
        items = data.get("groups")
        if items is None:
            return None
        if not isinstance(items, list):
            self.fail("groups", "must be a list of mappings like {name: known, label: K.Avg}")
            return []
        found = []
        for index, item in enumerate(items):
            if not isinstance(item, dict) or not all(isinstance(item.get(k), str) for k in ("name", "label")):
                self.fail(f"groups[{index}]", "must be a mapping with a `name` and a `label`")
                continue
            found.append(GroupSpec(item["name"], item["label"]))
        return found

    def phase(self, data: Mapping[str, Any], phase: str | None) -> None:
        phases = data.get("phases")
        slugs = [p.get("slug") for p in phases if isinstance(p, dict)] if isinstance(phases, list) else []
        if phase is not None and phase not in slugs:
            self.fail("phases", f"has no phase {phase!r} (it has {', '.join(map(str, slugs)) or 'none'})")

    def texts(self, data: Mapping[str, Any], key: str) -> list[str] | None:
        value = data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or not value or not all(isinstance(v, str) and v for v in value):
            self.fail(key, f"must be a non-empty list of names like [nDCG@10, R@100], not {value!r}")
            return []
        return value

    def text(self, data: Mapping[str, Any], key: str, at: str = "") -> str | None:
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            self.fail(f"{at}.{key}" if at else key, f"must be text, not {value!r}")
            return None
        return value

    def number(self, data: Mapping[str, Any], key: str, default: int | None) -> int | None:
        value = data.get(key)
        if value is None:
            return default
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            self.fail(key, f"must be a whole number, not {value!r}")
            return default
        return value

    def check(self, key: str, parse: Callable[[str], object], value: str) -> None:
        try:
            parse(value)
        except ValueError as error:
            self.fail(key, str(error))
