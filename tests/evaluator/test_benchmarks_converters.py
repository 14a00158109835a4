"""Converters from non-TREC published formats (CLIRMatrix JSON lines, LAReQA SQuAD JSON)."""
import json

import pytest

from evaluator.benchmarks.clirmatrix import read_jsonl, read_mixed_pool
from evaluator.benchmarks.lareqa import read_squad
from evaluator.records import InputError


def jsonl(path, records):
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    return path


class TestCLIRMatrix:
    def test_it_reads_graded_judgments(self, tmp_path):
        path = jsonl(tmp_path / "en.de.test1.jsonl", [
            {"src_id": "100", "src_query": "Ada Lovelace", "tgt_results": [["555", 6], ["17", 0], ["9", 3]]}])
        topics, qrels = read_jsonl(path)
        assert topics == {"100": "Ada Lovelace"}
        assert qrels.judgments == {"100": {"555": 6, "17": 0, "9": 3}}

    def test_it_prefixes_docids_with_their_language_in_a_mixed_pool(self, tmp_path):
        de = jsonl(tmp_path / "en.de.jsonl", [{"src_id": "1", "src_query": "q", "tgt_results": [["12345", 2]]}])
        fr = jsonl(tmp_path / "en.fr.jsonl", [{"src_id": "1", "src_query": "q", "tgt_results": [["12345", 5]]}])
        topics, qrels = read_mixed_pool({"de": de, "fr": fr})
        assert qrels.judgments == {"1": {"de:12345": 2, "fr:12345": 5}}  # same id, two documents

    @pytest.mark.parametrize("record, code", [
        ({"src_id": "1", "src_query": "q", "tgt_results": [["1", 7]]}, "bad-label"),
        ({"src_id": "1", "tgt_results": []}, "bad-record"),
    ])
    def test_it_rejects_bad_records_with_their_line(self, tmp_path, record, code):
        path = jsonl(tmp_path / "x.jsonl", [{"src_id": "0", "src_query": "ok", "tgt_results": []}, record])
        with pytest.raises(InputError) as caught:
            read_jsonl(path)
        assert [(p.code, p.line) for p in caught.value.problems] == [(code, 2)]


def squad(path, question, context, sentences, answer_start):
    breaks, start = [], 0
    for s in sentences:
        breaks.append([start, start + len(s)])
        start += len(s) + 1
    path.write_text(json.dumps({"data": [{"paragraphs": [{
        "context": context, "sentences": sentences, "sentence_breaks": breaks,
        "qas": [{"id": "q1", "question": question, "answers": [{"text": "x", "answer_start": answer_start}]}],
    }]}]}))
    return path


def test_it_builds_lareqa_qrels_over_the_pool_of_every_language(tmp_path):
    en = squad(tmp_path / "en.json", "Who?", "It rains. Ada wrote it.", ["It rains.", "Ada wrote it."], 10)
    de = squad(tmp_path / "de.json", "Wer?", "Ada schrieb es. Es regnet.", ["Ada schrieb es.", "Es regnet."], 0)
    topics, qrels, pool = read_squad({"en": en, "de": de}, question_language="de")
    assert topics == {"q1": "Wer?"}
    assert qrels.judgments == {"q1": {"en:0-0-1": 1, "de:0-0-0": 1}}  # the answer in both languages
    assert set(pool) == {"en:0-0-0", "en:0-0-1", "de:0-0-0", "de:0-0-1"}
    assert pool["de:0-0-1"] == "Es regnet."


def test_it_rejects_lareqa_files_without_questions_in_the_language(tmp_path):
    en = squad(tmp_path / "en.json", "Who?", "Ada.", ["Ada."], 0)
    with pytest.raises(InputError):
        read_squad({"en": en}, question_language="ar")
