"""A collection's document list (issue 34): a run naming a docid the collection does not hold
is refused at its line, or warned once, by `read_run`, `python -m evaluator validate` and
`score`; the list reads from an id file, a TSV or JSON-lines corpus and its saved .npy alike."""
from __future__ import annotations

import contextlib
import io
import json

import numpy as np
import pytest

from evaluator.cli import main
from evaluator.io.documents import DocumentCheck, DocumentList, read_documents
from evaluator.io.runs import read_run
from evaluator.records import InputError

pytestmark = pytest.mark.usefixtures("run_reader")
IDS = [f"{n}#{p}" for n in range(300) for p in range(3)]
RUN = "".join(f"{q} Q0 {n}#{n % 3} {r} {100 - r} tag\n" for q in (1, 2) for r, n in enumerate(range(1, 40), 1))


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("shape", ["ids", "tsv", "jsonl", "npy", "gzip"])
def test_every_shape_reads_the_same_list(tmp_path, shape):
    path = tmp_path / f"documents.{shape}"
    if shape == "ids":
        path.write_text("# the collection\n" + "\n".join(IDS) + "\n\n")
    elif shape == "tsv":
        path.write_text("docid\ttitle\ttext\n" + "".join(f"{d}\tT\tsome text\r\n" for d in IDS))
    elif shape == "jsonl":
        path.write_text("".join(json.dumps({"docid": d, "title": "", "text": "x"}) + "\n" for d in IDS))
    elif shape == "npy":
        DocumentList.from_ids(IDS).save(path)
    else:
        import gzip

        path.write_bytes(gzip.compress(("\n".join(IDS)).encode()))
    documents = read_documents(path)
    assert len(documents) == len(IDS)
    assert np.array_equal(documents.hashes, DocumentList.from_ids(IDS).hashes)


def test_an_unknown_docid_is_refused_at_its_line_and_a_warning_counts_them():
    documents = DocumentList.from_ids(IDS)
    text = RUN.replace("1 Q0 5#2 5", "1 Q0 99999#0 5").replace("2 Q0 7#1 7", "2 Q0 nope 7")
    run, report = read_run(io.BytesIO(text.encode()), name="run.txt", documents=DocumentCheck(documents))
    assert run is None
    assert [(p.code, p.line, p.column) for p in report.errors] == [("unknown-docid", 5, 3), ("unknown-docid", 46, 3)]
    assert "'99999#0' is not in the collection's document list" in report.errors[0].message
    run, report = read_run(io.BytesIO(text.encode()), name="run.txt", documents=DocumentCheck(documents, refuse=False))
    assert run is not None and not report.errors
    assert [(w.code, w.line) for w in report.warnings if w.code == "unknown-docid"] == [("unknown-docid", 5)]
    assert "2 lines" in report.warnings[-1].message
    run, report = read_run(io.BytesIO(RUN.encode()), name="run.txt", documents=DocumentCheck(documents))
    assert run is not None and not report.errors and not report.warnings


def test_the_command_line_refuses_or_warns(tmp_path):
    (tmp_path / "ids.txt").write_text("\n".join(IDS))
    (tmp_path / "qrels.txt").write_text("1 0 1#1 1\n2 0 2#2 1\n")
    (tmp_path / "run.txt").write_text(RUN.replace("2 Q0 3#0 3", "2 Q0 777#0 3"))
    code, out, err = cli("validate", "--run", str(tmp_path / "run.txt"), "--documents", str(tmp_path / "ids.txt"))
    assert code == 1 and "run.txt:42:3" in out and "'777#0' is not in the collection's document list" in out
    code, out, err = cli("score", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt"),
                         "--documents", str(tmp_path / "ids.txt"), "--metrics", "P@5")
    assert code == 1 and "run.txt:42:3" in err
    code, out, err = cli("score", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt"),
                         "--documents", str(tmp_path / "ids.txt"), "--unknown-documents", "warn", "--metrics", "P@5",
                         "--format", "json")
    document = json.loads(out)
    assert code == 0 and [w["line"] for w in document["warnings"] if w["code"] == "unknown-docid"] == [42]
    code, out, err = cli("score", "--qrels", str(tmp_path / "qrels.txt"), "--run", str(tmp_path / "run.txt"),
                         "--documents", str(tmp_path / "missing.txt"), "--metrics", "P@5")
    assert code == 1 and "missing.txt" in err


def test_an_empty_list_or_a_bad_json_line_is_an_error_naming_the_file(tmp_path):
    (tmp_path / "empty.txt").write_text("# nothing\n\n")
    with pytest.raises(InputError, match="empty.txt"):
        read_documents(tmp_path / "empty.txt")
    (tmp_path / "bad.jsonl").write_text('{"docid": "a"}\n{"id": "b"}\n')
    with pytest.raises(InputError) as caught:
        read_documents(tmp_path / "bad.jsonl")
    assert (caught.value.problems[0].file, caught.value.problems[0].line) == (str(tmp_path / "bad.jsonl"), 2)
