"""import_topics and import_qrels take the real files by their published names."""
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from cupboard.competitions.definition import DEFINITIONS_DIR as DEFINITIONS
from cupboard.competitions.models import TopicSet
from cupboard.competitions.services import competition_load
from tests.personas import personas  # noqa: F401

DATA = Path(__file__).resolve().parents[1] / "data" / "competitions" / "miracl-v1.0-dev"


def _run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_it_imports_topics_from_a_folder_skipping_other_languages(personas):
    out, err = _run("import_topics", "--competition", "cup", "--phase", "dev", str(DATA))
    topics = {t.subset.code: t for t in TopicSet.objects.select_related("subset")}
    assert sorted(topics) == ["sw", "te", "yo"]
    assert topics["sw"].query_count == 3 and topics["sw"].original_name == "topics.miracl-v1.0-sw-dev.tsv"
    assert "skipped topics.miracl-v1.0-de-dev.tsv" in err
    assert "[3/3]" in out


def test_it_imports_qrels_as_one_release(personas):
    out, _ = _run("import_qrels", "--competition", "cup", "--phase", "test-b", "--note", "first", str(DATA))
    release = personas.competition.phases.get(slug="test-b").qrels_releases.get()
    assert sorted(release.files.values_list("subset__code", flat=True)) == ["sw", "te", "yo"]
    assert release.note == "first" and "qrels v1" in out


def test_it_accepts_code_equals_path(personas):
    _run("import_topics", "--competition", "cup", "--phase", "dev", f"te={DATA / 'topics.miracl-v1.0-sw-dev.tsv'}")
    assert TopicSet.objects.get().subset.code == "te"


@pytest.mark.parametrize("args, message", [
    (["--competition", "cup", "--phase", "nope", str(DATA)], "no phase 'nope'"),
    (["--competition", "cup", "--phase", "dev", "/no/such/dir"], "no such file"),
    (["--competition", "cup", "--phase", "dev", f"zz={DATA}"], "not a subset"),
])
def test_it_turns_mistakes_into_command_errors(personas, args, message):
    with pytest.raises(CommandError, match=message):
        _run("import_topics", *args)


def test_it_refuses_a_bad_topics_file_and_stores_nothing(personas, tmp_path):
    bad = tmp_path / "topics.cup-sw-dev.tsv"
    bad.write_text("1\tfine\n2 no tab here\n")
    with pytest.raises(CommandError, match=r"topics.cup-sw-dev.tsv:2"):
        _run("import_topics", "--competition", "cup", "--phase", "dev", str(bad))
    assert not TopicSet.objects.exists()


@pytest.mark.django_db
@pytest.mark.shared_data
def test_it_imports_the_whole_miracl_dev_release(shared_data):
    competition_load(data=DEFINITIONS / "miracl-wsdm-cup.yaml")
    folder = shared_data / "miracl-v1.0-dev"
    _run("import_topics", "--competition", "miracl-wsdm-cup", "--phase", "dev", str(folder))
    out, _ = _run("import_qrels", "--competition", "miracl-wsdm-cup", "--phase", "dev", str(folder))
    topics = {t.subset.code: t.query_count for t in TopicSet.objects.select_related("subset")}
    assert len(topics) == 18 and topics["sw"] == 482 and topics["yo"] == 119
    assert "[18/18]" in out
    assert TopicSet.objects.get(subset__code="yo").file.read() == (folder / "topics.miracl-v1.0-yo-dev.tsv").read_bytes()


@pytest.mark.django_db
@pytest.mark.shared_data
def test_it_imports_mrtydi_gzipped_topics(shared_data):
    competition_load(data=DEFINITIONS / "mrtydi.yaml")
    folder = shared_data / "mrtydi-v1.1-test"
    _run("import_topics", "--competition", "mrtydi", "--phase", "test", str(folder / "topics.mrtydi-v1.1-sw.test.txt.gz"))
    _run("import_qrels", "--competition", "mrtydi", "--phase", "test", str(folder / "qrels.mrtydi-v1.1-sw.test.txt"))
    topic_set = TopicSet.objects.get()
    assert topic_set.subset.code == "sw" and topic_set.query_count == 670
    assert topic_set.original_name.endswith(".gz")
