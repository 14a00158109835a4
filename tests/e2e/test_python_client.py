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
from cupboard.competitions.services import qrels_release_create, topics_import
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
        stack.manage("migrate", "--noinput", timeout=180)
        stack.manage("shell", "-c", SETUP)
        stack.token = make_participant(stack, username="ada", team="Lovelace")
        stack.start_server(port)
        stack.start_worker()
        yield stack


@pytest.fixture
def checked(stack, monkeypatch):
    """Every (method, path) the client read, each answer checked against the served OpenAPI
    document: a status it omits or a body off its schema fails the test."""
    from evaluator.client import cupboard

    with urllib.request.urlopen(f"{stack.url}/api/openapi.json") as answer:
        served = json.load(answer)
    seen: list[tuple[str, str, bool]] = []

    def call_api(url, token, body=None, *, _original=cupboard.call_api, **kwargs):
        status, document = _original(url, token, body, **kwargs)
        method = "POST" if body is not None else "GET"
        described = "retry_after" not in document and check_document(
            method, urlsplit(url).path, status, document, openapi=served)
        seen.append((method, urlsplit(url).path, described))
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

    described = {(method, path) for method, path, ok in checked if ok}
    assert {("GET", "/submissions/api/cup/dev/definition/"), ("POST", "/submissions/api/cup/dev/"),
            ("GET", f"/submissions/api/{submission['id']}/")} <= described


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
