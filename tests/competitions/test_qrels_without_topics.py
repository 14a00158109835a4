"""A qrels file judging queries that have no topic in the phase (a typo in a qid, the topics
of another phase) is stored anyway, since that is the organizers' call, but each file's
strays are named with a count and the first few qids: by the service's `warn`, by
`import_qrels` on stderr and by the organizer's upload page."""
from io import StringIO

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.urls import reverse

from cupboard.competitions.services import qrels_release_create
from tests.factories import make_topics, qrels_text
from tests.personas import personas  # noqa: F401

# What each warning says of the judged queries without a topic (they are not scored).
ANYWAY = "(stored anyway; they count in no score while they have no topic)"

pytestmark = pytest.mark.django_db

JUDGED = {str(q): {f"{q}#0": 1} for q in [1, 2, 11, 12, 13, 14, 15, 16, 17]}  # 11-17 have no topic


@pytest.fixture
def phase(personas):
    phase = personas.competition.phases.get(slug="dev")
    make_topics(phase, "sw", ["1", "2", "3"])
    make_topics(phase, "te", list(JUDGED))
    return phase


def release(phase, files: dict, **kwargs) -> tuple:
    warnings: list[str] = []
    made = qrels_release_create(phase=phase, files=files, actor=None, warn=warnings.append,
                                names={code: f"qrels.cup-{code}-dev.tsv" for code in files}, **kwargs)
    return made, warnings


def test_it_stores_them_and_names_the_file_the_count_and_the_first_five(phase):
    made, warnings = release(phase, {"sw": qrels_text(JUDGED), "te": qrels_text(JUDGED)})
    assert warnings == [f"qrels.cup-sw-dev.tsv: 7 judged queries have no topic in dev sw {ANYWAY}: "
                        "11, 12, 13, 14, 15 and 2 more."]  # te has a topic for every judged query
    assert made.files.get(subset__code="sw").judged_queries == 9


def test_one_stray_query_is_named_alone(phase):
    _, warnings = release(phase, {"sw": qrels_text({"1": {"a#0": 1}, "x1": {"b#0": 0}})})
    assert warnings == [f"qrels.cup-sw-dev.tsv: 1 judged query has no topic in dev sw {ANYWAY}: x1."]


def test_a_subset_without_topics_is_said_so(phase):
    _, warnings = release(phase, {"yo": qrels_text({"1": {"a#0": 1}, "2": {"b#0": 1}})})
    assert warnings == ["qrels.cup-yo-dev.tsv: dev has no yo topics yet, so none of its 2 judged queries has one "
                        "(stored anyway; once its topics are uploaded, only the judged queries among them count)."]


def test_import_qrels_writes_the_warning_to_stderr(phase, tmp_path):
    path = tmp_path / "qrels.cup-sw-dev.tsv"
    path.write_bytes(qrels_text(JUDGED))
    out, err = StringIO(), StringIO()
    call_command("import_qrels", "--competition", "cup", "--phase", "dev", str(path), stdout=out, stderr=err)
    assert f"qrels.cup-sw-dev.tsv: 7 judged queries have no topic in dev sw {ANYWAY}: 11, 12" in err.getvalue()
    assert "now uses qrels v1" in out.getvalue() and phase.qrels_releases.count() == 1


def test_the_upload_page_shows_the_warning_with_its_success(phase, personas):
    response = personas.client_for(personas.organizer).post(
        reverse("competitions:manage_qrels", args=["cup", "dev"]),
        {"files": [SimpleUploadedFile("qrels.cup-sw-dev.tsv", qrels_text(JUDGED))]}, follow=True)
    page = response.content.decode()
    assert response.status_code == 200 and "now uses qrels v1" in page
    assert f"qrels.cup-sw-dev.tsv: 7 judged queries have no topic in dev sw {ANYWAY}: 11, 12, 13, 14, 15 and 2 more." in page


def test_a_refused_upload_shows_no_warning(phase, personas):
    response = personas.client_for(personas.organizer).post(
        reverse("competitions:manage_qrels", args=["cup", "dev"]),
        {"files": [SimpleUploadedFile("qrels.cup-sw-dev.tsv", qrels_text(JUDGED)),
                   SimpleUploadedFile("qrels.cup-te-dev.tsv", b"1\tQ0\n")]})
    assert response.status_code == 400 and "no topic" not in response.content.decode()
    assert not phase.qrels_releases.exists()
