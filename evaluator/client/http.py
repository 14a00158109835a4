"""Talking to a cupboard server's JSON API over HTTP, with the standard library only.

Kept apart from the scoring library and the command line: `python -m evaluator submit`
uses it, and so can a participant's own script (or the platform's load test), without
numpy, pyarrow or argparse. urllib (with http and ssl) is imported on the first call.
"""
from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from .api import AUTH_SCHEME, TRY_LATER, error

CHUNK = 1 << 20


class Reporter(Protocol):
    """What an upload reports its progress to (`evaluator.cli.progress.Progress`)."""

    def update(self, done: int, total: int) -> None: ...


@dataclass
class Multipart:
    """A multipart/form-data body streamed from disk: its length is known before it is read,
    so large runs are sent with a Content-Length (which Django needs) and never held in memory."""

    fields: dict[str, str]
    files: list[tuple[str, Path]]
    boundary: str = ""

    def __post_init__(self) -> None:
        import uuid  # here: only an upload needs it, and it is slow to import

        self.boundary = self.boundary or uuid.uuid4().hex

    @property
    def content_type(self) -> str:
        return f"multipart/form-data; boundary={self.boundary}"

    def _head(self, name: str, filename: str | None = None) -> bytes:
        disposition = f'form-data; name="{name}"'
        if filename is not None:
            disposition += f'; filename="{filename.replace(chr(34), "%22")}"'
            return (f"--{self.boundary}\r\nContent-Disposition: {disposition}\r\n"
                    f"Content-Type: application/octet-stream\r\n\r\n").encode()
        return f"--{self.boundary}\r\nContent-Disposition: {disposition}\r\n\r\n".encode()

    def _tail(self) -> bytes:
        return f"--{self.boundary}--\r\n".encode()

    def __len__(self) -> int:
        fields = sum(len(self._head(k)) + len(v.encode()) + 2 for k, v in self.fields.items())
        files = sum(len(self._head(k, p.name)) + p.stat().st_size + 2 for k, p in self.files)
        return fields + files + len(self._tail())

    def chunks(self, progress: Reporter | None = None) -> Iterator[bytes]:
        """The body, a read block at a time, reporting the bytes handed over to `progress`."""
        total, sent = len(self), 0
        for chunk in self._parts():
            sent += len(chunk)
            if progress:
                progress.update(sent, total)
            yield chunk

    def _parts(self) -> Iterator[bytes]:
        for name, value in self.fields.items():
            yield self._head(name) + value.encode() + b"\r\n"
        for name, path in self.files:
            yield self._head(name, path.name)
            with path.open("rb") as source:
                while block := source.read(CHUNK):
                    yield block
            yield b"\r\n"
        yield self._tail()


class CupboardError(Exception):
    """Whatever a cupboard server refused or could not do, as one type a script catches.

    `status` is the HTTP status (None when the server was not reached), `errors` the API's
    list ({file, line, column, code, message} each: a bad run line names its file and line),
    `retry_after` the seconds a 429 or 503 asked to wait, and `answer` the JSON document as
    the server sent it (what `python -m evaluator submit --format json` prints)."""

    def __init__(self, message: str, *, status: int | None = None, answer: dict[str, Any] | None = None):
        super().__init__(message)
        self.status = status
        self.answer: dict[str, Any] = answer if answer is not None else {"errors": [error("unreachable", message)]}
        self.errors: list[dict[str, Any]] = list(self.answer.get("errors") or [])
        self.retry_after: int | None = self.answer.get("retry_after")

    @classmethod
    def refused(cls, url: str, status: int, answer: dict[str, Any]) -> CupboardError:
        """The error of an API answer with errors as data: its message lists them, each with
        its file and line when it has them."""
        problems = "; ".join(_located(e) for e in answer.get("errors") or []) or f"HTTP {status}"
        return cls(f"{url}: {problems}", status=status, answer=answer)


def _located(problem: dict[str, Any]) -> str:
    where = ":".join(str(problem[k]) for k in ("file", "line", "column") if problem.get(k) is not None)
    return f"{where}: {problem.get('message')}" if where else str(problem.get("message"))


class ServerError(CupboardError):
    """The server could not be reached, or answered with something other than the API's JSON."""


def call_api(url: str, token: str, body: Multipart | None = None, *, progress: Reporter | None = None,
             timeout: float = 300) -> tuple[int, dict[str, Any]]:
    """(HTTP status, JSON document) for a GET, or a POST of `body`; API refusals (4xx with
    errors as data) are returned, not raised."""
    status, content, retry_after = fetch(url, token, body, progress=progress, timeout=timeout)
    if status < 400:
        try:
            return status, json.loads(content)
        except ValueError:
            raise ServerError(f"{url}: HTTP {status} is not JSON: {content[:300]!r}", status=status) from None
    try:
        document = json.loads(content)
    except ValueError:
        if status not in TRY_LATER:
            text = content.decode("utf-8", "replace")[:300]
            raise ServerError(f"{url}: HTTP {status}: {text}", status=status,
                              answer={"errors": [error("not_json", f"HTTP {status} from {url}")]}) from None
        # a proxy's own 503 page while the platform restarts: an outage all the same
        document = {"errors": [error("unavailable", f"HTTP {status} from {url}")]}
    if status in TRY_LATER and isinstance(document, dict):
        document["retry_after"] = retry_after
    return status, document


def fetch(url: str, token: str, body: Multipart | None = None, *, progress: Reporter | None = None,
          timeout: float = 300) -> tuple[int, bytes, int | None]:
    """(HTTP status, the answer's bytes, Retry-After seconds) of a GET, or a POST of `body`,
    whatever the status; ServerError only when no answer came (refused, reset, timed out)."""
    import urllib.error  # with http and ssl: only when calling the platform
    import urllib.request

    headers = {"Accept": "application/json"} | ({"Authorization": f"{AUTH_SCHEME} {token}"} if token else {})
    data = None
    if body is not None:
        headers |= {"Content-Type": body.content_type, "Content-Length": str(len(body))}
        data = body.chunks(progress)
    request = urllib.request.Request(url, data=data, headers=headers, method="POST" if body else "GET")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read(), None
    except urllib.error.HTTPError as failure:
        return failure.code, failure.read(), retry_after_seconds(failure.headers.get("Retry-After"))
    except (urllib.error.URLError, OSError, ValueError) as failure:
        raise ServerError(f"{url}: {getattr(failure, 'reason', failure)}") from None


def retry_after_seconds(value: str | None) -> int | None:
    """Retry-After as seconds: the header is a number of seconds or an HTTP date."""
    if not value:
        return None
    if value.strip().isdigit():
        return int(value)
    from datetime import datetime, timezone
    from email.utils import parsedate_to_datetime

    try:
        return max(0, round((parsedate_to_datetime(value) - datetime.now(timezone.utc)).total_seconds()))
    except (TypeError, ValueError):
        return None
