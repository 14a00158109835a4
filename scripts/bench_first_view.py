"""A first view of a leaderboard in chromium with an empty cache (docs/benchmarks.md, "A first
leaderboard view on the demo"). Not part of `make test`.

Against a running site (`make demo`, or BENCH_VIEW_URL), each run opens the page in a fresh
browser context (nothing cached) at a laptop's and a phone's width and reads the page's own
timeline: the first byte, the first contentful paint (the table), DOM ready, and the mark
static/charts.js sets once every chart is drawn (`charts drawn`), plus the bytes transferred.
It also reads the page's main-thread busy time (chromium's TaskDuration, which a loaded
machine inflates less than the wall clock). Prints one row per width: the median and the
range over BENCH_VIEW_RUNS runs (default 5). BENCH_VIEW_PLOTLY=path/to/plotly.min.js serves
that file in place of the page's plotly bundle (the full one to compare, in the same run).

    python -m scripts.bench_first_view [URL]
"""
from __future__ import annotations

import os
import statistics
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

URL = "http://127.0.0.1:8000/c/miracl-wsdm-cup/dev/leaderboard/"
WIDTHS = {1366: 768, 390: 844}
TIMINGS = """() => {
  const nav = performance.getEntriesByType('navigation')[0];
  const paint = performance.getEntriesByName('first-contentful-paint')[0];
  const drawn = performance.getEntriesByName('charts drawn')[0];
  const bytes = [nav, ...performance.getEntriesByType('resource')].reduce((sum, e) => sum + e.transferSize, 0);
  return {'first byte': nav.responseStart, 'first paint (table)': paint ? paint.startTime : null,
          'DOM ready': nav.domContentLoadedEventEnd, 'charts drawn': drawn ? drawn.startTime : null,
          'charts': document.querySelectorAll('.js-plotly-plot').length, 'MB': bytes / 1e6};
}"""
COLUMNS = ("first byte", "first paint (table)", "DOM ready", "charts drawn", "main thread busy")


def measure(browser, url: str, width: int, height: int, plotly: bytes | None) -> dict:
    """One first view: a new context has an empty cache."""
    context = browser.new_context(viewport={"width": width, "height": height})
    if plotly is not None:
        context.route("**/plotly/*.js", lambda route: route.fulfill(body=plotly, content_type="text/javascript"))
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Performance.enable")
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    page.wait_for_function("performance.getEntriesByName('charts drawn').length > 0", timeout=30_000)
    timings = page.evaluate(TIMINGS)
    metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
    timings["main thread busy"] = metrics["TaskDuration"] * 1000
    context.close()
    if errors:
        raise SystemExit(f"console errors at {width} px: {errors}")
    return timings


def spread(values: list[float]) -> str:
    """The median, and the range when the runs differ, in ms."""
    low, high, middle = min(values), max(values), statistics.median(values)
    return f"{middle:.0f} ms" + (f" ({low:.0f}-{high:.0f})" if high - low >= 1 else "")


def main() -> None:
    url = sys.argv[1] if len(sys.argv) > 1 else os.environ.get("BENCH_VIEW_URL", URL)
    runs = int(os.environ.get("BENCH_VIEW_RUNS", "5"))
    replaced = os.environ.get("BENCH_VIEW_PLOTLY")
    plotly = Path(replaced).read_bytes() if replaced else None
    print(f"{url}, {runs} runs a width, plotly {replaced or 'as served'}, "
          f"load average {os.getloadavg()[0]:.2f} at the start")
    print("| width | " + " | ".join(COLUMNS) + " | charts | transferred |")
    print("|---|" + "---|" * (len(COLUMNS) + 2))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        for width, height in WIDTHS.items():
            results = [measure(browser, url, width, height, plotly) for _ in range(runs)]
            cells = [spread([r[column] for r in results]) for column in COLUMNS]
            print(f"| {width} px | " + " | ".join(cells) + f" | {results[0]['charts']} | {results[0]['MB']:.2f} MB |")
        browser.close()
    print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
