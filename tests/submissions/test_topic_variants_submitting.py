"""A competition with English and native topics: each variant's file is downloadable on the
competition page, in the topics zip and the API; every submission says which it used (a
required run-metadata field, stored, shown, exported); How to submit puts it in the command.
Hidden topics stay hidden whatever the variant."""
import io
import re
import zipfile
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from cupboard.accounts.services import api_token_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.exports import phase_submissions_csv
from cupboard.submissions.models import Submission
from cupboard.submissions.services import submission_create
from evaluator.client import api as contract
from tests.factories import make_topics, set_topic_variants
from tests.personas import client_for

from .conftest import QIDS, good_sw, upload

NATIVE = {"1": "swali la kwanza", "2": "swali la pili", "3": "swali la tatu"}


@pytest.fixture
def cup(world):
    """The world's topics (sw, te, yo in both phases) become the English ones; sw and yo of
    dev also get native queries (yo is a surprise language, hidden until its reveal)."""
    set_topic_variants(world.competition, {"en": "English queries", "native": "Native-language queries"})
    world.native_sw = make_topics(world.dev, "sw", NATIVE, variant="native")
    world.native_yo = make_topics(world.dev, "yo", NATIVE, variant="native")
    return world


def _download(client, *args) -> tuple[int, bytes]:
    response = client.get(reverse("competitions:topics_variant", args=["cup", "dev", *args]))
    return response.status_code, response.getvalue() if response.status_code == 200 else b""


def test_each_variants_file_is_downloadable_and_the_plain_address_gives_the_default(cup):
    client = client_for(cup.participant)
    status, native = _download(client, "sw", "native")
    assert status == 200 and native.decode().startswith("1\tswali la kwanza")
    status, english = _download(client, "sw", "en")
    assert status == 200 and english.decode().startswith("1\tquery 1")
    plain = client.get(reverse("competitions:topics", args=["cup", "dev", "sw"]))
    assert plain.getvalue() == english
    assert _download(client, "sw", "fr")[0] == 404 and _download(client, "te", "native")[0] == 404


def test_a_hidden_subsets_variants_stay_hidden(cup):
    assert _download(client_for(cup.participant), "yo", "native")[0] == 404
    assert _download(client_for(None), "yo", "en")[0] == 404
    assert _download(client_for(cup.organizer), "yo", "native")[0] == 200


def test_the_competition_page_links_every_variant(cup):
    page = client_for(cup.participant).get(reverse("competitions:detail", args=["cup"])).content.decode()
    assert reverse("competitions:topics_variant", args=["cup", "dev", "sw", "native"]) in page
    assert reverse("competitions:topics_variant", args=["cup", "dev", "sw", "en"]) in page
    assert reverse("competitions:topics_variant", args=["cup", "dev", "te", "en"]) in page
    assert "/topics/yo/" not in page  # the surprise language, in no variant


def test_the_topics_zip_holds_the_default_at_the_top_and_each_other_variant_in_its_folder(cup):
    response = client_for(cup.participant).get(reverse("competitions:topics_archive", args=["cup", "dev"]))
    names = zipfile.ZipFile(io.BytesIO(response.content)).namelist()
    assert sorted(names) == ["native/topics.cup-sw-dev.native.tsv", "topics.cup-sw-dev.tsv", "topics.cup-te-dev.tsv"]


def test_the_sample_submission_has_one_run_per_language(cup):
    response = client_for(cup.participant).get(reverse("competitions:sample_submission", args=["cup", "dev"]))
    assert sorted(zipfile.ZipFile(io.BytesIO(response.content)).namelist()) == ["run.sample.sw.dev.txt",
                                                                                 "run.sample.te.dev.txt"]


def test_the_api_definition_lists_the_variants_and_the_files_the_caller_may_fetch(cup):
    path = contract.path_of(contract.DEFINITION_ROUTE, competition_slug="cup", phase_slug="dev")
    document = Client().get(path).json()
    assert document["topic_variants"] == [{"code": "en", "name": "English queries"},
                                          {"code": "native", "name": "Native-language queries"}]
    files = {(f["subset"], f["variant"]): f for f in document["topics"]}
    assert sorted(files) == [("sw", "en"), ("sw", "native"), ("te", "en")]
    fetched = Client().get(urlsplit(files["sw", "native"]["url"]).path)
    assert fetched.getvalue().startswith("1\tswali".encode())
    organizer = Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=cup.organizer)}")
    assert ("yo", "native") in {(f["subset"], f["variant"]) for f in organizer.get(path).json()["topics"]}


def test_a_submission_must_say_which_variant_it_used(cup):
    with pytest.raises(SubmissionRefused) as caught:
        submission_create(phase=cup.dev, team=cup.team_a, user=cup.participant, method_name="x",
                          files=[(upload("run.sw.txt", good_sw()), None)], metadata={})
    assert "topics: Topics used is required (one of en, native)" in caught.value.message
    with pytest.raises(SubmissionRefused, match="topics: must be one of en, native, not 'fr'"):
        submission_create(phase=cup.dev, team=cup.team_a, user=cup.participant, method_name="x",
                          files=[(upload("run.sw.txt", good_sw()), None)], metadata={"topics": "fr"})
    assert not Submission.objects.exists()


def test_the_variant_is_stored_shown_and_exported(cup):
    client = client_for(cup.participant)
    response = client.post(reverse("submissions:upload", args=["cup", "dev"]),
                           {"files": [upload("run.sw.txt", good_sw())], "method_name": "x", "meta_topics": "native"})
    assert response.status_code == 302, response.content.decode()[:2000]
    submission = Submission.objects.get()
    assert submission.metadata == {"topics": "native"}
    page = client.get(submission.get_absolute_url()).content.decode()
    assert "Topics used" in page and "<dd>Native-language queries</dd>" in page
    header, row = phase_submissions_csv(phase=cup.dev).splitlines()[:2]
    assert dict(zip(header.split(","), row.split(","), strict=True))["meta:topics"] == "native"


def test_the_api_takes_the_variant(cup):
    api = Client(HTTP_AUTHORIZATION=f"{contract.AUTH_SCHEME} {api_token_create(user=cup.participant)}")
    url = reverse("submissions:api_upload", args=["cup", "dev"])
    refused = api.post(url, {"method_name": "x", "files": [upload("run.sw.txt", good_sw())]})
    assert refused.status_code == 400 and "meta_topics: Topics used is required" in refused.content.decode()
    created = api.post(url, {"method_name": "x", "files": [upload("run.sw.txt", good_sw())], "meta_topics": "en"})
    assert created.status_code == 201 and created.json()["metadata"] == {"topics": "en"}


def test_how_to_submit_lists_the_variants_and_puts_the_default_in_the_command(cup):
    page = client_for(cup.participant).get(reverse("competitions:how_to_submit", args=["cup"])).content.decode()
    command = re.findall(r'<pre class="command">(.*?)</pre>', page, re.S)[0]  # dev's
    assert "--meta topics=en" in command
    assert "--topics topics.cup-sw-dev.tsv topics.cup-te-dev.tsv" in command  # one file a language: the default's
    assert "--run run.mine.sw.dev.txt run.mine.te.dev.txt" in command
    assert "Native-language queries (<code>native</code>)" in page
    assert reverse("competitions:topics_variant", args=["cup", "dev", "sw", "native"]) in page
    assert "<code>topics</code>" in page and "<code>native</code> (Native-language queries)" in page


def test_a_competition_with_one_variant_asks_nothing(world):
    page = client_for(world.participant).get(reverse("competitions:how_to_submit", args=["cup"])).content.decode()
    assert "--meta topics" not in page and "Topics used" not in page
    submission = submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name="x",
                                   files=[(upload("run.sw.txt", good_sw()), None)], metadata={})
    assert submission.metadata == {} and len(QIDS) == 3
