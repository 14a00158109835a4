"""The submission page's chart (templates/submissions/detail.html: `{% submission_charts ... as
charts %}`), drawn by this app because it reads the leaderboard: submissions sits on the floor
below leaderboards and never imports it."""
from django import template

from cupboard.charts import as_html

from ..cache import board_state, cached, viewer_class
from ..charts import Baseline, baselines_of, submission_figure
from ..selectors import leaderboard_for

register = template.Library()


@register.simple_tag
def submission_charts(viewer, submission, rows: list[dict]) -> list[str]:
    """The submission's primary metric per subset (`rows` of submissions.selectors.score_tables)
    beside the baselines, taken from the leaderboard as this viewer may see it, so the chart
    shows nothing the pages hide. None for fewer than two subsets. The baselines' rows alone are
    read (a just-scored run's first view must not wait for the whole board, which its scoring
    just changed), once per board version and viewer class (leaderboards/cache.py)."""
    if len(rows) < 2:
        return []
    phase = submission.phase
    metric = phase.competition.primary_metric
    state = board_state(slug=phase.competition.slug, phase_slug=phase.slug, now=viewer.now)

    def read() -> list[Baseline]:
        return baselines_of(leaderboard_for(phase=phase, viewer=viewer, baselines_only=True), metric=metric)
    baselines = cached(state.key(viewer_class(viewer), what="baselines", metric=metric), read) if state else read()
    figure = submission_figure(name=str(submission), values={r["code"]: r["values"].get(metric) for r in rows},
                               baselines=baselines, metric=metric, decimals=viewer.decimals,
                               own_url=submission.get_absolute_url())
    return as_html([figure])
