"""The competition YAML's one schema: it round-trips every shipped and demo definition, names
a mistyped key with the closest known one, and locates every problem by file, line and key."""
from datetime import datetime, timezone

import pytest
import yaml

from cupboard.competitions.definition import (
    DEFINITIONS_DIR,
    EXAMPLES_DIR,
    definition_dump,
    definition_load,
    definition_parse,
    definition_read,
)
from cupboard.competitions.errors import DefinitionError
from cupboard.demo.plan import COMPETITIONS

SHIPPED = sorted(DEFINITIONS_DIR.glob("*.yaml")) + sorted(EXAMPLES_DIR.glob("*.yaml"))
NOW = datetime(2026, 11, 25, tzinfo=timezone.utc)


def _documents():
    for path in SHIPPED:
        yield path.name, yaml.safe_load(path.read_text(encoding="utf-8"))
    for index, plan in enumerate(COMPETITIONS):
        yield f"demo-{index}-{plan.definition}", plan.definition_data(now=NOW)


@pytest.mark.parametrize(("name", "data"), list(_documents()), ids=lambda v: v if isinstance(v, str) else "")
def test_it_round_trips_every_shipped_and_demo_definition(name, data):
    definition = definition_read(data)
    written = definition_dump(definition)
    assert written == data  # the keys the file gave, as it gave them
    again = yaml.safe_load(yaml.safe_dump(written, sort_keys=False, allow_unicode=True))
    assert definition_read(again) == definition
    assert definition_parse(again) == definition_parse(data)


def test_it_names_a_mistyped_key_with_the_closest_known_one():
    data = yaml.safe_load((DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text())
    data["phases"][1]["daily_lmit"] = data["phases"][1].pop("daily_limit")
    data["metircs"] = data.pop("metrics")
    data["groups"][0]["colour"] = "red"
    with pytest.raises(DefinitionError) as caught:
        definition_read(data)
    assert list(caught.value.problems) == [
        "metircs: unknown key; did you mean 'metrics'?",
        "groups[0].colour: unknown key (known: name, label, reveal_at)",
        "phases[1].daily_lmit: unknown key; did you mean 'daily_limit'?"]


def test_it_names_the_file_line_and_key_path_of_every_problem(tmp_path):
    text = (DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text()
    lines = text.splitlines()
    test_a = lines.index("  - slug: test-a")
    lines[test_a + 3] = "    closes_at: 2021-01-23T23:59:59Z"  # before it opens
    lines[test_a + 8] = lines[test_a + 8].replace("daily_limit", "daily_limt")
    del lines[lines.index("title: \"WSDM Cup 2023: Multilingual Information Retrieval (MIRACL)\"")]  # lines below move up one
    bad = tmp_path / "cup.yaml"
    bad.write_text("\n".join(lines) + "\n")
    with pytest.raises(DefinitionError) as caught:
        definition_load(bad)
    title_missing, daily, closes = caught.value.problems
    assert title_missing == "cup.yaml: title: is required"  # a missing key has no line
    assert daily == f"cup.yaml:{test_a + 8}: phases[1].daily_limt: unknown key; did you mean 'daily_limit'?"
    assert closes == f"cup.yaml:{test_a + 3}: phases[1].closes_at: must be after opens_at"


def test_it_refuses_a_generic_collection_without_subsets():
    data = yaml.safe_load((EXAMPLES_DIR / "ciral-like.yaml").read_text())
    del data["subsets"]
    with pytest.raises(DefinitionError) as caught:
        definition_read(data)
    assert list(caught.value.problems) == ["subsets: at least one subset is required "
                                           "(benchmark 'generic' declares none)"]


def test_the_primary_metric_defaults_to_the_first_listed_when_the_benchmarks_is_not_listed():
    data = yaml.safe_load((EXAMPLES_DIR / "ciral-like.yaml").read_text())
    del data["primary_metric"]
    assert definition_read({**data, "metrics": ["nDCG@20", "R@100"]}).resolved_primary_metric() == "nDCG@20"
    assert definition_read({**data, "metrics": ["R@100", "AP"]}).resolved_primary_metric() == "AP"  # generic's own
    assert definition_read({**data, "metrics": ["R@100"], "primary_metric": "R@100"}).resolved_primary_metric() == "R@100"


@pytest.mark.django_db
@pytest.mark.parametrize("path", sorted(EXAMPLES_DIR.glob("*.yaml")), ids=lambda p: p.stem)
def test_every_example_of_the_reference_loads(path):
    from cupboard.competitions.services import competition_load

    competition = competition_load(data=path)
    assert competition.subsets.exists() and competition.phases.exists()
