"""Scoring reads each qrels file once per process for its content: the second submission on the
same judgments builds no new Evaluator, and a new qrels release (new content) is read afresh."""
from unittest import mock

from cupboard.submissions import scoring_jobs
from cupboard.submissions.scoring import submission_score
from cupboard.submissions.services import submission_create
from tests.factories import make_qrels_release

from .conftest import JUDGMENTS, good_sw, upload


def submit(world, tag: str):
    return submission_create(phase=world.dev, team=world.team_a, user=world.participant, method_name=tag,
                             files=[(upload(f"run.{tag}.sw.txt", good_sw() | {"3": [f"3{sum(map(ord, tag))}#0"]}), None)])


def test_it_reads_a_qrels_file_once_for_many_runs_and_again_for_a_new_release(world):
    with mock.patch("cupboard.submissions.scoring_jobs.read_qrels", wraps=scoring_jobs.read_qrels) as reads:
        assert submission_score(submission_id=submit(world, "first").pk) == "scored"
        first = reads.call_count
        assert submission_score(submission_id=submit(world, "second").pk) == "scored"
        assert reads.call_count == first == 3  # sw, te, yo: once each
        make_qrels_release(world.dev, {**JUDGMENTS, "sw": {"1": {"10#0": 1}}})
        assert submission_score(submission_id=submit(world, "third").pk) == "scored"
        assert reads.call_count == first + 3  # a new release is new content
