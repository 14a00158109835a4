"""Consent to release a run in the results archive from scripts too (issue 34): the command
line's `submit --release` and the Python client's `release_consent=True` send the API's
`release_consent` field, and the API stores it; without them the run is not released."""
import pytest

from cupboard.submissions.models import Submission
from evaluator.cli import main
from evaluator.client import cupboard as client_module

from .conftest import good_sw, run_bytes

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("flag, consent", [(["--release"], True), ([], False)])
def test_the_command_line_sends_the_consent(relayed, tmp_path, flag, consent):
    run = tmp_path / "run.sw.txt"
    run.write_bytes(run_bytes(good_sw()))
    code = main(["submit", "--server", "http://cup.invalid", "--competition", relayed.competition.slug, "--phase", "dev",
                 "--method", "BM25", "--run", str(run), "--token", "t", *flag])
    assert code == 0
    assert Submission.objects.get().release_consent is consent


def test_the_python_client_sends_it(relayed, tmp_path):
    run = tmp_path / "run.sw.txt"
    run.write_bytes(run_bytes(good_sw()))
    client_module.Cupboard("http://cup.invalid", "t").upload(relayed.competition.slug, "dev", [str(run)],
                                                             method_name="BM25", release_consent=True)
    assert Submission.objects.get().release_consent is True
