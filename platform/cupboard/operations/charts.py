"""The desk's chart: runs scored per five minutes over the last hour, one bar series per phase."""
from .desk import BUCKET, HOUR


def throughput_figure(series: dict[str, list[int]]) -> dict | None:
    if not series:
        return None
    steps = int(HOUR / BUCKET)
    minutes = int(BUCKET.total_seconds() // 60)
    labels = [f"-{(steps - i) * minutes} min" for i in range(steps)]
    return {
        "data": [{"type": "bar", "name": name, "x": labels, "y": counts} for name, counts in series.items()],
        "layout": {"title": {"text": "Runs scored per 5 minutes, last hour"}, "barmode": "stack",
                   "height": 320, "margin": {"l": 40, "r": 10, "t": 40, "b": 60},
                   "yaxis": {"title": {"text": "runs"}, "rangemode": "tozero", "dtick": 1 if max(map(max, series.values())) < 10 else None},
                   "legend": {"orientation": "h", "y": -0.3}},
    }
