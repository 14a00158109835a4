"""Topics as published (issue 34): a phase's TREC XML topics are stored and downloaded byte for
byte, runs are checked against their numbers, and an assessor's page shows the fields the
phase chooses (`assessor_fields`; every field but the query by default: the narrative)."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from cupboard.competitions.models import Phase
from cupboard.competitions.topic_files import topics_import
from tests.judging.test_assessment import ready
from tests.personas import client_for

pytestmark = pytest.mark.django_db
XML = b"""<topics task="Synthetic campaign" batch="1">
  <topic number="1">
    <query>mvua inanyesha</query>
    <question>where does it rain today?</question>
    <narrative>a relevant passage says where it rains &amp; when</narrative>
  </topic>
  <topic number="2">
    <query>=formula looking query</query>
    <question>what does the formula compute?</question>
    <narrative>passages naming the formula's result are relevant</narrative>
  </topic>
</topics>
"""


@pytest.fixture
def xml_scene(scene):
    topics_import(phase=scene.dev, subset="sw", file=SimpleUploadedFile("topics.sw.xml", XML), name="topics.sw.xml",
                  actor=scene.organizer)
    return scene


def test_the_xml_topics_download_byte_for_byte(xml_scene):
    url = reverse("competitions:topics", args=[xml_scene.competition.slug, "dev", "sw"])
    response = client_for(xml_scene.participant).get(url)
    assert response.status_code == 200
    assert b"".join(response.streaming_content if response.streaming else [response.content]) == XML


def test_an_assessor_reads_the_narrative_beside_the_query(xml_scene):
    judging_round, ann, _ = ready(xml_scene, overlap=0)
    task = judging_round.assignments.get(assessor=ann)
    url = reverse("judging:judge", args=[xml_scene.competition.slug, task.pk])
    page = client_for(ann).get(url).content.decode()
    item = task.items.get(position=1)
    topic = {"1": ("mvua inanyesha", "where it rains &amp; when"), "2": ("=formula looking query", "formula&#x27;s result")}
    query, narrative = topic[item.qid]
    assert f">{query}</bdi>" in page and "<dt>Narrative</dt>" in page and narrative in page
    assert "<dt>Question</dt>" in page
    Phase.objects.filter(pk=xml_scene.dev.pk).update(assessor_fields=["narrative"])
    page = client_for(ann).get(url).content.decode()
    assert "<dt>Narrative</dt>" in page and "<dt>Question</dt>" not in page
