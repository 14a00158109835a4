"""`evaluator.client.Cupboard` against a real server: runserver and a real Celery worker on a
fresh SQLite file (tests/e2e/stack.py), a competition holding the shipped MIRACL samples (sw
and yo dev topics and qrels). Every JSON answer the client reads is checked against the
OpenAPI document that server serves at /api/openapi.json; the scores it brings back equal
`evaluator.evaluate` on the same files, rounded as the site shows them."""
from __future__ import annotations

import json
import urllib.request
from urllib.parse import urlsplit

import pytest

from evaluator.samples import sample_path
from tests.e2e.stack import Stack, free_port, make_participant
from tests.submissions.openapi_check import check_document

pytestmark = [pytest.mark.worker, pytest.mark.slow]

METRICS = ["nDCG@10", "R@100"]
SETUP = """
from cupboard.competitions.services import qrels_release_create
from cupboard.competitions.topic_files import topics_import
from evaluator.samples import sample_path
from tests.factories import make_competition, make_user

organizer = make_user("organizer")
competition = make_competition(slug="cup", title="Samples Cup", known=["sw", "yo"], surprise=[],
                               organizers=[organizer])
dev = competition.phases.get(slug="dev")
for code in ("sw", "yo"):
    topics_import(phase=dev, subset=code, file=sample_path("topics", code), name=sample_path("topics", code).name)
qrels_release_create(phase=dev, actor=organizer, files={code: sample_path("qrels", code) for code in ("sw", "yo")})
"""


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    port = free_port()  # the site's address is in its answers (a topics file's url): the server's own
    with Stack(tmp_path_factory.mktemp("e2e-client"), CUPBOARD_SITE_URL=f"http://127.0.0.1:{port}") as stack:
        stack.migrate()
        stack.manage("shell", "-c", SETUP)
        stack.token = make_participant(stack, username="ada", team="Lovelace")
        stack.start_server(port)
        stack.start_worker()
        yield stack


@pytest.fixture
def checked(stack, monkeypatch):
    """Every (method, path) the client read, each answer checked against the served OpenAPI
    document: a status it omits or a body off its schema fails the test, and a path it does
    not describe is noted as such."""
    from evaluator.client import cupboard

    with urllib.request.urlopen(f"{stack.url}/api/openapi.json") as answer:
        served = json.load(answer)
    seen: list[tuple[str, str, bool]] = []

    def call_api(url, token, body=None, *, _original=cupboard.call_api, **kwargs):
        status, document = _original(url, token, body, **kwargs)
        method, path = "POST" if body is not None else "GET", urlsplit(url).path
        described = "retry_after" not in document and check_document(method, path, status, document, openapi=served)
        seen.append((method, path, described))
        return status, document
    monkeypatch.setattr(cupboard, "call_api", call_api)
    return seen


def local_scores(code: str) -> dict[str, float]:
    import evaluator

    return evaluator.evaluate(sample_path("qrels", code), sample_path("run", code), METRICS).aggregates


def test_it_reads_the_phase_submits_and_brings_back_the_scores(stack, checked):
    from evaluator.client import Cupboard
    from evaluator.io.topics import read_topics

    cb = Cupboard(stack.url, stack.token)
    definition = cb.definition("cup", "dev")
    assert [s["code"] for s in definition["subsets"]] == ["sw", "yo"] and definition["metrics"] == METRICS

    topics = cb.topics("cup", "dev")
    assert list(topics.columns) == ["subset", "qid", "query"] and set(topics.subset) == {"sw", "yo"}
    sw = cb.topics("cup", "dev", subset="sw")
    assert dict(zip(sw["qid"], sw["query"], strict=True)) == read_topics(sample_path("topics", "sw"))

    runs = [sample_path("run", code) for code in ("sw", "yo")]
    scores = cb.submit("cup", "dev", runs, method_name="BM25", poll=0.3)
    submission = scores.attrs["submission"]
    assert submission["status"] == "scored" and list(scores.columns) == METRICS
    assert list(scores.index) == ["Avg", "sw", "yo"]  # the average first, under the site's label (one group: Avg)
    for code in ("sw", "yo"):
        assert scores.loc[code].to_dict() == {m: round(v, 3) for m, v in local_scores(code).items()}
    assert cb.submission(submission["id"])["scores"] == submission["scores"]

    board = cb.leaderboard("cup", "dev")
    [row] = board[board.team == "Lovelace"].to_dict("records")
    assert row["rank"] == 1 and row["method"] == "BM25" and row["baseline"] is False
    for code in ("sw", "yo"):
        for metric, value in local_scores(code).items():
            assert row[f"{metric} {code}"] == round(value, 3)
    assert row["nDCG@10 Avg"] == scores.loc["Avg", "nDCG@10"]
    assert board.attrs["rounded_to"] == 3 and board.attrs["subsets"] == ["sw", "yo"]
    assert cb.leaderboard("cup", "dev", as_of="2000-01-01").empty  # before any run

    [competition] = cb.competitions().to_dict("records")
    assert (competition["slug"], competition["title"], competition["phases"]) == ("cup", "Samples Cup", ["dev", "test-b"])
    phases = cb.phases("cup")
    assert phases.slug.tolist() == ["dev", "test-b"] and phases.is_open.tolist() == [True, True]
    assert str(phases.closes.dtype).startswith("datetime64") and phases.closes.dt.tz is not None

    mine = cb.submissions("cup", "dev")
    assert mine.id.tolist() == [submission["id"]] and mine.status.tolist() == ["scored"]
    assert mine.loc[0, "nDCG@10 sw"] == scores.loc["sw", "nDCG@10"] and mine.loc[0, "R@100 Avg"] == scores.loc["Avg", "R@100"]

    history = cb.history("cup", "dev")
    assert history.team.tolist() == ["Lovelace"] and history["rank"].tolist() == [1]
    assert history.value.iloc[0] == row[f"{history.attrs['metric']} Avg"]

    described = {(method, path) for method, path, ok in checked if ok}
    assert {("GET", "/submissions/api/cup/dev/definition/"), ("POST", "/submissions/api/cup/dev/"),
            ("GET", f"/submissions/api/{submission['id']}/"), ("GET", "/submissions/api/competitions/"),
            ("GET", "/submissions/api/cup/dev/submissions/"), ("GET", "/c/cup/dev/leaderboard.json"),
            ("GET", "/c/cup/dev/leaderboard/history.json")} <= described
    assert all(ok for _, _, ok in checked), [call for call in checked if not call[2]]  # every call is described


def test_a_fused_dataframe_is_submitted_as_it_is_scored_here(stack, checked):
    """evaluator.fuse's DataFrame goes up as a run ({code: frame}): the site's scores are the
    local scores of that frame."""
    import evaluator
    from evaluator.client import Cupboard

    fused = {code: evaluator.fuse([sample_path("run", code, tag) for tag in ("bm25", "mdpr")], method="hybrid")
             for code in ("sw", "yo")}
    scores = Cupboard(stack.url, stack.token).submit("cup", "dev", fused, method_name="BM25 + mDPR", poll=0.3)
    for code, run in fused.items():
        local = evaluator.evaluate(sample_path("qrels", code), run, METRICS).aggregates
        assert scores.loc[code].to_dict() == {m: round(v, 3) for m, v in local.items()}
    assert scores.loc["sw"].to_dict() != {m: round(v, 3) for m, v in local_scores("sw").items()}  # not BM25's


def test_a_refusal_is_one_error_type_with_the_apis_errors_and_stores_nothing(stack, checked, tmp_path):
    from evaluator.client import Cupboard, CupboardError

    cb = Cupboard(stack.url, stack.token)
    lines = sample_path("run", "sw").read_text().splitlines()
    lines[4] = "6 Q0 not-a-docid 5 1.5 bm25"
    bad = tmp_path / "run.broken.sw.dev.txt"
    bad.write_text("\n".join(lines) + "\n")
    before = stack.query("SELECT count(*) FROM submissions_submission")
    with pytest.raises(CupboardError) as refused:
        cb.submit("cup", "dev", bad, method_name="broken")
    assert refused.value.status == 400
    assert (refused.value.errors[0]["file"], refused.value.errors[0]["line"]) == ("run.broken.sw.dev.txt", 5)
    assert "run.broken.sw.dev.txt:5" in str(refused.value)
    assert stack.query("SELECT count(*) FROM submissions_submission") == before

    with pytest.raises(CupboardError) as unknown:
        cb.definition("cup", "no-such-phase")
    assert unknown.value.status == 404 and unknown.value.errors[0]["code"] == "not_found"
    with pytest.raises(CupboardError) as no_token:
        Cupboard(stack.url, "").submit("cup", "dev", bad, method_name="x")
    assert no_token.value.status == 401 and no_token.value.errors[0]["code"] == "bad_token"
    with pytest.raises(CupboardError) as no_topics:
        cb.topics("cup", "dev", subset="te")
    assert "there are sw, yo" in str(no_topics.value)
    with pytest.raises(CupboardError) as no_results:  # nothing frozen yet
        cb.leaderboard("cup", "dev", official=True)
    assert no_results.value.status == 404
    with pytest.raises(CupboardError, match="no competition 'nope'; there are cup"):
        cb.phases("nope")
    with pytest.raises(CupboardError, match="the run for 'sw': ") as no_scores:  # checked here, never sent
        cb.upload("cup", "dev", {"sw": {"1": {"10#0": "high"}}}, method_name="x")
    assert no_scores.value.status is None and no_scores.value.errors[0]["code"] == "bad-score"
    assert stack.query("SELECT count(*) FROM submissions_submission") == before
    assert all(ok for _, _, ok in checked) and ("GET", "/c/cup/dev/official.json", True) in checked
