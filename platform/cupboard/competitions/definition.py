"""The versioned YAML file that defines a whole competition, read and checked.

`definition_parse` turns the file's data into plain, normalised values or raises a
`DefinitionError` listing every problem with its key path (`phases[1].closes_at: ...`),
so an organizer fixes the file in one go. It touches no database: `competition_load`
in services.py applies the result.

Schema 1, top level (keys in [brackets] are optional):

    schema: 1                    format of this file
    version: 3                   this competition's definition version; a higher one updates
    slug, title, benchmark       benchmark = a key of evaluator.benchmarks
    [description] [metrics] [primary_metric] [relevance_level] [missing_subset: zero|incomplete]
    [ranking: best|last|selected] (the final phases' default) [final_selection_max] [decimals] [max_run_depth]
    [starts_at] [published] [organizers: [username, ...]]
    [entry_deadline]             no team created or joined from here on; default: when the final phase opens
    [team_size_max]              members per team, default 10
    [pages: {overview, rules, data, evaluation, faq}]   the competition's own pages, Markdown (each optional)
    [run_metadata: [{name, type: choice|boolean|text|integer|url, [label], [required], [help],
                     [choices] (choice only), [leaderboard]}]]   asked of every submission
                                 (competitions/run_metadata.py: what a changed list does to stored runs)
    [significance: {[test: randomization|t-test], [correction: holm|bonferroni|none], [alpha]}]
                                 how leaderboards mark tied teams (rank bands); default randomization, holm, 0.05
    [groups: [{name, label, [reveal_at]}]]         default: the benchmark's groups
    [subsets: [{code, [name], group, [kind]}]]     default: the benchmark's subsets
    phases: [{slug, name, opens_at, closes_at, [visibility: live|private|hidden], [reveal_at],
              [before_reveal: everything|own|status], [hidden_qrels], [per_query_visible],
              [daily_limit], [total_limit], [is_final], [ranking: best|last|selected]}]

Which run of a team counts is set per phase (`ranking`): by default its best on every
phase but the final one, where the runs the team selects count. A top-level `ranking`
is the default of the final phases only, so `ranking: selected` no longer makes a test
upload on a live phase replace the team's standing.

`before_reveal` is what participants see of a phase's runs until `reveal_at` (default own:
each team its own scores; status: only "valid and scored"); see competitions/viewer.py.

Instants must carry a UTC offset (`2023-01-19T23:59:59Z`): a competition's deadline must
not depend on the server's zone.
"""
from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from django.utils.text import slugify

from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition, Phase, Subset
from cupboard.competitions.run_metadata import fields_parse

SCHEMA_VERSION = 1
# One file per benchmark competition, e.g. DEFINITIONS_DIR / "miracl-wsdm-cup.yaml" (for `make demo`).
DEFINITIONS_DIR = Path(__file__).resolve().parent / "definitions"
TOP_KEYS = {"schema", "version", "slug", "title", "description", "benchmark", "metrics", "primary_metric",
            "relevance_level", "missing_subset", "ranking", "final_selection_max", "decimals", "max_run_depth",
            "starts_at", "published", "organizers", "entry_deadline", "team_size_max", "pages", "run_metadata",
            "significance", "groups", "subsets", "phases"}
GROUP_KEYS = {"name", "label", "reveal_at"}
SIGNIFICANCE_KEYS = {"test", "correction", "alpha"}
SUBSET_KEYS = {"code", "name", "group", "kind"}
PHASE_KEYS = {"slug", "name", "opens_at", "closes_at", "visibility", "reveal_at", "before_reveal", "hidden_qrels",
              "per_query_visible", "daily_limit", "total_limit", "is_final", "ranking"}


class _Reader:
    """Collects problems while reading values at key paths, so all are reported at once."""

    def __init__(self):
        self.problems: list[str] = []

    def fail(self, path: str, message: str) -> None:
        self.problems.append(f"{path}: {message}")

    def unknown_keys(self, mapping: dict, allowed: set[str], path: str) -> None:
        for key in sorted(set(mapping) - allowed, key=str):
            self.fail(f"{path}.{key}" if path else str(key), "unknown key")

    def get(self, mapping: dict, key: str, path: str, kind, *, default: Any = ..., choices=None, minimum=None):
        where = f"{path}.{key}" if path else key
        if key not in mapping or mapping[key] is None:
            if default is ...:
                self.fail(where, "is required")
            return None if default is ... else default
        value = mapping[key]
        if kind is datetime:
            return self._instant(value, where)
        if kind is int and (isinstance(value, bool) or not isinstance(value, int)):
            self.fail(where, f"must be a whole number, not {value!r}")
            return None
        if kind is not int and not isinstance(value, kind):
            self.fail(where, f"must be {_KIND_NAMES.get(kind, kind.__name__)}, not {value!r}")
            return None
        if choices is not None and value not in choices:
            self.fail(where, f"must be one of {', '.join(choices)}, not {value!r}")
            return None
        if minimum is not None and value < minimum:
            self.fail(where, f"must be at least {minimum}")
            return None
        return value

    def _instant(self, value, where: str) -> datetime | None:
        if isinstance(value, str):
            try:
                value = datetime.fromisoformat(value.replace("Z", "+00:00"))
            except ValueError:
                self.fail(where, f"is not an ISO 8601 instant: {value!r}")
                return None
        if not isinstance(value, datetime):
            self.fail(where, f"must be an instant like 2023-01-19T23:59:59Z, not {value!r}")
            return None
        if value.tzinfo is None or value.utcoffset() is None:
            self.fail(where, "must carry a UTC offset, e.g. 2023-01-19T23:59:59Z")
            return None
        return value

    def items(self, mapping: dict, key: str, allowed: set[str]) -> list[tuple[str, dict]]:
        value = mapping.get(key)
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(key, "must be a list")
            return []
        found = []
        for index, item in enumerate(value):
            path = f"{key}[{index}]"
            if not isinstance(item, dict):
                self.fail(path, "must be a mapping")
                continue
            self.unknown_keys(item, allowed, path)
            found.append((path, item))
        return found


_KIND_NAMES = {float: "a number", str: "text", bool: "true or false", list: "a list", dict: "a mapping"}


def definition_parse(data: Any) -> dict:
    """Check a loaded YAML document and return it normalised: {"competition": {model fields},
    "organizers": [...], "groups": [...], "subsets": [...], "phases": [...]}.

    Groups and subsets default to the benchmark's own, so a benchmark's YAML file can stay short."""
    if not isinstance(data, dict):
        raise DefinitionError(["(top): the file must hold a mapping of keys"])
    r = _Reader()
    r.unknown_keys(data, TOP_KEYS, "")
    schema = r.get(data, "schema", "", int)
    if schema is not None and schema != SCHEMA_VERSION:
        r.fail("schema", f"this cupboard reads schema {SCHEMA_VERSION}, not {schema}")
    benchmark_key = r.get(data, "benchmark", "", str)
    benchmark = _benchmark(benchmark_key, r) if benchmark_key else None
    competition = {
        "slug": r.get(data, "slug", "", str),
        "title": r.get(data, "title", "", str),
        "description": r.get(data, "description", "", str, default=""),
        "benchmark": benchmark_key,
        "config_version": r.get(data, "version", "", int, minimum=1),
        "metrics": r.get(data, "metrics", "", list, default=list(getattr(benchmark, "metrics", []) or [])),
        "primary_metric": r.get(data, "primary_metric", "", str, default=getattr(benchmark, "primary_metric", None)),
        "relevance_level": r.get(data, "relevance_level", "", int, minimum=0,
                                 default=getattr(benchmark, "relevance_level", 1)),
        "missing_subset": r.get(data, "missing_subset", "", str, default=Competition.MissingSubset.ZERO,
                                choices=Competition.MissingSubset.values),
        "final_selection_max": r.get(data, "final_selection_max", "", int, default=2, minimum=1),
        "decimals": r.get(data, "decimals", "", int, default=3, minimum=0),
        "max_run_depth": r.get(data, "max_run_depth", "", int, default=1000, minimum=1),
        "starts_at": r.get(data, "starts_at", "", datetime, default=None),
        "is_published": r.get(data, "published", "", bool, default=True),
        "entry_deadline": r.get(data, "entry_deadline", "", datetime, default=None),
        "team_size_max": r.get(data, "team_size_max", "", int, default=10, minimum=1),
        "pages": _pages(data, r),
        "run_metadata": fields_parse(data.get("run_metadata"), r.fail),
        "significance": _significance(data, r),
    }
    if competition["slug"] and slugify(competition["slug"]) != competition["slug"]:
        r.fail("slug", f"must be lowercase letters, digits and hyphens, not {competition['slug']!r}")
    _check_metrics(competition, r)
    organizers = r.get(data, "organizers", "", list, default=[])
    for index, name in enumerate(organizers or []):
        if not isinstance(name, str):
            r.fail(f"organizers[{index}]", f"must be a username, not {name!r}")
    groups = _groups(data, benchmark, r)
    subsets = _subsets(data, benchmark, {g["name"] for g in groups}, r)
    final_ranking = r.get(data, "ranking", "", str, default=Phase.Ranking.SELECTED, choices=Phase.Ranking.values)
    phases = _phases(data, r, final_ranking=final_ranking or Phase.Ranking.SELECTED)
    if r.problems:
        raise DefinitionError(r.problems)
    return {"competition": competition, "organizers": organizers, "groups": groups, "subsets": subsets,
            "phases": phases}


def _pages(data: dict, r: _Reader) -> dict[str, str]:
    """{page name: Markdown}, in the order the competition page lists them; blank pages dropped."""
    from cupboard.competitions.pages import PAGES

    pages = r.get(data, "pages", "", dict, default={}) or {}
    r.unknown_keys(pages, set(PAGES), "pages")
    found = {}
    for name in PAGES:
        text = r.get(pages, name, "pages", str, default="")
        if text and text.strip():
            found[name] = text
    return found


def _significance(data: dict, r: _Reader) -> dict:
    """{"test", "correction", "alpha"}: the leaderboards' rank bands (evaluator/rank_bands.py)."""
    from evaluator.rank_bands import TESTS
    from evaluator.significance import CORRECTIONS

    given = r.get(data, "significance", "", dict, default={}) or {}
    r.unknown_keys(given, SIGNIFICANCE_KEYS, "significance")
    alpha = r.get(given, "alpha", "significance", float, default=0.05)
    if isinstance(alpha, float) and not 0 < alpha < 1:
        r.fail("significance.alpha", f"must be between 0 and 1, not {alpha!r}")
    return {"test": r.get(given, "test", "significance", str, default="randomization", choices=TESTS),
            "correction": r.get(given, "correction", "significance", str, default="holm", choices=CORRECTIONS),
            "alpha": alpha}


def _benchmark(key: str, r: _Reader):
    from evaluator.benchmarks import get_benchmark

    try:
        return get_benchmark(key)
    except (KeyError, LookupError, ValueError):
        r.fail("benchmark", f"unknown benchmark {key!r}")
        return None


def _check_metrics(competition: dict, r: _Reader) -> None:
    metrics = competition["metrics"]
    if metrics is None:
        return
    if not metrics or not all(isinstance(m, str) and m for m in metrics):
        r.fail("metrics", "must be a non-empty list of metric names like nDCG@10")
    elif len(set(metrics)) != len(metrics):
        r.fail("metrics", "lists a metric twice")
    elif bad := _unknown_metrics(metrics):
        for index, message in bad:
            r.fail(f"metrics[{index}]", message)
    elif competition["primary_metric"] is None:
        competition["primary_metric"] = metrics[0]
    elif competition["primary_metric"] not in metrics:
        r.fail("primary_metric", f"{competition['primary_metric']!r} is not one of metrics")


def _unknown_metrics(metrics: list[str]) -> list[tuple[int, str]]:
    from evaluator.measures import parse_metric

    bad = []
    for index, name in enumerate(metrics):
        try:
            parse_metric(name)
        except ValueError as error:
            bad.append((index, str(error)))
    return bad


def _groups(data: dict, benchmark, r: _Reader) -> list[dict]:
    if "groups" not in data and benchmark is not None:
        # A group only exists here if a subset belongs to it: the benchmark's implicit
        # "all" average spans every subset and needs no row of its own.
        used = {s.group for s in benchmark.subsets}
        return [{"name": g.name, "label": g.label, "reveal_at": None} for g in benchmark.groups if g.name in used]
    groups, seen = [], set()
    for path, item in r.items(data, "groups", GROUP_KEYS):
        group = {"name": r.get(item, "name", path, str), "label": r.get(item, "label", path, str),
                 "reveal_at": r.get(item, "reveal_at", path, datetime, default=None)}
        if group["name"] in seen:
            r.fail(f"{path}.name", f"group {group['name']!r} is defined twice")
        seen.add(group["name"])
        groups.append(group)
    if not groups:
        r.fail("groups", "at least one group is required")
    return groups


def _subsets(data: dict, benchmark, group_names: set[str], r: _Reader) -> list[dict]:
    known = {s.code: s for s in getattr(benchmark, "subsets", ())}
    if "subsets" not in data and benchmark is not None:
        return [{"code": s.code, "name": s.name, "group": s.group, "kind": s.kind} for s in benchmark.subsets]
    subsets, seen = [], set()
    for path, item in r.items(data, "subsets", SUBSET_KEYS):
        code = r.get(item, "code", path, str)
        default = known.get(code)
        subset = {"code": code, "name": r.get(item, "name", path, str, default=getattr(default, "name", code)),
                  "group": r.get(item, "group", path, str),
                  "kind": r.get(item, "kind", path, str, default=getattr(default, "kind", Subset.Kind.LANGUAGE),
                                choices=Subset.Kind.values)}
        if code is not None and known and code not in known:
            r.fail(f"{path}.code", f"{code!r} is not a subset of benchmark {benchmark.key!r}")
        if code in seen:
            r.fail(f"{path}.code", f"subset {code!r} is listed twice")
        if subset["group"] is not None and subset["group"] not in group_names:
            r.fail(f"{path}.group", f"no group named {subset['group']!r}")
        seen.add(code)
        subsets.append(subset)
    if not subsets:
        r.fail("subsets", "at least one subset is required")
    return subsets


def _phases(data: dict, r: _Reader, *, final_ranking: str) -> list[dict]:
    phases, seen = [], set()
    if not data.get("phases"):
        r.fail("phases", "at least one phase is required")
    for position, (path, item) in enumerate(r.items(data, "phases", PHASE_KEYS)):
        phase = {
            "slug": r.get(item, "slug", path, str), "name": r.get(item, "name", path, str), "position": position,
            "opens_at": r.get(item, "opens_at", path, datetime), "closes_at": r.get(item, "closes_at", path, datetime),
            "visibility": r.get(item, "visibility", path, str, default=Phase.Visibility.LIVE,
                                choices=Phase.Visibility.values),
            "reveal_at": r.get(item, "reveal_at", path, datetime, default=None),
            "before_reveal": r.get(item, "before_reveal", path, str, default=Phase.BeforeReveal.OWN,
                                   choices=Phase.BeforeReveal.values),
            "hidden_qrels": r.get(item, "hidden_qrels", path, bool, default=False),
            "per_query_visible": r.get(item, "per_query_visible", path, bool, default=True),
            "daily_limit": r.get(item, "daily_limit", path, int, default=None, minimum=0),
            "total_limit": r.get(item, "total_limit", path, int, default=None, minimum=0),
            "is_final": r.get(item, "is_final", path, bool, default=False),
        }
        default = final_ranking if phase["is_final"] else Phase.Ranking.BEST
        phase["ranking"] = r.get(item, "ranking", path, str, default=default, choices=Phase.Ranking.values)
        if phase["slug"] and slugify(phase["slug"]) != phase["slug"]:
            r.fail(f"{path}.slug", f"must be lowercase letters, digits and hyphens, not {phase['slug']!r}")
        if phase["slug"] in seen:
            r.fail(f"{path}.slug", f"phase {phase['slug']!r} is defined twice")
        seen.add(phase["slug"])
        if phase["opens_at"] and phase["closes_at"] and phase["closes_at"] <= phase["opens_at"]:
            r.fail(f"{path}.closes_at", "must be after opens_at")
        if phase["visibility"] == Phase.Visibility.PRIVATE and phase["reveal_at"] is None:
            r.fail(f"{path}.reveal_at", "a private phase needs the instant its leaderboard becomes public")
        phases.append(phase)
    return phases
