"""The client's tables from the API's JSON, and what it picks before it calls a server (topics
files, run files); the calls themselves are tested against a real server in
tests/e2e/test_python_client.py."""
import subprocess
import sys

import pandas as pd
import pytest

from evaluator.client import CupboardError
from evaluator.client.cupboard import chosen_topics, run_files
from evaluator.client.frames import leaderboard_frame, scores_frame

BOARD = {
    "competition": "cup", "phase": "dev", "qrels_version": 2, "metrics": ["nDCG@10", "R@100"],
    "primary_metric": "nDCG@10", "rounded_to": 3, "averages": ["K.Avg", "Avg"],
    "subsets": [{"code": "sw", "name": "Swahili", "kind": "language"}, {"code": "yo", "name": "Yoruba", "kind": "language"}],
    "metadata_fields": [{"name": "run_type", "label": "Run type", "type": "choice", "choices": ["automatic", "manual"]}],
    "rows": [
        {"rank": 1, "team": "Lovelace", "method": "BM25", "baseline": False, "qrels_version": 2,
         "metadata": {"run_type": "automatic"},
         "values": {"sw": {"nDCG@10": 0.5, "R@100": 0.9}, "yo": {"nDCG@10": 0.3, "R@100": 0.7}},
         "averages": {"K.Avg": {"nDCG@10": 0.4, "R@100": 0.8}, "Avg": {"nDCG@10": 0.4, "R@100": 0.8}}},
        {"rank": None, "team": "Organizers", "method": "baseline", "baseline": True, "qrels_version": 2,
         "metadata": {}, "values": {"sw": {"nDCG@10": 0.2, "R@100": None}}, "averages": {}},
    ],
}


def test_a_board_is_one_row_per_run_with_a_column_per_metric_and_column():
    frame = leaderboard_frame(BOARD)
    assert list(frame.columns) == [
        "rank", "team", "method", "baseline", "qrels_version", "meta:run_type",
        "nDCG@10 K.Avg", "nDCG@10 Avg", "nDCG@10 sw", "nDCG@10 yo", "R@100 K.Avg", "R@100 Avg", "R@100 sw", "R@100 yo"]
    first, baseline = frame.to_dict("records")
    assert first["nDCG@10 yo"] == 0.3 and first["R@100 K.Avg"] == 0.8 and first["meta:run_type"] == "automatic"
    assert pd.isna(baseline["rank"]) and baseline["baseline"] is True and pd.isna(baseline["meta:run_type"])
    assert pd.isna(baseline["R@100 sw"]) and pd.isna(baseline["nDCG@10 Avg"])  # hidden, or no run: NaN
    assert frame.attrs["subsets"] == ["sw", "yo"] and frame.attrs["rounded_to"] == 3
    assert str(frame["nDCG@10 sw"].dtype) == "float64" and str(frame["rank"].dtype) == "Int64"


def test_an_empty_board_keeps_its_columns():
    frame = leaderboard_frame({**BOARD, "rows": []})
    assert frame.empty and "nDCG@10 sw" in frame.columns


def test_a_submissions_scores_are_averages_then_subsets_under_the_sites_labels():
    answer = {"id": 7, "number": 1, "status": "scored", "decimals": 3,
              "scores": {"yo": {"nDCG@10": 0.3}, "sw": {"nDCG@10": 0.5}},
              "averages": {"known": {"nDCG@10": 0.4}, "all": {"nDCG@10": 0.4}},
              "average_labels": {"known": "K.Avg", "all": "Avg"}}
    frame = scores_frame(answer)
    assert list(frame.index) == ["K.Avg", "Avg", "sw", "yo"] and list(frame.columns) == ["nDCG@10"]
    assert frame.loc["yo", "nDCG@10"] == 0.3 and frame.attrs["submission"] is answer
    assert scores_frame({**answer, "scores": {}, "averages": {}}).empty  # not shown before the reveal


DEFINITION = {"topic_variants": [{"code": "en", "name": "English"}, {"code": "native", "name": "Native"}],
              "topics": [{"subset": s, "variant": v, "name": f"topics.{s}.{v}.tsv", "url": f"http://x/{s}/{v}/"}
                         for s in ("ha", "sw") for v in ("en", "native")]}


def test_topics_files_are_the_default_variants_unless_asked():
    assert [t["name"] for t in chosen_topics(DEFINITION, subset=None, variant=None)] == \
        ["topics.ha.en.tsv", "topics.sw.en.tsv"]
    assert [t["name"] for t in chosen_topics(DEFINITION, subset="sw", variant="native")] == ["topics.sw.native.tsv"]


@pytest.mark.parametrize(("subset", "variant", "says"), [
    ("sw", "fr", "no topic variant 'fr'; this phase has en, native"),
    ("yo", None, "no topics of subset 'yo' to download; there are ha, sw")])
def test_asking_for_topics_there_are_not_says_what_there_is(subset, variant, says):
    with pytest.raises(CupboardError, match=says) as refused:
        chosen_topics(DEFINITION, subset=subset, variant=variant)
    assert refused.value.status is None and refused.value.errors[0]["code"].startswith("no_such_")


def test_run_files_are_named_by_their_language_or_left_to_the_server(tmp_path):
    (tmp_path / "runs").mkdir()
    for name in ("run.a.sw.txt", "run.a.yo.txt"):
        (tmp_path / "runs" / name).write_text("1 Q0 d 1 1 t\n")
    one = tmp_path / "mine.txt"
    assert run_files({"ha": one}) == [("file_ha", one)]
    assert run_files(f"ha={one}") == [("file_ha", one)]
    assert run_files([tmp_path / "runs"]) == [("files", tmp_path / "runs" / "run.a.sw.txt"),
                                              ("files", tmp_path / "runs" / "run.a.yo.txt")]


def test_the_client_loads_pandas_only_for_a_table():
    """`python -m evaluator submit` is built on the client: importing it must not cost pandas."""
    code = "import sys, evaluator.client, evaluator.cli.submit; print('pandas' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_a_run_held_in_python_is_written_as_a_trec_file_that_scores_the_same(tmp_path):
    import evaluator
    from evaluator.samples import sample_path

    fused = evaluator.fuse([sample_path("run", "sw", tag) for tag in ("bm25", "mdpr")], method="rrf")
    [(field, path)] = run_files({"sw": fused}, folder=tmp_path)
    assert field == "file_sw" and path.parent == tmp_path
    qrels = sample_path("qrels", "sw")
    assert evaluator.evaluate(qrels, path, ["nDCG@10", "AP"]).aggregates == \
        evaluator.evaluate(qrels, fused, ["nDCG@10", "AP"]).aggregates
    assert evaluator.evaluate(qrels, path, ["nDCG@10"], strict=True).aggregates  # a valid competition run


def test_a_bad_run_frame_is_a_cupboard_error_naming_it(tmp_path):
    frame = pd.DataFrame({"qid": ["1"], "doc": ["10#0"], "score": [1.0]})
    with pytest.raises(CupboardError, match="the run for 'sw': ") as refused:
        run_files({"sw": frame}, folder=tmp_path)
    assert refused.value.errors[0]["file"] == "<DataFrame> for sw" and list(tmp_path.iterdir()) == []
