"""One reader for a competition definition: the command line's `--definition FILE`
(evaluator/definition.py) and the platform's editor and loader read the keys that decide
scoring through the same schema (evaluator/schema.py, ScoringDef), so a file wrong in one of
them is refused by both with the same message, at the same key path and line."""
from __future__ import annotations

from pathlib import Path

import pytest

from cupboard.competitions.definition_edits import definition_text_read
from cupboard.competitions.errors import DefinitionError
from evaluator.definition import ScoringDef, definition_scoring
from evaluator.records import InputError
from evaluator.schema import keys
from tests.evaluator.test_cli_definition import DEFINITION as CLI_DEFINITION

DEFINITION = CLI_DEFINITION.format(extra="")  # the command line's own test file: ha and so, one phase, dev

# (what is replaced, by what): each a fault in a key that decides scoring.
FAULTS = {
    "unknown-metric": ("R@1000, AP]", "R@1000, APP]"),
    "metric-twice": ("R@1000, AP]", "R@1000, nDCG@20]"),
    "depth-too-small": ("max_run_depth: 1000", "max_run_depth: 0"),
    "depth-not-a-number": ("max_run_depth: 1000", "max_run_depth: deep"),
    "measure-deeper-than-runs": ("max_run_depth: 1000", "max_run_depth: 100"),
    "scoring-deeper-than-runs": ("max_run_depth: 1000", "max_run_depth: 1000\nscoring_depth: 2000"),
    "missing-rule": ("max_run_depth: 1000", "max_run_depth: 1000\nmissing_subset: sometimes"),
    "unknown-benchmark": ("benchmark: generic", "benchmark: genric"),
    "primary-not-listed": ("max_run_depth: 1000", "max_run_depth: 1000\nprimary_metric: P@10"),
    "subset-typo": ("{code: so, name: Somali}", "{code: so, nme: Somali}"),
    "no-such-group": ("{code: so, name: Somali}", "{code: so, name: Somali, group: east}"),
    "group-not-given": ("subsets:", "groups:\n  - {name: west, label: W.Avg}\nsubsets:"),
    "subset-twice": ("{code: so, name: Somali}", "{code: ha, name: Somali}"),
    "subset-kind": ("{code: so, name: Somali}", "{code: so, name: Somali, kind: dialect}"),
}


def _cli_problems(path: Path) -> list[tuple[int | None, str]]:
    with pytest.raises(InputError) as refused:
        definition_scoring(path)
    return [(p.line, p.message) for p in refused.value.problems]


def _editor_problems(text: str, name: str) -> list[tuple[int | None, str]]:
    with pytest.raises(DefinitionError) as refused:
        definition_text_read(text, name=name)
    found = []
    for problem in refused.value.problems:
        file, line, rest = str(problem).split(":", 2)
        assert file == name
        found.append((int(line), rest.strip()))
    return found


def test_the_sound_file_is_read_by_both(tmp_path):
    definition_text_read(DEFINITION, name="my-task.yaml")
    path = tmp_path / "my-task.yaml"
    path.write_text(DEFINITION)
    assert [s.code for s in definition_scoring(path).benchmark.subsets] == ["ha", "so"]


@pytest.mark.parametrize("fault", FAULTS)
def test_a_fault_is_the_same_problem_at_the_same_key_and_line_on_both_sides(fault, tmp_path):
    old, new = FAULTS[fault]
    assert old in DEFINITION
    text = DEFINITION.replace(old, new, 1)
    path = tmp_path / "my-task.yaml"
    path.write_text(text)
    cli = _cli_problems(path)
    assert cli, fault
    assert cli == _editor_problems(text, path.name)
    for line, message in cli:
        assert line is not None and message.split(":")[0].split(".")[0].split("[")[0] in {k.name for k in keys(ScoringDef)}


def test_the_command_line_leaves_the_platforms_own_keys_to_the_platform(tmp_path):
    """A fault in a key that does not decide scoring is the platform's to refuse."""
    text = DEFINITION.replace("title: My task", "title: My task\nteam_size_max: 0")
    path = tmp_path / "my-task.yaml"
    path.write_text(text)
    assert definition_scoring(path).max_run_depth == 1000
    assert _editor_problems(text, path.name) == [(5, "team_size_max: must be at least 1")]
