"""Several topics files per subset: the variants a definition declares, their import (by file
name or --variant) and the rule that the variants of a subset hold the same query ids."""
from io import StringIO
from pathlib import Path

import pytest
import yaml
from django.core.management import CommandError, call_command

from cupboard.competitions.definition import EXAMPLES_DIR, definition_read
from cupboard.competitions.errors import CompetitionError, DefinitionError
from cupboard.competitions.models import TopicSet
from cupboard.competitions.services import competition_load
from cupboard.competitions.topic_files import topics_import, topics_import_files
from cupboard.competitions.topic_variants import variants
from tests.factories import make_topics

EXAMPLE = EXAMPLES_DIR / "neuclir-like.yaml"


def _definition(**changes) -> dict:
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    return data | changes


def _write(folder: Path, name: str, qids: dict[str, str]) -> Path:
    path = folder / name
    path.write_text("".join(f"{qid}\t{text}\n" for qid, text in qids.items()), encoding="utf-8")
    return path


def _import(*args) -> str:
    out = StringIO()
    call_command("import_topics", "--competition", "neuclir-like", "--phase", "test", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


EN = {"101": "oil prices in Iran", "102": "Moscow metro expansion"}
NATIVE = {"101": "قیمت نفت در ایران", "102": "расширение московского метро"}


@pytest.mark.django_db
def test_a_definition_declares_the_variants_default_first():
    competition = competition_load(data=_definition())
    assert [(v.code, v.name) for v in variants(competition)] == [("en", "English queries"),
                                                                  ("native", "Native-language queries")]


@pytest.mark.django_db
def test_a_competition_without_variants_has_the_one_default():
    data = _definition()
    del data["topic_variants"]
    competition = competition_load(data=data)
    assert competition.topic_variants == [] and [v.code for v in variants(competition)] == ["default"]


@pytest.mark.parametrize("variant_list, field, message", [
    ([{"code": "en", "name": "A"}, {"code": "en", "name": "B"}], "topic_variants[1].code", "listed twice"),
    ([{"code": "fa", "name": "Persian queries"}], "topic_variants[0].code", "also a subset code"),
    ([{"code": "Native", "name": "N"}], "topic_variants[0].code", "lowercase letters"),
    ([{"code": "en"}], "topic_variants[0].name", "is required"),
])
def test_it_refuses_bad_variants_naming_the_key(variant_list, field, message):
    with pytest.raises(DefinitionError) as caught:
        definition_read(_definition(topic_variants=variant_list))
    assert any(str(p).startswith(field) and message in str(p) for p in caught.value.problems), caught.value.problems


def test_topics_is_the_variant_field_and_reserved():
    data = _definition(run_metadata=[{"name": "topics", "type": "text"}])
    with pytest.raises(DefinitionError, match=r"run_metadata\[0\].name: 'topics' is the field"):
        definition_read(data)


@pytest.mark.django_db
def test_existing_topics_become_the_default_variant_when_variants_are_declared(tmp_path):
    data = _definition()
    del data["topic_variants"]
    competition = competition_load(data=data)
    phase = competition.phases.get()
    topic_set = topics_import(phase=phase, subset="fa", file=_write(tmp_path, "topics.fa.tsv", EN), name="topics.fa.tsv")
    assert topic_set.variant == "default"
    competition_load(data=_definition(version=2))
    topic_set.refresh_from_db()
    assert topic_set.variant == "en"


@pytest.mark.django_db
def test_a_variant_holding_topics_cannot_be_dropped(tmp_path):
    competition = competition_load(data=_definition())
    phase = competition.phases.get()
    topics_import(phase=phase, subset="fa", file=_write(tmp_path, "q.tsv", NATIVE), name="q.tsv", variant="native")
    with pytest.raises(DefinitionError, match="no longer listed but holds topics"):
        competition_load(data=_definition(version=2, topic_variants=[{"code": "en", "name": "English queries"}]))
    assert TopicSet.objects.get().variant == "native"


@pytest.mark.django_db
def test_the_command_reads_each_files_variant_from_its_name(tmp_path):
    competition_load(data=_definition())
    _write(tmp_path, "topics.fa.en.tsv", EN)
    _write(tmp_path, "topics.fa.native.tsv", NATIVE)
    _write(tmp_path, "topics.ru.tsv", EN)  # no variant in the name: the default, en
    out = _import(str(tmp_path))
    stored = {(t.subset.code, t.variant): t.original_name for t in TopicSet.objects.select_related("subset")}
    assert stored == {("fa", "en"): "topics.fa.en.tsv", ("fa", "native"): "topics.fa.native.tsv",
                      ("ru", "en"): "topics.ru.tsv"}
    assert "fa (native): 2 queries from topics.fa.native.tsv" in out


@pytest.mark.django_db
def test_the_command_takes_a_variant_for_code_equals_path(tmp_path):
    competition_load(data=_definition())
    _import("--variant", "native", f"zh={_write(tmp_path, 'queries-zh.tsv', NATIVE)}")
    assert TopicSet.objects.get().variant == "native"
    with pytest.raises(CommandError, match="has the topic variants en, native"):
        _import("--variant", "fr", f"zh={tmp_path / 'queries-zh.tsv'}")
    with pytest.raises(CommandError, match="its name says topic variant 'native', not 'en'"):
        _import("--variant", "en", str(_write(tmp_path, "topics.ru.native.tsv", NATIVE)))


@pytest.mark.django_db
def test_variants_with_other_ids_are_refused_naming_both_files(tmp_path):
    competition_load(data=_definition())
    _write(tmp_path, "topics.fa.en.tsv", EN)
    _write(tmp_path, "topics.fa.native.tsv", {"101": NATIVE["101"], "103": "ein anderer"})
    with pytest.raises(CommandError) as caught:
        _import(str(tmp_path))
    assert ("topics.fa.en.tsv and topics.fa.native.tsv hold different query ids: 1 only in topics.fa.en.tsv (102); "
            "1 only in topics.fa.native.tsv (103)") in str(caught.value)
    assert not TopicSet.objects.exists()


@pytest.mark.django_db
def test_a_new_variant_is_compared_with_the_stored_one(tmp_path):
    competition = competition_load(data=_definition())
    phase = competition.phases.get()
    make_topics(phase, "fa", EN, variant="en")
    with pytest.raises(CompetitionError) as caught:
        topics_import(phase=phase, subset="fa", file=_write(tmp_path, "fa-native.tsv", {"101": "x"}),
                      name="fa-native.tsv", variant="native")
    assert caught.value.code == "variant-ids-differ"
    assert "fa-native.tsv and topics.neuclir-like-fa-test.en.tsv hold different query ids" in str(caught.value)
    assert TopicSet.objects.count() == 1


@pytest.mark.django_db
def test_both_variants_may_change_their_ids_together(tmp_path):
    competition = competition_load(data=_definition())
    phase = competition.phases.get()
    make_topics(phase, "fa", EN, variant="en")
    make_topics(phase, "fa", NATIVE, variant="native")
    new = {"201": "a", "202": "b", "203": "c"}
    files = {("fa", "en"): _write(tmp_path, "en.tsv", new), ("fa", "native"): _write(tmp_path, "native.tsv", new)}
    stored = topics_import_files(phase=phase, files=files, names={key: path.name for key, path in files.items()})
    assert sorted(t.query_count for t in stored) == [3, 3]
    assert TopicSet.objects.filter(query_count=3).count() == 2


@pytest.mark.django_db
def test_loading_the_same_file_again_changes_nothing_and_a_new_name_is_a_change():
    from cupboard.competitions.services import competition_load_changes

    competition_load(data=_definition())
    assert competition_load_changes(data=_definition())[1] == []
    renamed = [{"code": "en", "name": "English queries"}, {"code": "native", "name": "Queries in the documents' language"}]
    changes = competition_load_changes(data=_definition(version=2, topic_variants=renamed))[1]
    assert [c.path for c in changes] == ["topic_variants"] and not changes[0].public
