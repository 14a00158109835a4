"""Run metadata in the competition YAML: checked with the key path of every problem, and a new
version that changes the fields leaves what stored submissions answered alone."""
import pytest
import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR, definition_parse
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.run_metadata import MetadataError, metadata_clean, metadata_fields, metadata_shown
from cupboard.competitions.services import competition_load
from cupboard.submissions.exports import phase_submissions_csv
from cupboard.submissions.models import Submission

CUP = DEFINITIONS_DIR / "miracl-wsdm-cup.yaml"


def _cup(**extra) -> dict:
    return {**yaml.safe_load(CUP.read_text()), **extra}


def test_the_cup_defines_its_fields_with_types_and_choices():
    specs = definition_parse(_cup())["competition"]["run_metadata"]
    assert [(s["name"], s["type"], s["required"]) for s in specs] == [
        ("run_type", "choice", True), ("training", "choice", True), ("external_resources", "boolean", False),
        ("model", "text", False), ("parameters_m", "integer", False)]
    assert specs[1]["choices"][0] == ["zero-shot", "Zero-shot"]


def test_it_names_the_key_path_of_every_problem():
    fields = [
        {"name": "Run Type", "type": "choice", "choices": ["a"]},
        {"name": "kind", "type": "choice"},
        {"name": "flag", "type": "choice", "choices": [True, "no"]},  # YAML's unquoted yes
        {"name": "size", "type": "number"},
        {"name": "model", "type": "text", "choices": ["x"], "required": "yes", "colour": "red"},
        {"name": "dup", "type": "text"}, {"name": "dup", "type": "url"},
        {"name": "same", "type": "choice", "choices": ["a", {"value": "a", "label": "A"}]},
        "just a string",
    ]
    with pytest.raises(DefinitionError) as caught:
        definition_parse(_cup(run_metadata=fields))
    problems = "\n".join(caught.value.problems)
    for expected in ("run_metadata[0].name: must be lowercase", "run_metadata[1].choices: a choice field needs",
                     "run_metadata[2].choices[0]: must be text", "run_metadata[3].type: must be one of choice",
                     "run_metadata[4].choices: only a field of type choice", "run_metadata[4].required: must be true",
                     "run_metadata[4].colour: unknown key (known: name, type, label,", "run_metadata[6].name: field 'dup' is defined twice",
                     "run_metadata[7].choices: lists a value twice", "run_metadata[8]: must be a mapping"):
        assert expected in problems, problems
    with pytest.raises(DefinitionError, match="run_metadata: must be a list"):
        definition_parse(_cup(run_metadata={"run_type": "choice"}))


@pytest.mark.django_db
def test_a_new_version_with_other_fields_keeps_what_submissions_answered():
    cup = competition_load(data=_cup())
    dev = cup.phases.get(slug="dev")
    answered = {"run_type": "manual", "training": "zero-shot", "parameters_m": 178}
    submission = Submission.objects.create(phase=dev, is_baseline=True, number=1, method_name="old",
                                           metadata=answered)
    fields = yaml.safe_load(CUP.read_text())["run_metadata"]
    changed = [f for f in fields if f["name"] != "run_type"]  # run_type no longer asked
    changed[0]["choices"] = changed[0]["choices"][1:]  # zero-shot is no longer a choice
    changed.append({"name": "code", "label": "Code", "type": "url", "required": True})  # newly required
    cup = competition_load(data=_cup(version=_cup()["version"] + 1, run_metadata=changed))

    submission.refresh_from_db()
    assert submission.metadata == answered  # nothing rewritten, nothing invalidated
    shown = {field.name: value for field, value in metadata_shown(metadata_fields(cup), submission.metadata)}
    assert shown == {"training": "zero-shot", "external_resources": "", "model": "", "parameters_m": "178",
                     "code": ""}  # the old choice as stored; the new required field not given
    header, row = phase_submissions_csv(phase=cup.phases.get(slug="dev")).splitlines()[:2]
    assert "meta:training" in header and "meta:code" in header and "meta:run_type" in header  # the old one kept
    assert "manual" in row.split(",")
    with pytest.raises(MetadataError, match="code: Code is required"):  # new uploads must give it
        metadata_clean(metadata_fields(cup), {"training": "other"})


def test_values_are_checked_by_type_with_every_problem_named():
    from cupboard.competitions.definition import run_metadata_specs
    from tests.factories import RUN_METADATA

    class Cup:
        run_metadata = run_metadata_specs(RUN_METADATA)

    fields = metadata_fields(Cup)
    good = metadata_clean(fields, {"run_type": "manual", "zero_shot": "Yes", "model": " mDPR ",
                                   "parameters_m": "178", "code": "https://example.org/x"})
    assert good == {"run_type": "manual", "zero_shot": True, "model": "mDPR", "parameters_m": 178,
                    "code": "https://example.org/x"}
    assert metadata_clean(fields, good) == good  # cleaning twice changes nothing
    with pytest.raises(MetadataError) as caught:
        metadata_clean(fields, {"run_type": "semi", "parameters_m": "1.5", "code": "ftp://x", "modle": "x",
                                "model": "a\nb"})
    problems = dict(caught.value.problems)
    assert problems["run_type"] == "must be one of automatic, manual, not 'semi'"
    assert problems["zero_shot"] == "Zero-shot is required (one of yes, no)"
    assert "whole number" in problems["parameters_m"] and "http(s)" in problems["code"]
    assert "one line" in problems["model"] and problems["modle"].startswith("no such field")
    assert metadata_clean(fields, {}, required=False) == {}  # baselines may leave required fields empty
