"""`make bench-web` part (p): every page and file of a competition, anonymous and logged in,
beside a static file, each with its goal met or missed (issue 35; docs/benchmarks.md,
"Web benchmark").

Goals: an anonymous URL at >= 50% of the static file's rate with p99 <= 50 ms at c=10 and no
error at c=50; a logged-in URL (a team member) at >= 50% of the anonymous rate of the same
URL (the submission page and "My submissions", which anonymous visitors do not get, of the
anonymous board page) with p99 <= 50 ms; each reference rate is measured just before the URL
it is held to, since a busy machine's speed moves within a run; a just-scored submission's page answering its
first byte within 200 ms on its first view.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import urlsplit

ANONYMOUS_GOAL, LOGGED_IN_GOAL, P99_GOAL_MS, FIRST_BYTE_GOAL_MS = 0.5, 0.5, 50, 200
WARM_REQUESTS = 8


def _server_cpu(port: str) -> float:
    """CPU seconds used so far by the gunicorn serving `port` (its master and workers): what a
    request costs the server, which the machine's other load inflates far less than its rate."""
    found = subprocess.run(["pgrep", "-f", "--", f"bind 127.0.0.1:{port}"], capture_output=True, text=True).stdout
    pids = found.split()
    for pid in list(pids):
        pids += subprocess.run(["pgrep", "-P", pid], capture_output=True, text=True).stdout.split()
    ticks = 0
    for pid in set(pids):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        ticks += int(fields[11]) + int(fields[12])  # utime, stime
    return ticks / os.sysconf("SC_CLK_TCK")


def _idle(port: str, timeout: float = 30) -> None:
    """Wait until the server has used no CPU for a while: a wrk run leaves the requests of the
    connections it closed queued at the listening socket, and gunicorn answers each of them
    (to nobody) before the next one; a request sent at once waits behind them (at c=50, 1.5-2.7 s
    at load 12)."""
    deadline, before = time.monotonic() + timeout, _server_cpu(port)
    while time.monotonic() < deadline:
        time.sleep(0.3)
        now = _server_cpu(port)
        if now == before:
            return
        before = now


def measure(url: str, connections: int, cookie: str | None, seconds: int) -> tuple[float, float, int, float]:
    """wrk at `connections` for `seconds`, as browsers ask (gzip): (requests/s, p99 ms, errors,
    the server's CPU ms per request)."""
    command = ["wrk", "-H", "Accept-Encoding: gzip, deflate, br", f"-t{min(2, connections)}", f"-c{connections}",
               f"-d{seconds}s", "--timeout", "10s", "--latency", url]
    if cookie:
        command[1:1] = ["-H", f"Cookie: {cookie}"]
    port = urlsplit(url).port
    _idle(str(port))  # the last cell's queue answered first: neither its time nor its CPU counted here
    cpu = _server_cpu(str(port))
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    cpu = _server_cpu(str(port)) - cpu
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    rate = float(re.search(r"Requests/sec:\s+([\d.]+)", out).group(1))
    p99 = re.search(r"99%\s+([\d.]+)(us|ms|s)", out)
    p99_ms = float(p99.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[p99.group(2)]
    errors = sum(int(n) for n in re.findall(
        r"(?:Non-2xx or 3xx responses|errors: \w+ \d+, \w+ \d+, \w+ \d+, \w+):? (\d+)", out))
    return rate, p99_ms, errors, cpu * 1000 / max(requests, 1)


def fill_topics(phase, queries: int = 100) -> None:
    """A topics file per subset of `phase` (what its guide, sample zip and archive are made of)."""
    from django.core.files.base import ContentFile

    from cupboard.competitions.models import TopicSet

    for subset in phase.competition.subsets.all():
        content = "".join(f"{subset.code}-{q}\tquery {q}\n" for q in range(queries)).encode()
        name = f"topics.{subset.code}.{phase.slug}.tsv"
        topic_set = TopicSet(phase=phase, subset=subset, original_name=name, query_count=queries,
                             sha256=hashlib.sha256(content).hexdigest())
        topic_set.file.save(name, ContentFile(content), save=True)


def _urls(phase, submission) -> tuple[list[tuple[str, str]], list[tuple[str, str, str]]]:
    """(anonymous (name, url)), (logged in (name, url, the anonymous url it is held to))."""
    from django.urls import reverse

    slug, code = phase.competition.slug, phase.competition.subsets.order_by("position").first().code
    phase_args, contract = [slug, phase.slug], {"competition_slug": slug, "phase_slug": phase.slug}
    board, board_json = reverse("leaderboards:phase", args=phase_args), reverse("leaderboards:export_json", kwargs=contract)
    anonymous = [
        ("competition page", reverse("competitions:detail", args=[slug])),
        ("how to submit", reverse("competitions:how_to_submit", args=[slug])),
        ("Judged@10", reverse("judging:phase_judged", args=phase_args)),
        ("sample submission zip", reverse("competitions:sample_submission", args=phase_args)),
        ("definition API", reverse("submissions:api_definition", kwargs=contract)),
        ("home /", reverse("competitions:list")),
        ("rules", reverse("competitions:page", args=[slug, "rules"])),
        ("history page", reverse("leaderboards:history", args=phase_args)),
        ("commitments", reverse("competitions:commitments", args=[slug])),
        ("feed", reverse("competitions:feed", args=[slug])),
        ("audit log", reverse("audit:log", args=[slug])),
        ("topics file", reverse("competitions:topics", args=[*phase_args, code])),
        ("topics zip", reverse("competitions:topics_archive", args=phase_args)),
        ("competitions API", reverse("submissions:api_competitions")),
        ("leaderboards index", reverse("leaderboards:competition", args=[slug])),
        ("OpenAPI document", reverse("operations:api_openapi")),
        ("board page", board), ("board JSON", board_json),
    ]
    logged_in = [("board page", board, board), ("board JSON", board_json, board_json),
                 ("their submission page", reverse("submissions:detail", args=[submission.pk]), board),
                 ("My submissions", reverse("submissions:mine", args=[slug]), board)]
    return anonymous, logged_in


def _first_byte(base: str, url: str, cookie: str) -> float:
    out = subprocess.run(["curl", "-s", "-o", "/dev/null", "-w", "%{time_starttransfer} %{http_code}",
                          "-H", f"Cookie: {cookie}", "-H", "Accept-Encoding: gzip", base + url],
                         capture_output=True, text=True, check=True).stdout.split()
    assert out[1] == "200", f"{url} answered {out[1]}"
    return float(out[0]) * 1000


def _warm(base: str, url: str, cookie: str | None) -> None:
    """A few requests first, so that each gunicorn worker has rendered what it keeps (with the
    default local-memory cache each worker keeps its own) before anything is timed."""
    for _ in range(WARM_REQUESTS):
        subprocess.run(["curl", "-sf", "--compressed", "-o", "/dev/null", "-H", f"Cookie: {cookie or ''}",
                        base + url], check=False)


def page_rows(base: str, phase, submission, cookie: str, static_url: str, scored: Callable,
              seconds: int) -> list[list[str]]:
    """Table rows of part (p). `scored()` makes a freshly scored submission of the logged-in
    member's team and returns it (its page is then opened once, for the first byte)."""
    anonymous, logged_in = _urls(phase, submission)
    rows = []
    for name, url in anonymous:
        _warm(base, url, None)
        static_rate, _, _, static_cpu = measure(base + static_url, 10, None, seconds)  # beside each: the load moves
        rate, p99, errors, cpu = measure(base + url, 10, None, seconds)
        burst_errors = measure(base + url, 50, None, seconds)[2]
        met = rate >= ANONYMOUS_GOAL * static_rate and p99 <= P99_GOAL_MS and not errors and not burst_errors
        rows.append([name, "anonymous", f"{rate:,.0f}/s", f"{rate / static_rate:.0%} of static ({static_rate:,.0f}/s)",
                     f"{p99:.0f} ms", f"{cpu:.1f} ms ({static_cpu:.1f})", str(errors + burst_errors),
                     "met" if met else "MISSED"])
    for name, url, held_to in logged_in:
        _warm(base, url, cookie)
        reference, _, _, reference_cpu = measure(base + held_to, 10, None, seconds)  # the anonymous rate, beside it
        rate, p99, errors, cpu = measure(base + url, 10, cookie, seconds)
        burst_errors = measure(base + url, 50, cookie, seconds)[2]
        met = rate >= LOGGED_IN_GOAL * reference and p99 <= P99_GOAL_MS and not errors and not burst_errors
        rows.append([name, "logged in", f"{rate:,.0f}/s", f"{rate / reference:.0%} of anonymous"
                     + ("" if held_to == url else " board") + f" ({reference:,.0f}/s)", f"{p99:.0f} ms",
                     f"{cpu:.1f} ms ({reference_cpu:.1f})", str(errors + burst_errors), "met" if met else "MISSED"])
    fresh = scored()
    _idle(str(urlsplit(base).port))  # the page's own first view, not the last cell's queue
    first = _first_byte(base, fresh.get_absolute_url(), cookie)
    rows.append(["a just-scored submission's page, first view", "logged in", "-", "-",
                 f"first byte {first:.0f} ms", "-", "-", "met" if first <= FIRST_BYTE_GOAL_MS else "MISSED"])
    return rows
