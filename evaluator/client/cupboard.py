"""`Cupboard`: a cupboard server's API from Python, its tables as pandas DataFrames.

    from evaluator.client import Cupboard
    cb = Cupboard("https://cup.example.org")          # token from $CUPBOARD_TOKEN
    cb.competitions(); cb.topics("miracl", "dev")     # DataFrames
    scores = cb.submit("miracl", "dev", "run.bm25.sw.dev.txt", method_name="BM25")

In the spirit of ir_measures and ranx: a table comes back as a DataFrame (built in
`frames.py`, where pandas is imported, on the first call that needs one), a single object
(a definition, a submission's state) as the API's own dict. `upload` and `wait` are the
steps of `submit` without pandas: `python -m evaluator submit` is built on them, so the
command line and a script send, poll and wait out an outage the same way. Every refusal
is a `CupboardError` carrying the API's `errors` (file, line, column, code, message).
"""
from __future__ import annotations

import io
import os
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union
from urllib.parse import urlencode

from . import api
from .api import TRY_LATER
from .http import CupboardError, Multipart, Reporter, call_api, fetch

if TYPE_CHECKING:
    import pandas as pd

# A path (a folder, "code=path"), a list of them, or {code: run}, a run being a path, a
# DataFrame (ir_measures' or PyTerrier's columns) or {qid: {docid: score}}.
RunFiles = Union[str, "os.PathLike[str]", Sequence[Union[str, "os.PathLike[str]"]], Mapping[str, Any]]
Watch = Callable[[int, dict[str, Any]], None]  # (HTTP status, answer) of each poll while waiting


class Cupboard:
    """One server, one token (default: $CUPBOARD_TOKEN; reading public tables needs none).

    `patience` is how long a read waits out "not now" (HTTP 429 or 503, honouring the
    server's Retry-After) before it gives up with a CupboardError; an upload is never sent
    twice on its own (`CupboardError.retry_after` says when to try again)."""

    def __init__(self, server: str, token: str | None = None, *, timeout: float = 300, patience: float = 120):
        self.server = server.rstrip("/")
        self.token = token if token is not None else os.environ.get(api.TOKEN_ENV, "")
        self.timeout = timeout
        self.patience = patience

    def __repr__(self) -> str:
        return f"Cupboard({self.server!r}, token={'set' if self.token else 'none'})"

    # -- what the server says, as its JSON ---------------------------------------------------

    def get(self, url: str) -> dict[str, Any]:
        """The JSON answer of a GET of `url` (absolute, or a path on the server); a 429 or 503
        is waited out up to `patience` seconds, any other refusal raised."""
        return self._answer(url if "://" in url else self.server + url, patience=self.patience)

    def _answer(self, url: str, body: Multipart | None = None, *, patience: float,
                progress: Reporter | None = None) -> dict[str, Any]:
        """The JSON answer to a GET, or a POST of `body`; "not now" (429, 503: nothing was
        done) asked again after its Retry-After while `patience` lasts, any refusal raised."""
        deadline = time.monotonic() + patience
        while True:
            status, answer = call_api(url, self.token, body, progress=progress, timeout=self.timeout)
            if status < 400:
                return answer
            pause = answer.get("retry_after")
            pause = 2.0 if pause is None else float(pause)
            if status not in TRY_LATER or time.monotonic() + pause > deadline:
                raise CupboardError.refused(url, status, answer)
            time.sleep(pause)

    def definition(self, competition: str, phase: str) -> dict[str, Any]:
        """The phase's definition (api.DEFINITION_FIELDS): subsets, averages, metrics, depths,
        topic variants and the topics files the caller may download."""
        return self.get(api.definition_url(self.server, competition, phase))

    def submission(self, submission_id: int) -> dict[str, Any]:
        """A submission's state and the scores the caller may see (api.ANSWER_FIELDS)."""
        return self.get(api.status_url(self.server, submission_id))

    def leaderboard_json(self, competition: str, phase: str, *, as_of: str | date | None = None,
                         official: bool = False, meta: Mapping[str, object] | None = None) -> dict[str, Any]:
        """The board as the site's leaderboard.json (or the frozen official.json) gives it."""
        if official and (as_of is not None or meta):
            raise ValueError("official results are frozen as published: no as_of or meta filter")
        url = api.board_url(self.server, api.OFFICIAL_ROUTE if official else api.LEADERBOARD_ROUTE, competition, phase)
        query = {f"{api.META_PREFIX}{name}": _text(value) for name, value in (meta or {}).items()}
        if as_of is not None:
            query["as_of"] = as_of.isoformat() if isinstance(as_of, date) else str(as_of)
        return self.get(url + ("?" + urlencode(query) if query else ""))

    def competitions_json(self) -> list[dict[str, Any]]:
        """The competitions the caller may see, each with its phases (api.COMPETITION_FIELDS)."""
        return list(self.get(api.competitions_url(self.server))["competitions"])

    # -- tables ---------------------------------------------------------------------------

    def competitions(self) -> pd.DataFrame:
        """One row per competition the caller may see: slug, title, url, starts_at and its
        phases' slugs (`phases(slug)` gives them as a table)."""
        from .frames import competitions_frame

        return competitions_frame(self.competitions_json())

    def phases(self, competition: str) -> pd.DataFrame:
        """One row per phase of `competition`, in order: slug, name, opens, closes (UTC
        timestamps), is_open, is_final, ... and the addresses of its definition and boards."""
        from .frames import phases_frame

        found = {c["slug"]: c for c in self.competitions_json()}
        if competition not in found:
            raise CupboardError(f"no competition {competition!r}; there are {', '.join(found) or 'none'}",
                                status=404, answer={"errors": [api.error("not_found", f"no competition {competition!r}")]})
        return phases_frame(found[competition]["phases"])

    def history(self, competition: str, phase: str) -> pd.DataFrame:
        """The board's history, long: one row per (instant, team) where the team's rank or primary
        value (Avg, rounded as the viewer sees it) changed, and its last at the latest instant;
        `.attrs` says the metric and every instant."""
        from .frames import history_frame

        return history_frame(self.get(api.board_url(self.server, api.HISTORY_ROUTE, competition, phase)))

    def submissions(self, competition: str, phase: str) -> pd.DataFrame:
        """The caller's team's submissions to the phase (token required), newest first: one row
        each (id, number, method_name, status, created_at...) with its scores as the board's
        columns ("nDCG@10 Avg", "nDCG@10 sw"); the answers themselves in `.attrs["submissions"]`."""
        from .frames import submissions_frame

        return submissions_frame(self.get(api.submissions_url(self.server, competition, phase))["submissions"])

    def topics(self, competition: str, phase: str, subset: str | None = None,
               variant: str | None = None) -> pd.DataFrame:
        """The phase's topics the caller may download as (subset, qid, query), file order kept:
        every subset's, or `subset`'s; the default topic variant's, or `variant`'s."""
        from ..io.topics import read_topics
        from .frames import topics_frame

        definition = self.definition(competition, phase)
        files = chosen_topics(definition, subset=subset, variant=variant)
        return topics_frame([(entry["subset"], read_topics(io.BytesIO(self.download(entry["url"])),
                                                             name=entry["name"])) for entry in files])

    def leaderboard(self, competition: str, phase: str, *, as_of: str | date | None = None,
                    official: bool = False, meta: Mapping[str, object] | None = None) -> pd.DataFrame:
        """One row per run on the board (frames.leaderboard_frame says the columns); the
        board's facts (metrics, subsets, averages, rounded_to, as_of, filter...) in `.attrs`.
        `as_of`: the board at a past instant (a date or ISO 8601 text); `official`: the frozen
        official results; `meta`: the runs whose run metadata has these values, as the page's
        filter ({"training": "zero-shot"})."""
        from .frames import leaderboard_frame

        return leaderboard_frame(self.leaderboard_json(competition, phase, as_of=as_of, official=official, meta=meta))

    # -- submitting -----------------------------------------------------------------------

    def upload(self, competition: str, phase: str, runs: RunFiles, *, method_name: str, description: str = "",
               paper_url: str = "", code_url: str = "", meta: Mapping[str, object] | None = None,
               progress: Reporter | None = None, patience: float = 0,
               release_consent: bool = False, judging_priority: int | None = None,
               topic_fields: Sequence[str] = ()) -> dict[str, Any]:
        """Send runs as a new submission; the server's answer (its id, number, status, url;
        `repeat` when these files were already stored). `runs`: paths (the language read from
        each name, as the server does), or {code: path, DataFrame or dict} (`run_files`).
        Raises CupboardError with the API's errors (file, line) when refused, nothing stored;
        a 429 or 503 (nothing stored either) is sent again after its Retry-After while
        `patience` seconds last (none by default: the command line exits 3 and says when).
        `release_consent`: the run files may go in the phase's public results archive after the
        reveal (its scores are there either way). `judging_priority` (1 first) and `topic_fields`
        (as the topics file names them: query, question, narrative...) say how to pool and read it."""
        fields = {api.METHOD_NAME: method_name, api.DESCRIPTION: description, api.PAPER_URL: paper_url,
                  api.CODE_URL: code_url, **({api.RELEASE_CONSENT: "true"} if release_consent else {}),
                  **({api.JUDGING_PRIORITY: str(judging_priority)} if judging_priority is not None else {}),
                  **({api.TOPIC_FIELDS: ",".join(topic_fields)} if topic_fields else {}),
                  **{f"{api.META_PREFIX}{k}": _text(v) for k, v in (meta or {}).items()}}
        with tempfile.TemporaryDirectory(prefix="cupboard-runs-") as folder:
            files = run_files(runs, folder=Path(folder))
            missing = [str(path) for _, path in files if not path.is_file()]
            if missing:
                raise CupboardError(f"no such file: {', '.join(missing)}", answer={
                    "errors": [api.error("no_such_file", f"no such file: {m}") for m in missing]})
            return self._answer(api.upload_url(self.server, competition, phase), Multipart(fields, files),
                                patience=patience, progress=progress)

    def wait(self, submission: dict[str, Any], *, timeout: float = 900, poll: float = 1.0, backoff: float = 1.5,
             max_poll: float = 15.0, watch: Watch | None = None) -> dict[str, Any]:
        """Poll the submission's state until no worker moves it further (scored, rejected,
        failed) and return it. Polls `poll` seconds apart, growing by `backoff` up to
        `max_poll`; a 429/503 is waited out for its Retry-After (the run is stored), up to
        `timeout` in all. `watch(status, answer)` sees each poll's answer."""
        url = api.status_url(self.server, submission["id"])
        deadline = time.monotonic() + timeout
        pause = poll
        while submission["status"] not in api.DONE:
            if time.monotonic() > deadline:
                raise CupboardError(f"still {submission['status']} after {timeout:.0f} s: {submission.get('url', url)}",
                                    answer={**submission, "errors": [api.error(
                                        "timeout", f"still {submission['status']} after {timeout:.0f} s")]})
            time.sleep(pause)
            pause = min(pause * backoff, max(poll, max_poll))
            status, answer = call_api(url, self.token, timeout=self.timeout)
            if watch:
                watch(status, answer)
            if status in TRY_LATER:
                time.sleep(max(0.0, min(answer.get("retry_after") or 0, deadline - time.monotonic()) - pause))
                continue
            if status != 200:
                raise CupboardError.refused(url, status, answer)
            submission = answer
        return submission

    def submit(self, competition: str, phase: str, runs: RunFiles, *, method_name: str,
               meta: Mapping[str, object] | None = None, wait: bool = True, progress: Reporter | None = None,
               timeout: float = 900, poll: float = 1.0, release_consent: bool = False,
               judging_priority: int | None = None, topic_fields: Sequence[str] = (), **fields: str) -> pd.DataFrame:
        """Upload (a 429 or 503 sent again after its Retry-After, within `patience`), wait for
        the score (unless `wait=False`; `timeout` and `poll` as in `wait`)
        and return it as a DataFrame: one row per average (the site's labels: K.Avg, Avg) and
        subset, one column per metric, as rounded as the site shows it; the submission's state
        in `.attrs["submission"]`. A rejected or failed submission raises CupboardError with
        the reason. `fields`: description, paper_url, code_url."""
        from .frames import scores_frame

        answer = self.upload(competition, phase, runs, method_name=method_name, meta=meta, progress=progress,
                             patience=self.patience, release_consent=release_consent,
                             judging_priority=judging_priority, topic_fields=topic_fields, **fields)
        if wait:
            answer = {**self.wait(answer, timeout=timeout, poll=poll), "url": answer["url"]}
        if answer["status"] in api.UNSUCCESSFUL:
            raise CupboardError(f"submission #{answer['number']} {answer['status']}: {answer.get('status_reason')}",
                                status=200, answer={**answer, "errors": [api.error(
                                    answer["status"], str(answer.get("status_reason") or answer["status"]))]})
        return scores_frame(answer)

    # -- files ------------------------------------------------------------------------------

    def download(self, url: str) -> bytes:
        """A file the site serves (a topics file), as bytes; CupboardError when refused."""
        status, content, retry_after = fetch(url, self.token, timeout=self.timeout)
        if status >= 400:
            raise CupboardError(f"{url}: HTTP {status}", status=status, answer={
                "errors": [api.error("not_found" if status == 404 else "refused", f"HTTP {status} from {url}")],
                "retry_after": retry_after})
        return content


def chosen_topics(definition: dict[str, Any], *, subset: str | None, variant: str | None) -> list[dict[str, Any]]:
    """The definition's topics files of one variant (the default: the first) and, with
    `subset`, of that subset; CupboardError naming what there is when nothing matches."""
    variants = [v["code"] for v in definition.get("topic_variants") or []]
    variant = variant or (variants[0] if variants else None)
    if variant is not None and variants and variant not in variants:
        raise CupboardError(f"no topic variant {variant!r}; this phase has {', '.join(variants)}",
                            answer={"errors": [api.error("no_such_variant", f"no topic variant {variant!r}")]})
    files = [t for t in definition.get("topics") or [] if variant is None or t["variant"] == variant]
    if subset is not None:
        subsets = sorted({t["subset"] for t in files})
        files = [t for t in files if t["subset"] == subset]
        if not files:
            raise CupboardError(f"no topics of subset {subset!r} to download; there are {', '.join(subsets) or 'none'}",
                                answer={"errors": [api.error("no_such_subset", f"no topics of subset {subset!r}")]})
    return files


def run_files(runs: RunFiles, *, folder: Path | None = None) -> list[tuple[str, Path]]:
    """(form field, path) per run file: `files` when the server tells the language from the
    name, `file_<code>` when given as {code: run} or "code=path"; a folder stands for its files.
    A run given as a DataFrame (ir_measures' or PyTerrier's columns, what `evaluator.fuse`
    returns) or a dict is written to `folder` as a TREC file first (evaluator.io's writer)."""
    from ..io.naming import expand_inputs

    if isinstance(runs, Mapping):
        return [(f"{api.FILE_PREFIX}{code}", Path(run) if isinstance(run, (str, os.PathLike))
                 else _written(run, code, folder)) for code, run in runs.items()]
    given = [runs] if isinstance(runs, (str, os.PathLike)) else list(runs)
    return [(f"{api.FILE_PREFIX}{code}" if code else api.FILES, Path(path))
            for code, path in expand_inputs([os.fspath(p) for p in given], known=(), kind="run")]


def _written(run: Any, code: str, folder: Path | None) -> Path:
    """A run held in Python as a TREC file in `folder`: ranks 1..n in trec_eval's order."""
    from ..inputs import run_of
    from ..io.runs import write_run
    from ..records import InputError

    if folder is None:
        raise TypeError(f"the run for {code!r} is not a path: a folder to write it in is needed")
    try:
        parsed = run_of(run)
    except InputError as error:  # a frame without its columns, a repeated document: nothing is sent
        problems = [{**problem.as_dict(), "file": f"{problem.file} for {code}"} for problem in error.problems]
        raise CupboardError(f"the run for {code!r}: {'; '.join(p['message'] for p in problems)}",
                            answer={"errors": problems}) from None
    path = folder / f"run.python.{code}.txt"
    with path.open("w", encoding="utf-8") as handle:
        write_run(parsed, handle, tag="python")
    return path


def _text(value: object) -> str:
    """A metadata value as the form reads it: yes/no for booleans, the rest as written."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)
