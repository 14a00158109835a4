"""Uploads through the JSON API, as `python -m evaluator submit` sends them, at planned moments.

Each upload is one multipart POST of a submission's 18 run files (streamed from disk by
the evaluator CLI's own `Multipart`), with a team's token, and is tried once: what the
server answered (status, JSON or not, Retry-After, the submission id) or how it failed
without an answer (reset, timeout) is recorded with the times it started and ended. A
proxy in front of the production web sets X-Forwarded-Proto; so does this client.
"""
from __future__ import annotations

import http.client
import json
import threading
import time
import urllib.parse
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field

from evaluator.client import api
from evaluator.client.http import Multipart

from .competition import run_metadata
from .datasets import RunSet

TIMEOUT = 150  # seconds: above gunicorn's 120 s worker timeout, so a hung worker shows as its 502/reset


@dataclass
class Upload:
    scenario: str
    number: int
    team: int  # index into the teams
    run_set: RunSet
    started: float = 0.0  # wall clock (time.time()), comparable with the database's timestamps
    finished: float = 0.0
    status: int | None = None  # HTTP status; None: no answer at all
    is_json: bool = False
    retry_after: str | None = None
    submission_id: int | None = None
    error: str = ""  # the exception, or the start of a non-2xx answer
    cut: bool = False  # the server stopped reading the upload before its end

    @property
    def method(self) -> str:
        """The method name, unique per upload: how the upload's row is found in the database."""
        return f"{self.scenario} {self.number:03d}"

    @property
    def seconds(self) -> float:
        return self.finished - self.started


@dataclass
class Client:
    url: str
    competition: str
    phase: str
    tokens: list[str]
    timeout: float = TIMEOUT
    metadata: dict[str, str] = field(default_factory=run_metadata)  # the run metadata the Cup requires

    def send(self, upload: Upload) -> Upload:
        """POST the upload's files; if the server stops reading before the end (it answered early,
        or dropped the connection), read whatever answer it left."""
        body = Multipart({"method_name": upload.method, "description": "load test", **self.metadata},
                         [("files", path) for path in upload.run_set.files])
        address = urllib.parse.urlsplit(self.url)
        connection = http.client.HTTPConnection(address.hostname, address.port, timeout=self.timeout)
        upload.started = time.time()
        try:
            connection.putrequest("POST", api.path_of(api.UPLOAD_ROUTE, competition_slug=self.competition,
                                                      phase_slug=self.phase))
            for name, value in {"Authorization": f"{api.AUTH_SCHEME} {self.tokens[upload.team]}", "Accept": "application/json",
                                "X-Forwarded-Proto": "https", "Content-Type": body.content_type,
                                "Content-Length": str(len(body))}.items():
                connection.putheader(name, value)
            connection.endheaders()
            try:
                for chunk in body.chunks():
                    connection.send(chunk)
            except OSError:
                upload.cut = True
            response = connection.getresponse()
            _answered(upload, response.status, response.headers, response.read())
        except Exception as error:  # reset, refused, timeout, half-read answer: no answer
            upload.status, upload.error = None, f"{type(error).__name__}: {error}"[:300]
        finally:
            connection.close()
        upload.finished = time.time()
        return upload


def _answered(upload: Upload, status: int, headers, body: bytes) -> None:
    upload.status = status
    upload.retry_after = headers.get("Retry-After")
    try:
        document = json.loads(body)
        upload.is_json = True
    except ValueError:
        document = None
    if isinstance(document, dict) and status in (200, 201):
        upload.submission_id = document.get("id")
    if status not in (200, 201):
        upload.error = (json.dumps(document) if document is not None else body.decode("utf-8", "replace"))[:300]


@dataclass
class Traffic:
    """Sends planned uploads (offset in seconds from `start`, upload) on a thread pool, from a
    dispatcher thread, so the caller is free to break things meanwhile."""

    client: Client
    threads: int = 32
    futures: list[Future] = field(default_factory=list)

    def start(self, plan: list[tuple[float, Upload]]) -> float:
        self.pool = ThreadPoolExecutor(self.threads, thread_name_prefix="upload")
        self.begin = time.monotonic()
        self.dispatcher = threading.Thread(target=self._dispatch, args=(sorted(plan, key=lambda p: p[0]),),
                                           daemon=True)
        self.dispatcher.start()
        return self.begin

    def _dispatch(self, plan: list[tuple[float, Upload]]) -> None:
        for offset, upload in plan:
            time.sleep(max(0.0, self.begin + offset - time.monotonic()))
            self.futures.append(self.pool.submit(self.client.send, upload))

    def finish(self) -> list[Upload]:
        """Every upload, once answered or given up on (each is bounded by the client's timeout)."""
        self.dispatcher.join()
        self.pool.shutdown(wait=True)
        return [future.result() for future in self.futures]

    def sleep_until(self, offset: float) -> None:
        time.sleep(max(0.0, self.begin + offset - time.monotonic()))
