"""From a scenario's uploads and its rows in the database to one line of the table.

Definitions (docs/benchmarks.md, "Load test"):
- answered: the HTTP status of each upload's one try; "no answer" is a reset, a refused
  connection or a timeout.
- lost: an upload whose submission row exists (whatever it was answered, a 5xx or nothing
  included) but is not `scored` 3 minutes after the scenario's last upload ended (every
  run sent is valid, so failed or rejected counts as lost too); or an upload answered
  2xx with no row; or one with no answer and no row (the participant cannot know).
- duplicated: score rows repeated for a (submission, subset, metric), plus leaderboard rows
  repeated for a submission.
- upload time: of the uploads answered 201. Time to scored: from the row's creation (the
  upload's commit) to `scored_at`.
- recovery after a fault: from its end (a killed worker restarted, a server listening
  again) to the first upload answered 201 after it, and to the moment every submission
  created before it was scored (for worker kills: every submission being scored when it
  was killed); the worst fault of the scenario.
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from .database import Row
from .uploads import Upload

GRACE = 180.0  # seconds after a scenario's last upload by which each of its submissions must be scored


@dataclass
class Fault:
    name: str
    start: float  # wall clock
    end: float
    held: list[int] | None = None  # worker kills: the submissions being scored when it struck


@dataclass
class Scenario:
    name: str
    label: str
    uploads: list[Upload]
    faults: list[Fault] = field(default_factory=list)

    @property
    def ended(self) -> float:
        return max((u.finished for u in self.uploads), default=0.0)


def percentile(values: list[float], q: float) -> float | None:
    """Nearest-rank percentile (q in 0..100); None for no values."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q / 100 * len(ordered)) - 1)]


def is_lost(upload: Upload, row: Row | None, deadline: float) -> bool:
    if row is None:
        return upload.status is None or upload.status in (200, 201)
    return row.status != "scored" or row.scored is None or row.scored > deadline


def recovery(scenario: Scenario, rows: dict[str, Row]) -> tuple[float | None, float | None, int]:
    """(worst seconds to the first 201, worst seconds until the fault's submissions were scored,
    how many of them never were) over the scenario's faults."""
    first_ok, all_scored, never = [], [], 0
    for fault in scenario.faults:
        answers = [u.finished for u in scenario.uploads if u.status == 201 and u.finished >= fault.end]
        first_ok.append(min(answers) - fault.end if answers else float("inf"))
        if fault.held is not None:
            waiting = [r for r in rows.values() if r.id in fault.held]
        else:
            waiting = [r for r in rows.values() if r.created < fault.end]
        done = [r.scored for r in waiting if r.scored is not None]
        never += len(waiting) - len(done)
        all_scored.append(max([0.0] + [t - fault.end for t in done]))
    return (max(first_ok) if first_ok else None, max(all_scored) if all_scored else None, never)


@dataclass
class Line:
    """One row of the table, and the notes that explain it."""

    cells: dict[str, str]
    notes: list[str]


def summarise(scenario: Scenario, rows: dict[str, Row], duplicated: int | None, causes: list[str]) -> Line:
    uploads = scenario.uploads
    statuses = [u.status for u in uploads]
    deadline = scenario.ended + GRACE
    lost = [u for u in uploads if is_lost(u, rows.get(u.method), deadline)]
    upload_times = [u.seconds for u in uploads if u.status == 201]
    to_scored = [r.scored - r.created for r in rows.values() if r.status == "scored" and r.scored is not None]
    first_ok, all_scored, never = recovery(scenario, rows)
    cells = {
        "scenario": scenario.label,
        "sent": str(len(uploads)),
        "201": str(statuses.count(201)),
        "4xx": str(sum(1 for s in statuses if s is not None and 400 <= s < 500)),
        "503": str(statuses.count(503)),
        "500": str(statuses.count(500)),
        "other": _other(statuses),
        "lost": str(len(lost)),
        "dup": "?" if duplicated is None else str(duplicated),
        "upload p50/p95 s": _pair(upload_times),
        "to scored p50/p95/max s": _triple(to_scored),
        "recovery: 201 / all scored s": _recovery(scenario, first_ok, all_scored, never),
    }
    return Line(cells, _notes(scenario, rows, lost) + causes)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return "never" if value == float("inf") else f"{value:.1f}"


def _pair(values: list[float]) -> str:
    return f"{_fmt(percentile(values, 50))} / {_fmt(percentile(values, 95))}"


def _triple(values: list[float]) -> str:
    return f"{_pair(values)} / {_fmt(max(values) if values else None)}"


def _other(statuses: list[int | None]) -> str:
    """Answers that are none of 201, 4xx, 503, 500: each status with its count; `none` = no answer."""
    counted = {}
    for status in statuses:
        if status is None or (status != 201 and status not in (500, 503) and not 400 <= status < 500):
            counted[status] = counted.get(status, 0) + 1
    return ", ".join(f"{counted[s]}x{'none' if s is None else s}" for s in sorted(counted, key=str)) or "0"


def _recovery(scenario: Scenario, first_ok, all_scored, never: int) -> str:
    if not scenario.faults:
        return "-"
    text = f"{_fmt(first_ok)} / {_fmt(all_scored)}"
    return text + (f" ({never} never)" if never else "")


def _notes(scenario: Scenario, rows: dict[str, Row], lost: list[Upload]) -> list[str]:
    """What a reader needs to believe the line: the lost ones' fate, samples of refusals and errors."""
    notes = []
    if lost:
        fates = {}
        for upload in lost:
            row = rows.get(upload.method)
            fate = f"answered {upload.status or 'nothing'}, " + (
                f"row {row.status}" + (" (scored late)" if row.status == "scored" else "") if row else "no row")
            fates[fate] = fates.get(fate, 0) + 1
        notes.append("lost: " + "; ".join(f"{n}x {fate}" for fate, n in sorted(fates.items())))
    errors = {}
    for upload in scenario.uploads:
        if upload.status not in (200, 201):
            kind = f"{upload.status or 'no answer'}" + ("" if upload.status is None else
                                                        f" ({'JSON' if upload.is_json else 'not JSON'}"
                                                        f"{', Retry-After ' + upload.retry_after if upload.retry_after else ''})")
            errors.setdefault(kind, []).append(upload.error)
    for kind, texts in sorted(errors.items()):
        notes.append(f"{len(texts)}x {kind}: {_gist(texts[0])}")
    by_id = {row.id: row for row in rows.values()}
    for fault in scenario.faults:
        if fault.held is not None:
            times = [_fmt(by_id[i].scored - fault.end) if i in by_id and by_id[i].scored else "never"
                     for i in fault.held]
            notes.append(f"{fault.name}: {len(fault.held)} being scored, scored again after "
                         f"{', '.join(times) or '-'} s" + ("" if all(i in by_id for i in fault.held)
                                                             else " (some from an earlier scenario)"))
    cut = sum(1 for upload in scenario.uploads if upload.cut)
    if cut:
        notes.append(f"{cut} upload(s) cut short: the server closed or answered before reading all of it")
    statuses = {}
    for row in rows.values():
        statuses[row.status] = statuses.get(row.status, 0) + 1
    retried = sum(1 for row in rows.values() if row.attempts > 1)
    notes.append("rows: " + ", ".join(f"{n} {s}" for s, n in sorted(statuses.items()))
                 + (f"; {retried} scored more than once (attempts > 1)" if retried else ""))
    return notes


def _gist(text: str) -> str:
    """An HTML page's title, or the first 160 characters of anything else, on one line."""
    title = re.search(r"<title>(.*?)</title>", text, re.S)
    return (f"page {title.group(1).strip()!r}" if title else " ".join(text.split()))[:160]


COLUMNS = ("scenario", "sent", "201", "4xx", "503", "500", "other", "lost", "dup", "upload p50/p95 s",
           "to scored p50/p95/max s", "recovery: 201 / all scored s")


def table(lines: list[Line]) -> str:
    """A Markdown table (it goes into docs/benchmarks.md as printed)."""
    right = {c for c in COLUMNS if c != "scenario"}
    out = ["| " + " | ".join(COLUMNS) + " |",
           "|" + "|".join("---:" if c in right else "---" for c in COLUMNS) + "|"]
    out += ["| " + " | ".join(line.cells[c] for c in COLUMNS) + " |" for line in lines]
    return "\n".join(out)
