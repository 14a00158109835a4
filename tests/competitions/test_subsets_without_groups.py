"""Subsets listed without groups: each falls in its benchmark's group, or (generic) in the one
average, Avg; once groups are listed, every subset must name its own."""
import pytest
import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR, EXAMPLES_DIR, definition_parse
from cupboard.competitions.errors import DefinitionError

GENERIC = EXAMPLES_DIR / "ciral-like.yaml"  # four subsets, no groups


def _data(path) -> dict:
    return yaml.safe_load(path.read_text())


def test_a_generic_subset_without_a_group_is_in_the_one_average():
    values = definition_parse(_data(GENERIC))
    assert values["groups"] == [{"name": "all", "label": "Avg", "reveal_at": None}]
    assert {s["group"] for s in values["subsets"]} == {"all"}


def test_a_benchmark_subset_without_a_group_is_in_its_benchmarks_group():
    data = _data(DEFINITIONS_DIR / "miracl-wsdm-cup.yaml")
    del data["groups"]
    data["subsets"] = [{"code": "sw"}, {"code": "yo"}]
    values = definition_parse(data)
    assert [(s["code"], s["group"]) for s in values["subsets"]] == [("sw", "known"), ("yo", "surprise")]
    assert "all" not in {g["name"] for g in values["groups"]}


def test_once_groups_are_listed_every_subset_names_its_own():
    data = _data(GENERIC)
    data["groups"] = [{"name": "african", "label": "Af.Avg"}]
    data["subsets"][0]["group"] = "african"
    with pytest.raises(DefinitionError) as caught:
        definition_parse(data)
    assert list(caught.value.problems)[0] == (
        "subsets[1].group: is required when groups are listed (leave out `groups` for one average over every subset)")
    assert len(caught.value.problems) == 3
