"""Loading a whole competition from its versioned YAML file."""
import copy

import pytest
import yaml
from django.core.management import CommandError, call_command

from cupboard.audit.models import AuditEvent
from cupboard.competitions.definition import DEFINITIONS_DIR as DEFINITIONS
from cupboard.competitions.errors import DefinitionError
from cupboard.competitions.models import Competition
from cupboard.competitions.services import competition_load
from tests.factories import make_user

MIRACL = DEFINITIONS / "miracl-wsdm-cup.yaml"


def _miracl() -> dict:
    return yaml.safe_load(MIRACL.read_text())


@pytest.mark.django_db
def test_it_loads_the_wsdm_cup_with_hidden_surprise_languages():
    cup = competition_load(data=MIRACL)
    assert (cup.slug, cup.benchmark, cup.primary_metric, cup.metrics) == ("miracl-wsdm-cup", "miracl", "nDCG@10",
                                                                         ["nDCG@10", "R@100"])
    assert cup.subsets.count() == 18
    assert sorted(cup.subsets.filter(group__name="surprise").values_list("code", flat=True)) == ["de", "yo"]
    assert cup.groups.get(name="surprise").reveal_at.isoformat() == "2023-01-09T00:00:00+00:00"
    test_b = cup.phases.get(slug="test-b")
    assert (test_b.hidden_qrels, test_b.is_final, test_b.daily_limit, test_b.visibility) == (True, True, 2, "private")
    assert list(cup.phases.values_list("slug", flat=True)) == ["dev", "test-a", "test-b"]


@pytest.mark.django_db
@pytest.mark.parametrize("path", sorted(DEFINITIONS.glob("*.yaml")), ids=lambda p: p.stem)
def test_it_loads_every_benchmark_definition(path):
    competition = competition_load(data=path)
    assert competition.subsets.exists() and competition.phases.exists()
    assert not competition.groups.filter(subsets=None).exists()


@pytest.mark.django_db
def test_it_changes_nothing_when_loaded_twice():
    first = competition_load(data=MIRACL)
    events = AuditEvent.objects.count()
    again = competition_load(data=MIRACL)
    assert again.pk == first.pk and AuditEvent.objects.count() == events


@pytest.mark.django_db
def test_it_updates_on_a_higher_version_and_refuses_an_unbumped_change():
    competition_load(data=MIRACL)
    changed = _miracl()
    changed["phases"][2]["daily_limit"] = 3
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=changed)
    assert caught.value.code == "version-not-bumped"
    changed["version"] += 1
    cup = competition_load(data=changed)
    assert cup.config_version == changed["version"] and cup.phases.get(slug="test-b").daily_limit == 3
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=_miracl())
    assert caught.value.code == "stale-definition"


@pytest.mark.django_db
def test_it_names_the_key_path_of_every_problem():
    bad = _miracl()
    bad["phases"][1]["closes_at"] = "2022-11-01T00:00:00Z"
    bad["phases"][2]["opens_at"] = "2023-01-09 00:00:00"
    bad["groups"][1]["label"] = None
    bad["metrics"] = ["nDCG@10", "nDCG@ten"]
    bad["surprise"] = True
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=bad)
    problems = "\n".join(caught.value.problems)
    for path in ("phases[1].closes_at: must be after opens_at", "phases[2].opens_at: must carry a UTC offset",
                 "groups[1].label: is required", "metrics[1]:", "surprise: unknown key"):
        assert path in problems, path
    assert not Competition.objects.exists()


@pytest.mark.django_db
def test_it_sets_organizers_by_username():
    data = _miracl()
    data["organizers"] = ["alice", "bob"]
    with pytest.raises(DefinitionError, match=r"organizers\[1\]: no user named 'bob'"):
        competition_load(data=data)
    alice, bob = make_user("alice"), make_user("bob")
    cup = competition_load(data=data, actor=alice)
    assert set(cup.organizers.all()) == {alice, bob}
    assert AuditEvent.objects.get(action=AuditEvent.Action.COMPETITION_LOADED).actor == alice


@pytest.mark.django_db
def test_it_refuses_to_drop_a_phase_that_holds_data():
    from tests.factories import make_topics

    cup = competition_load(data=MIRACL)
    make_topics(cup.phases.get(slug="test-a"), "sw", ["1"])
    data = copy.deepcopy(_miracl())
    data["version"] += 1
    del data["phases"][1]
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=data)
    assert caught.value.code == "removal-refused"
    assert cup.phases.filter(slug="test-a").exists()


@pytest.mark.django_db
def test_the_command_reports_mistakes_as_command_errors(tmp_path):
    broken = tmp_path / "broken.yaml"
    broken.write_text("schema: 1\nslug: [oops\n")
    with pytest.raises(CommandError):
        call_command("load_competition", str(broken))
    with pytest.raises(CommandError, match="no such file"):
        call_command("load_competition", str(tmp_path / "missing.yaml"))
    call_command("load_competition", str(MIRACL))
    assert Competition.objects.filter(slug="miracl-wsdm-cup").exists()


@pytest.mark.django_db
def test_it_reads_how_leaderboards_are_tested_and_names_bad_choices():
    assert competition_load(data=MIRACL).significance == {"test": "randomization", "correction": "holm", "alpha": 0.05}
    chosen = _miracl() | {"slug": "tested", "significance": {"test": "t-test", "correction": "bonferroni", "alpha": 0.01}}
    assert competition_load(data=chosen).significance == {"test": "t-test", "correction": "bonferroni", "alpha": 0.01}
    bad = _miracl() | {"slug": "bad", "significance": {"test": "wilcoxon", "correction": "fdr", "alpha": 1.5, "trials": 5}}
    with pytest.raises(DefinitionError) as caught:
        competition_load(data=bad)
    problems = "\n".join(caught.value.problems)
    for path in ("significance.test: must be one of randomization, t-test", "significance.correction: must be one of",
                 "significance.alpha: must be between 0 and 1", "significance.trials: unknown key"):
        assert path in problems, path
    assert not Competition.objects.filter(slug="bad").exists()
