"""docs/definition.md is generated from the schema the loader reads, and kept so."""
from pathlib import Path

import yaml
from django.core.management import call_command

from cupboard.competitions.definition import Definition, definition_read
from cupboard.competitions.definition_reference import definition_reference
from evaluator import schema

PAGE = Path(__file__).resolve().parents[2] / "docs" / "definition.md"


def test_the_checked_in_page_is_the_generated_one():
    assert PAGE.read_text(encoding="utf-8") == definition_reference(), (
        "docs/definition.md is stale: python manage.py definition_reference > docs/definition.md")


def test_the_command_prints_the_page(capsys):
    call_command("definition_reference")
    assert capsys.readouterr().out == definition_reference()


def test_it_lists_every_key_the_loader_reads():
    page = definition_reference()
    for path, cls in schema.sections(Definition):
        assert f"## `{path}`" in page or not path
        for k in schema.keys(cls):
            assert f"| `{k.name}` |" in page, f"{path}.{k.name}"
    assert "| `daily_limit` | whole number, at least 0 | no limit |" in page


def test_the_organizers_guide_example_is_a_valid_definition():
    """docs/organizers.md shows the schema by example; a key renamed in the schema fails here."""
    guide = (PAGE.parent / "organizers.md").read_text(encoding="utf-8")
    example = guide.split("```yaml\n", 1)[1].split("```", 1)[0]
    definition = definition_read(yaml.safe_load(example))
    assert definition.slug == "miracl-wsdm-cup" and definition.phases
