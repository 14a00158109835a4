"""Benchmarks published in other formats (CLIRMatrix JSON lines) are stored as TREC files."""
import json

import pytest

from cupboard.competitions.definition import DEFINITIONS_DIR as DEFINITIONS
from cupboard.competitions.services import competition_load, converted_data_import


@pytest.mark.django_db
def test_it_stores_a_clirmatrix_file_as_trec_topics_and_graded_qrels(tmp_path):
    from evaluator.benchmarks import get_benchmark

    competition = competition_load(data=DEFINITIONS / "clirmatrix.yaml")
    source = tmp_path / "en.de.test1.jsonl"
    source.write_text("\n".join(json.dumps(r) for r in [
        {"src_id": "q1", "src_query": "Berlin\tWall", "tgt_results": [["d1", 6], ["d2", 0]]},
        {"src_id": "q2", "src_query": "Rhine", "tgt_results": [["d3", 2]]},
    ]) + "\n")
    topics, qrels = get_benchmark("clirmatrix").converters["jsonl"](source)
    phase = competition.phases.get(slug="test")
    topic_set, release = converted_data_import(phase=phase, subset="en-de", topics=topics, qrels=qrels,
                                               source_name=source.name)
    assert topic_set.file.read() == b"q1\tBerlin Wall\nq2\tRhine\n"
    qrels_file = release.files.get()
    assert qrels_file.file.read() == b"q1\tQ0\td1\t6\nq1\tQ0\td2\t0\nq2\tQ0\td3\t2\n"
    assert (qrels_file.judged_queries, qrels_file.judgments, release.note) == (2, 3, "converted from en.de.test1.jsonl")
