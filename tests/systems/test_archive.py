"""A systems phase's results archive: every system's image hash and execution record, the
image file only of a team that consented, and neither its topics nor the runs its systems wrote."""
from __future__ import annotations

import hashlib
import io
import json
import zipfile
from datetime import timedelta

import pytest

from cupboard.competitions.models import Phase
from cupboard.leaderboards.archive import results_archive_build, results_archive_create
from cupboard.leaderboards.services import leaderboard_refresh
from cupboard.leaderboards.snapshots import snapshot_freeze
from cupboard.systems.services import system_upload
from tests.factories import make_qrels_release, make_topics
from tests.submissions.conftest import JUDGMENTS
from tests.systems.conftest import QUERIES, QUERY_MARKER, image_tar, image_upload

pytestmark = pytest.mark.django_db


def test_the_archive_holds_the_systems_records_and_consenting_images_only(blind):
    test_b = blind.competition.phases.get(slug="test-b")
    Phase.objects.filter(pk=test_b.pk).update(kind=Phase.Kind.SYSTEMS)
    test_b.refresh_from_db()
    for code in ("sw", "te"):
        make_topics(test_b, code, QUERIES[code])
    make_qrels_release(test_b, JUDGMENTS)
    kept = system_upload(phase=test_b, team=blind.team_a, user=blind.participant, method_name="kept",
                         image=image_upload(), release_consent=True)
    other = image_tar().replace(b"x:1", b"y:1")
    withheld = system_upload(phase=test_b, team=blind.team_b, user=blind.outsider, method_name="withheld",
                             image=image_upload(other))
    leaderboard_refresh(phase=test_b)
    assert snapshot_freeze(phase=test_b, now=test_b.reveal_at + timedelta(seconds=1)) is not None
    archive = results_archive_create(phase=test_b, actor=blind.organizer)
    assert results_archive_build(archive_id=archive.pk) == "done"
    archive.refresh_from_db()
    with archive.file.open("rb") as stored, zipfile.ZipFile(io.BytesIO(stored.read())) as zipped:
        names = zipped.namelist()
        systems = json.loads(zipped.read("systems/systems.json"))["systems"]
        everything = b"".join(zipped.read(name) for name in names)
        image = next(name for name in names if name.endswith("image.tar"))
        assert hashlib.sha256(zipped.read(image)).hexdigest() == kept.sha256
    assert {s["method"]: s["released"] for s in systems} == {"kept": True, "withheld": False}
    assert {s["image_sha256"] for s in systems} == {kept.sha256, withheld.sha256}
    assert systems[0]["executions"][0]["reason"] == "upload" and "Team_A" in image
    assert not [name for name in names if name.startswith("topics/")] and QUERY_MARKER.encode() not in everything
