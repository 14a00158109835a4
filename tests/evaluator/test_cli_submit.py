"""`python -m evaluator submit` without a server: the streamed form body, and every way it stops
before uploading. Uploading to a real server and waiting for the score is tested end to end in
tests/e2e/test_submit_from_the_command_line.py."""
import email.parser
import email.policy
import http.server
import json
import socket
import threading

import pytest

from evaluator.cli import main
from evaluator.cli.progress import amount
from evaluator.cli.submit import print_scores
from evaluator.client.http import Multipart


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]  # free once the socket closes: nobody listens there


def submit(tmp_path, *extra: str) -> list[str]:
    return ["submit", "--server", f"http://127.0.0.1:{closed_port()}", "--competition", "cup", "--phase", "dev",
            "--method", "BM25", *extra]


def test_the_body_has_the_length_it_announces_and_parses_as_a_form(tmp_path):
    run = tmp_path / 'run "quoted".sw.txt'
    run.write_bytes(b"1 Q0 10#0 1 2.5 t\n" * 50_000)  # ~1 MB: more than one read block
    body = Multipart({"method_name": "BM25 + mDPR", "description": "ünïcode"}, [("files", run), ("file_te", run)])
    raw = b"".join(body.chunks())
    assert len(raw) == len(body)
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {body.content_type}\r\n\r\n".encode() + raw)
    parts = {(p.get_param("name", header="content-disposition"), p.get_filename()): p.get_payload(decode=True)
             for p in message.iter_parts()}
    assert parts[("method_name", None)] == b"BM25 + mDPR"
    assert parts[("description", None)].decode() == "ünïcode"
    assert parts[("files", 'run %22quoted%22.sw.txt')] == run.read_bytes()
    assert parts[("file_te", 'run %22quoted%22.sw.txt')] == run.read_bytes()


def test_it_needs_a_token(tmp_path, capsys, monkeypatch):
    monkeypatch.delenv("CUPBOARD_TOKEN", raising=False)
    assert main(submit(tmp_path, "--run", str(tmp_path / "run.sw.txt"))) == 2
    assert "CUPBOARD_TOKEN" in capsys.readouterr().err


def test_it_checks_against_the_topics_before_it_connects(tmp_path, capsys):
    topics = tmp_path / "topics.miracl-v1.0-sw-dev.tsv"
    topics.write_text("1\tswali la kwanza\n2\tswali la pili\n")
    run = tmp_path / "run.mine.sw.dev.txt"
    run.write_text("1 Q0 10#0 1 2.0 mine\n7 Q0 11#0 1 1.0 mine\n")  # query 7 is no sw topic
    # the server's port is closed: reaching it would be exit status 2, not 1
    code = main(submit(tmp_path, "--token", "t", "--run", str(run), "--topics", str(topics)))
    err = capsys.readouterr().err
    assert code == 1
    assert f"{run}:2:1: error: query '7' is not in the topics" in err
    assert "unknown-qid" not in err  # codes are for scripts (--format json), not in the text


def test_it_says_when_the_server_cannot_be_reached(tmp_path, capsys):
    run = tmp_path / "run.mine.sw.dev.txt"
    run.write_text("1 Q0 10#0 1 2.0 mine\n")
    assert main(submit(tmp_path, "--token", "t", "--run", str(run))) == 2
    assert "error: http://127.0.0.1:" in capsys.readouterr().err


def test_it_names_a_run_file_that_is_not_there(tmp_path, capsys):
    assert main(submit(tmp_path, "--token", "t", "--run", f"sw={tmp_path / 'nope.txt'}")) == 2
    assert f"no such file: {tmp_path / 'nope.txt'}" in capsys.readouterr().err


def test_it_names_a_topics_file_that_is_not_there(tmp_path, capsys):
    run = tmp_path / "run.mine.sw.dev.txt"
    run.write_text("1 Q0 10#0 1 2.0 mine\n")
    missing = tmp_path / "topics.miracl-v1.0-sw-dev.tsv"
    assert main(submit(tmp_path, "--token", "t", "--run", str(run), "--topics", str(missing))) == 2
    assert f"no such file: {missing}" in capsys.readouterr().err


class TryLater(http.server.BaseHTTPRequestHandler):
    """A server that answers every request as cupboard does in an outage (503, Retry-After, the
    API's JSON errors), or as a proxy in front of it does (an HTML page), or throttles (429)."""

    answers = {"/json/": (503, "application/json", json.dumps({"errors": [
        {"file": None, "line": None, "column": None, "code": "unavailable",
         "message": "cupboard is briefly unavailable. Nothing was changed; please try again in 30 seconds."}]})),
        "/proxy/": (503, "text/html", "<html><body>502 Bad Gateway - upstream restarting</body></html>"),
        "/throttled/": (429, "application/json", json.dumps({"errors": [
            {"file": None, "line": None, "column": None, "code": "throttled",
             "message": "Too many requests with this token; try again in 7 s."}]}))}

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))
        status, kind, body = self.answers[self.path[:self.path.index("/", 1) + 1]]
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Retry-After", "7" if status == 429 else "30")
        self.send_header("Content-Length", str(len(body.encode())))
        self.end_headers()
        self.wfile.write(body.encode())

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def busy_server():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), TryLater)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()


@pytest.mark.parametrize("where, says, wait", [
    ("json", "server: error: cupboard is briefly unavailable. Nothing was changed", 30),
    ("proxy", "server: error: HTTP 503 from http://127.0.0.1:", 30),
    ("throttled", "server: error: Too many requests with this token", 7)])
def test_a_server_that_says_not_now_is_exit_status_3_with_its_retry_after(tmp_path, capsys, busy_server, where,
                                                                           says, wait):
    run = tmp_path / "run.mine.sw.dev.txt"
    run.write_text("1 Q0 10#0 1 2.0 mine\n")
    argv = ["submit", "--server", f"{busy_server}/{where}", "--competition", "cup", "--phase", "dev",
            "--method", "BM25", "--token", "t", "--run", str(run)]
    assert main(argv) == 3
    err = capsys.readouterr().err
    assert says in err and f"nothing was stored; try again in {wait} s (exit status 3)" in err
    assert "[unavailable]" not in err and "[throttled]" not in err

    assert main([*argv, "--format", "json"]) == 3
    answer = json.loads(capsys.readouterr().out)
    assert answer["retry_after"] == wait and answer["errors"][0]["code"] in {"unavailable", "throttled"}


def test_it_prints_the_averages_under_the_sites_labels(capsys):
    """The site says K.Avg / Avg; the CLI said known / all."""
    print_scores({"number": 3, "status": "scored", "decimals": 3, "scores": {"sw": {"nDCG@10": 0.5}},
                  "averages": {"known": {"nDCG@10": 0.25}, "all": {"nDCG@10": 0.25}},
                  "average_labels": {"known": "K.Avg", "all": "Avg"}})
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines[2:]] == ["K.Avg", "Avg", "sw"]
    assert "known" not in "".join(lines)


@pytest.mark.parametrize(("done", "total", "shown"), [
    (512, 900, "512/900 B"), (3_200, 40_100, "3.2/40.1 kB"), (12_000_000, 30_000_000, "12.0/30.0 MB"),
    (40_000, 0, "40.0 kB"), (0, 2_500_000_000, "0.0/2.5 GB")])
def test_progress_shows_small_files_in_a_unit_that_says_something(done, total, shown):
    assert amount(done, total) == shown  # a 40 kB file read "0.0/0.0 MB"


def test_a_run_the_ladder_hides_is_told_so(capsys):
    """Issue 33, item 2: the answer's `shown` is "ladder" and carries no score."""
    from evaluator.cli.submit import print_scores

    print_scores({"number": 3, "status": "scored", "status_reason": "", "scores": {}, "averages": {}, "shown": "ladder"})
    assert "not better than your shown run" in capsys.readouterr().out
