"""The CLI learns a phase's subsets from its server (issue 23 item 1): files named with codes
its built-in benchmarks do not know (CIRAL's ha, so) are validated, scored and submitted as
the server reads them, with --server/--competition/--phase, against a live server."""
import pytest

from cupboard.accounts.services import api_token_create
from cupboard.competitions.definition import EXAMPLES_DIR
from cupboard.competitions.services import competition_load
from cupboard.submissions.models import Submission
from evaluator.cli import main
from tests.factories import make_qrels_release, make_team, make_topics, make_user

pytestmark = pytest.mark.django_db(transaction=True)

JUDGED = {"1": {"10#0": 1, "11#0": 0}, "2": {"20#0": 1}}


@pytest.fixture
def ciral(live_server, tmp_path):
    """The generic example (ha, so, sw, yo; nDCG@20, R@100), its dev phase with ha and so topics
    and ha judgments; a participant's token; the files as a participant has them."""
    competition = competition_load(data=EXAMPLES_DIR / "ciral-like.yaml")
    dev = competition.phases.get(slug="dev")
    for code in ("ha", "so"):
        make_topics(dev, code, ["1", "2"])
    make_qrels_release(dev, {"ha": JUDGED})
    user = make_user()
    make_team(competition, members=[user])
    (tmp_path / "topics.ciral-ha-dev.tsv").write_text("1\tswali\n2\ttambaya\n")
    (tmp_path / "qrels.ciral-ha-dev.txt").write_text("1 Q0 10#0 1\n1 Q0 11#0 0\n2 Q0 20#0 1\n")
    (tmp_path / "run.bm25.ha.txt").write_text("1 Q0 11#0 1 2.0 bm25\n1 Q0 10#0 2 1.0 bm25\n2 Q0 20#0 1 1.0 bm25\n")
    return {"server": live_server.url, "token": api_token_create(user=user), "dir": tmp_path}


def _phase(ciral) -> list[str]:
    return ["--server", ciral["server"], "--competition", "ciral-like", "--phase", "dev"]


def test_without_the_server_the_cli_cannot_tell_ha_or_so(ciral, capsys):
    d = ciral["dir"]
    (d / "qrels.ciral-so-dev.txt").write_text("1 Q0 10#0 1\n")
    assert main(["score", "--qrels", str(d / "qrels.ciral-ha-dev.txt"), str(d / "qrels.ciral-so-dev.txt"),
                 "--run", str(d / "run.bm25.ha.txt")]) == 1
    err = capsys.readouterr().err
    # the built-in benchmarks' codes misread the names: `dev` (DuReader's) for both qrels, the run unplaced
    assert "'dev' is also given by" in err and "no qrels were given for 'default'" in err and "'ha'" not in err


def test_validate_reads_the_phases_codes(ciral, capsys):
    d = ciral["dir"]
    code = main(["validate", *_phase(ciral), "--format", "json", "--run", str(d / "run.bm25.ha.txt"),
                 "--topics", str(d / "topics.ciral-ha-dev.tsv")])
    assert code == 0, capsys.readouterr()
    assert '"subset": "ha"' in capsys.readouterr().out


def test_a_code_the_phase_lacks_is_named_with_the_ones_it_has(ciral, capsys):
    run = ciral["dir"] / "run.bm25.xx.txt"
    run.write_text("1 Q0 10#0 1 1.0 bm25\n")
    assert main(["validate", *_phase(ciral), "--run", str(run)]) == 1
    assert "cannot tell the subset from the file name (the phase's subsets: ha, so)" in capsys.readouterr().out


def test_score_takes_the_phases_codes_and_metrics(ciral, capsys):
    d = ciral["dir"]
    (d / "qrels.ciral-so-dev.txt").write_text("1 Q0 10#0 1\n")
    code = main(["score", *_phase(ciral), "--format", "json", "--run", str(d / "run.bm25.ha.txt"),
                 "--qrels", str(d / "qrels.ciral-ha-dev.txt"), str(d / "qrels.ciral-so-dev.txt")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert '"nDCG@20"' in out and '"R@100": 1.0' in out


def test_submit_checks_and_uploads_with_the_phases_codes(ciral, capsys):
    d = ciral["dir"]
    code = main(["submit", *_phase(ciral), "--token", ciral["token"], "--method", "BM25",
                 "--run", str(d / "run.bm25.ha.txt"), "--topics", str(d / "topics.ciral-ha-dev.tsv")])
    assert code == 0, capsys.readouterr().err
    [submission] = Submission.objects.all()
    assert list(submission.run_files.values_list("subset__code", flat=True)) == ["ha"]


def test_score_averages_as_the_board_of_a_competition_with_its_own_groups(live_server, tmp_path, capsys):
    """Groups the CLI cannot know (west: ha, so; east: sw, yo) come from the server: a column
    each, then Avg, labelled as the board labels them."""
    import yaml

    data = yaml.safe_load((EXAMPLES_DIR / "ciral-like.yaml").read_text())
    data["groups"] = [{"name": "west", "label": "W.Avg"}, {"name": "east", "label": "E.Avg"}]
    for subset in data["subsets"]:
        subset["group"] = "west" if subset["code"] in ("ha", "so") else "east"
    dev = competition_load(data=data).phases.get(slug="dev")
    for code in ("ha", "so", "sw", "yo"):
        make_topics(dev, code, ["1", "2"])
    files = []
    for code, value in (("ha", "10#0"), ("sw", "20#0")):
        (tmp_path / f"qrels.{code}.txt").write_text(f"1 Q0 {value} 1\n")
        (tmp_path / f"run.x.{code}.txt").write_text(f"1 Q0 {value} 1 1.0 x\n")
        files.append(code)
    code = main(["score", "--server", live_server.url, "--competition", "ciral-like", "--phase", "dev",
                 "--qrels", *(str(tmp_path / f"qrels.{c}.txt") for c in files),
                 "--run", *(str(tmp_path / f"run.x.{c}.txt") for c in files)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert out.splitlines()[0].split() == ["metric", "ha", "sw", "W.Avg", "E.Avg", "Avg"]
