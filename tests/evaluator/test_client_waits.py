"""How `Cupboard` waits: a read waits out 429/503 for their Retry-After (up to its patience), and
`wait` polls with back-off through an outage until the submission is done. A server that says
"not now" on cue cannot be had from the real platform without an outage, so a small scripted
one stands in (as in test_cli_submit.py); the calls against the real server are in
tests/e2e/test_python_client.py."""
import http.server
import json
import threading
import time

import pytest

from evaluator.client import Cupboard, CupboardError

ERRORS = {"errors": [{"file": None, "line": None, "column": None, "code": "unavailable",
                      "message": "cupboard is briefly unavailable; please try again in 1 second."}]}


class Scripted(http.server.BaseHTTPRequestHandler):
    """Answers each GET with the next (status, document, Retry-After) of `script`, noting when."""

    script: list[tuple[int, dict, str | None]] = []
    asked: list[float] = []

    def do_GET(self):
        status, document, retry_after = self.script.pop(0) if len(self.script) > 1 else self.script[0]
        self.asked.append(time.monotonic())
        body = json.dumps(document).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        if retry_after:
            self.send_header("Retry-After", retry_after)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers["Content-Length"]))  # an upload: read, then answered as a GET
        self.do_GET()

    def log_message(self, *args):
        pass


@pytest.fixture
def server():
    Scripted.script, Scripted.asked = [], []
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Scripted)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def test_a_read_waits_out_a_503_for_its_retry_after(server):
    definition = {"competition": "cup", "phase": "dev"}
    Scripted.script = [(503, ERRORS, "1"), (429, ERRORS, "1"), (200, definition, None)]
    assert Cupboard(server, "t").definition("cup", "dev") == definition
    first, second, third = Scripted.asked
    assert second - first >= 0.9 and third - second >= 0.9  # asked again only after the Retry-After


def test_a_read_out_of_patience_raises_with_the_retry_after(server):
    Scripted.script = [(503, ERRORS, "30")]
    with pytest.raises(CupboardError) as refused:
        Cupboard(server, "t", patience=5).definition("cup", "dev")
    assert refused.value.status == 503 and refused.value.retry_after == 30
    # 30 s would pass the patience of 5: asked once and given up at once, not slept through
    assert refused.value.errors[0]["code"] == "unavailable" and len(Scripted.asked) == 1


def test_waiting_polls_with_back_off_through_an_outage(server):
    queued = {"id": 7, "number": 1, "status": "queued", "progress": 0}
    scored = {**queued, "status": "scored", "progress": 100, "scores": {"sw": {"nDCG@10": 0.5}}}
    Scripted.script = [(200, queued, None), (200, queued, None), (503, ERRORS, "1"), (200, scored, None)]
    seen = []
    done = Cupboard(server, "t").wait(queued, poll=0.2, backoff=2, max_poll=0.5,
                                      watch=lambda status, answer: seen.append(status))
    assert done == scored and seen == [200, 200, 503, 200]
    gaps = [b - a for a, b in zip(Scripted.asked, Scripted.asked[1:], strict=False)]
    assert gaps[0] >= 0.35  # 0.2 s, then twice that (lower bounds only: a loaded machine is slower)
    assert gaps[2] >= 0.9  # after the 503: its Retry-After of 1 s


def test_waiting_gives_up_after_its_timeout(server):
    queued = {"id": 7, "number": 1, "status": "queued", "progress": 0, "url": "http://x/submissions/7/"}
    Scripted.script = [(200, queued, None)]
    with pytest.raises(CupboardError, match="still queued after 1 s: http://x/submissions/7/") as late:
        Cupboard(server, "t").wait(queued, timeout=1, poll=0.2, backoff=1)
    assert late.value.status is None and late.value.errors[0]["code"] == "timeout"


def test_submit_sends_again_after_a_503_and_upload_alone_does_not(server, tmp_path):
    run = tmp_path / "run.mine.sw.dev.txt"
    run.write_text("1 Q0 10#0 1 2.0 mine\n")
    stored = {"id": 7, "number": 1, "status": "queued", "progress": 0, "url": "http://x/submissions/7/",
              "scores": {}, "averages": {}}
    Scripted.script = [(503, ERRORS, "1"), (201, stored, None)]
    with pytest.raises(CupboardError) as not_now:  # the command line's way: exit 3, "try again in 1 s"
        Cupboard(server, "t").upload("cup", "dev", run, method_name="BM25")
    assert not_now.value.status == 503 and not_now.value.retry_after == 1 and len(Scripted.asked) == 1

    scores = Cupboard(server, "t").submit("cup", "dev", run, method_name="BM25", wait=False)
    assert scores.attrs["submission"] == stored and scores.empty  # queued: no score yet
    assert len(Scripted.asked) == 2  # the 503 was the first upload's; this one was taken at once

    Scripted.script, Scripted.asked = [(503, ERRORS, "1"), (201, stored, None)], []
    Cupboard(server, "t").submit("cup", "dev", run, method_name="BM25", wait=False)
    assert len(Scripted.asked) == 2 and Scripted.asked[1] - Scripted.asked[0] >= 0.9  # after its Retry-After
