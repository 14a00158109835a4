"""A systems phase to submit into: the personas' cup with its dev phase made blind (kind
systems), topics whose queries carry a marker that must never reach a team, and dev judgments."""
from __future__ import annotations

import io
import json
import tarfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from cupboard.competitions.models import Phase
from tests.factories import make_qrels_release, make_topics
from tests.personas import build_cast
from tests.submissions.conftest import JUDGMENTS

QUERY_MARKER = "zebraBlindQuery"  # in every query of the blind phase: found in a body, it leaked
QUERIES = {code: {qid: f"{QUERY_MARKER} {code} {qid} swordfish" for qid in ("1", "2", "3")}
           for code in ("sw", "te", "yo")}


@pytest.fixture
def blind(db):
    """The cast, `cast.dev` a systems phase with topics for every subset and judgments."""
    cast = build_cast()
    cast.dev = cast.competition.phases.get(slug="dev")
    Phase.objects.filter(pk=cast.dev.pk).update(kind=Phase.Kind.SYSTEMS)
    cast.dev.refresh_from_db()
    for code, queries in QUERIES.items():
        make_topics(cast.dev, code, queries)
    make_qrels_release(cast.dev, JUDGMENTS)
    return cast


def image_tar(*, manifest: bool = True) -> bytes:
    """The smallest tar `system_upload` takes as an image: a `docker save` manifest and no layer
    (the runner's unpacker, not the upload, judges the layers)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        content = json.dumps([{"Config": "config.json", "RepoTags": ["x:1"], "Layers": []}]).encode()
        info = tarfile.TarInfo("manifest.json" if manifest else "notes.txt")
        info.size = len(content)
        tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def image_upload(content: bytes | None = None, name: str = "image.tar") -> SimpleUploadedFile:
    return SimpleUploadedFile(name, image_tar() if content is None else content, content_type="application/x-tar")
