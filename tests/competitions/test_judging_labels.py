"""The labels of judging in the browser, from the competition YAML (`judging_labels`): graded
labels with their descriptions, binary 0/1 without the key, and what the file may not say."""
from __future__ import annotations

import pytest
import yaml

from cupboard.competitions.assessors import DEFAULT_LABELS, is_graded, judging_labels
from cupboard.competitions.definition import EXAMPLES_DIR, definition_load, definition_values
from cupboard.competitions.digest import competition_digest, definition_digest
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.services import competition_load, competition_load_changes

pytestmark = pytest.mark.django_db

GRADED = [{"value": 3, "name": "Perfect", "description": "Answers it fully."},
          {"value": 0, "name": "Irrelevant"}, {"value": 1, "name": "Related"}, {"value": 2, "name": "Partly"}]


def example(**changes) -> dict:
    data = yaml.safe_load((EXAMPLES_DIR / "ciral-like.yaml").read_text())
    return {**data, **changes}


def test_graded_labels_load_in_order_with_their_descriptions():
    competition = competition_load(data=example(judging_labels=GRADED))
    labels = judging_labels(competition)
    assert [(label["value"], label["name"]) for label in labels] == [(0, "Irrelevant"), (1, "Related"), (2, "Partly"),
                                                                    (3, "Perfect")]
    assert labels[3]["description"] == "Answers it fully." and labels[0]["description"] == ""
    assert is_graded(competition)


def test_without_the_key_labels_are_binary_and_the_digest_unchanged():
    competition = competition_load(data=example())
    assert judging_labels(competition) == list(DEFAULT_LABELS) and not is_graded(competition)
    assert competition_digest(competition) == definition_digest(definition_values(definition_load(example())))
    assert competition_load_changes(data=example())[1] == []


@pytest.mark.parametrize(("labels", "problem"), [
    ([{"value": 1, "name": "a"}, {"value": 1, "name": "b"}], "judging_labels[1].value: label 1 is defined twice"),
    ([{"value": 12, "name": "a"}], "judging_labels[0].value: must be 0 to 9"),
    ([{"value": 1}], "judging_labels[0].name"),
])
def test_it_refuses_labels_an_assessor_could_not_give(labels, problem):
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=example(judging_labels=labels))
    assert any(problem in str(p) for p in caught.value.problems), caught.value.problems


def test_the_neuclir_like_example_grades_0_to_3():
    data = yaml.safe_load((EXAMPLES_DIR / "neuclir-like.yaml").read_text(encoding="utf-8"))
    competition = competition_load(data=data)
    assert [label["value"] for label in judging_labels(competition)] == [0, 1, 2, 3] and is_graded(competition)


def test_a_new_version_changes_only_what_it_changes_in_the_labels():
    from cupboard.competitions.services import competition_load_changes

    competition_load(data=example(judging_labels=GRADED))
    assert competition_load_changes(data=example(judging_labels=GRADED, version=2))[1] == []
    renamed = [dict(label, name="Perfectly relevant") if label["value"] == 3 else label for label in GRADED]
    changes = competition_load_changes(data=example(judging_labels=renamed, version=3))[1]
    assert [c.path for c in changes] == ["judging_labels"]
