"""The command line's `--definition FILE` (evaluator/definition.py, no platform) derives what
the platform's loader stores from every shipped and example definition: the subsets, their
averages and their rule for a subset without a run, the measures, the primary one, the relevance
level and both depths."""
from pathlib import Path

import pytest

from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR, definition_load, definition_values
from evaluator.benchmarks import ALL
from evaluator.definition import definition_scoring
from evaluator.measures import parse_metric, scoring_depth

FILES = sorted(DEFINITIONS_DIR.glob("*.yaml")) + sorted(EXAMPLES_DIR.glob("*.yaml"))


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.name)
def test_the_command_line_reads_a_definition_as_the_loader_does(path: Path):
    values = definition_values(definition_load(path))
    competition = values["competition"]
    read = definition_scoring(path, phase=values["phases"][0]["slug"])
    declared = read.benchmark
    assert declared.codes == tuple(s["code"] for s in values["subsets"])
    assert [s.name for s in declared.subsets] == [s["name"] for s in values["subsets"]]
    assert list(declared.metrics) == competition["metrics"]
    assert declared.primary_metric == competition["primary_metric"]
    assert declared.relevance_level == competition["relevance_level"]
    assert read.max_run_depth == competition["max_run_depth"]
    assert read.missing_subset == competition["missing_subset"]
    assert read.scoring_depth == scoring_depth(map(parse_metric, competition["metrics"]),
                                               max_depth=competition["max_run_depth"],
                                               depth=competition.get("scoring_depth"))
    labels = {g.name: g.label for g in declared.groups}
    for group in values["groups"]:
        assert labels[group["name"]] == group["label"]
        members = tuple(s["code"] for s in values["subsets"] if s["group"] == group["name"])
        assert declared.members(group["name"]) == (declared.codes if group["name"] == ALL else members)
    assert ALL in labels  # the overall average, as every board shows it
