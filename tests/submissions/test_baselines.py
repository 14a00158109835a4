"""Baselines: organizer uploads and the hybrid of two baselines."""
import pytest
from django.urls import reverse

from cupboard.submissions.baselines import baseline_hybrid_create
from cupboard.submissions.errors import SubmissionRefused
from cupboard.submissions.runfiles import uploaded_chunks
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.personas import client_for

from .conftest import upload


def baseline(world, name: str, files: dict) -> object:
    return submission_create(phase=world.dev, team=None, user=world.organizer, method_name=name, is_baseline=True,
                             files=[(upload(f"{name}.{code}.txt", rankings), None) for code, rankings in files.items()])


def test_it_fuses_two_baselines_on_their_common_languages(world):
    bm25 = baseline(world, "bm25", {"sw": {"1": ["10#0", "12#0"], "2": ["20#0"]}, "te": {"1": ["10#1"]}})
    dense = baseline(world, "mdpr", {"sw": {"1": ["12#0", "11#0"], "2": ["21#0", "20#0"]}})
    hybrid = baseline_hybrid_create(phase=world.dev, baseline_a=bm25, baseline_b=dense, alpha=0.5,
                                    user=world.organizer)
    assert hybrid.is_baseline and hybrid.number == 3 and "alpha=0.5" in hybrid.method_name
    run_file = hybrid.run_files.get()
    assert run_file.subset.code == "sw"
    lines = b"".join(uploaded_chunks(run_file)).decode().splitlines()
    docs_q1 = [line.split()[2] for line in lines if line.startswith("1 ")]
    # 12#0 is in both runs, so it wins; 10#0 and 11#0 each come from one run only.
    assert docs_q1[0] == "12#0" and set(docs_q1) == {"10#0", "11#0", "12#0"}
    assert submission_score(submission_id=hybrid.pk) == "scored"


def test_it_refuses_non_organizers_and_bad_weights(world):
    bm25 = baseline(world, "bm25", {"sw": {"1": ["10#0"]}})
    dense = baseline(world, "mdpr", {"sw": {"1": ["11#0"]}})
    for kwargs, code in (({"user": world.participant, "alpha": 0.5}, "not_organizer"),
                         ({"user": world.organizer, "alpha": 1.5}, "bad_alpha")):
        with pytest.raises(SubmissionRefused) as caught:
            baseline_hybrid_create(phase=world.dev, baseline_a=bm25, baseline_b=dense, **kwargs)
        assert caught.value.code == code


def test_it_adds_a_hybrid_from_the_organizer_form(world):
    bm25 = baseline(world, "bm25", {"sw": {"1": ["10#0"]}})
    dense = baseline(world, "mdpr", {"sw": {"1": ["11#0"]}})
    url = reverse("submissions:hybrid", args=[world.competition.slug, "dev"])
    data = {"baseline_a": bm25.pk, "baseline_b": dense.pk, "alpha": "0.3"}
    assert client_for(world.participant).post(url, data).status_code == 403
    response = client_for(world.organizer).post(url, data)
    assert response.status_code == 302 and world.dev.submissions.filter(is_baseline=True).count() == 3
    assert b"Add hybrid baseline" in client_for(world.organizer).get(
        reverse("submissions:upload", args=[world.competition.slug, "dev"])).content
