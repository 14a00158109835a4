"""The benchmarks cupboard can run, one small module each, and the registry table.

A Benchmark is data: its subsets (leaderboard columns) and groups (average columns),
official metrics, docid shape and how its published files are named. Benchmarks whose
data is not published as TREC files also carry converters to TREC topics + qrels.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

Gain = Literal["label", "exp2"]
Kind = Literal["language", "pair", "test_set"]  # as cupboard.competitions.models.Subset.Kind
ALL = "all"  # the group every subset belongs to implicitly (the Avg column)


@dataclass(frozen=True, slots=True)
class SubsetSpec:
    code: str  # as it appears in file names: sw, en-zh, cmedqa
    name: str
    kind: Kind = "language"
    group: str = ALL


@dataclass(frozen=True, slots=True)
class GroupSpec:
    name: str
    label: str  # column heading of its average, e.g. K.Avg


@dataclass(frozen=True, slots=True)
class Benchmark:
    key: str
    title: str
    docid_pattern: str | None  # a regex every docid must match in full; None = any docid
    metrics: tuple[str, ...]
    primary_metric: str
    subsets: tuple[SubsetSpec, ...]
    groups: tuple[GroupSpec, ...]
    relevance_level: int = 1
    gain: Gain = "label"
    # Regexes with a `subset` group (and maybe `split`) matching published file names.
    topics_filename: str | None = None
    qrels_filename: str | None = None
    # Named test sets (splits) -> the subsets they cover, e.g. MIRACL test-A: 11 languages.
    splits: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    # Non-TREC source formats: format name -> function(source, **options) -> (topics, qrels).
    converters: Mapping[str, Callable[..., Any]] = field(default_factory=lambda: MappingProxyType({}))
    # True for the generic profile: any subset code, any run tag (trec_eval's reading);
    # a benchmark refuses codes it does not declare and keeps its run rules.
    open_subsets: bool = False

    @property
    def codes(self) -> tuple[str, ...]:
        return tuple(s.code for s in self.subsets)

    def subset(self, code: str) -> SubsetSpec:
        for spec in self.subsets:
            if spec.code == code:
                return spec
        raise KeyError(f"{self.key} has no subset {code!r}")

    def members(self, group: str) -> tuple[str, ...]:
        """Subset codes averaged in a group's column; `all` spans every subset."""
        return self.codes if group == ALL else tuple(s.code for s in self.subsets if s.group == group)


class _Registry(Mapping[str, Benchmark]):
    """The benchmarks by key, each module imported when its benchmark is first asked for:
    `python -m evaluator score --benchmark generic` then never builds CLIRMatrix's 4,000-odd
    language pairs (a tenth of what 1,000 queries take to score). Listing the keys imports
    nothing; a module's key is its name."""

    KEYS = ("miracl", "mrtydi", "dureader", "clirmatrix", "lareqa", "generic")

    def __getitem__(self, key: str) -> Benchmark:
        if key not in self.KEYS:
            raise KeyError(key)
        from importlib import import_module

        benchmark: Benchmark = import_module(f"{__name__}.{key}").BENCHMARK
        return benchmark

    def __iter__(self) -> Iterator[str]:
        return iter(self.KEYS)

    def __len__(self) -> int:
        return len(self.KEYS)

    def __contains__(self, key: object) -> bool:
        return key in self.KEYS


BENCHMARKS: Mapping[str, Benchmark] = _Registry()


def get_benchmark(key: str) -> Benchmark:
    """The registered benchmark; KeyError naming the known keys otherwise."""
    try:
        return BENCHMARKS[key]
    except KeyError:
        raise KeyError(f"unknown benchmark {key!r}; known: {', '.join(sorted(BENCHMARKS))}") from None
