"""The submission page's chart (templates/submissions/detail.html: `{% submission_charts ... as
charts %}`), drawn by this app because it reads the leaderboard: submissions sits on the floor
below leaderboards and never imports it."""
from django import template

from cupboard.charts import as_html

from ..charts import submission_figure
from ..selectors import leaderboard_for

register = template.Library()


@register.simple_tag
def submission_charts(viewer, submission, rows: list[dict], label: str) -> list[str]:
    """The submission's primary metric per subset (`rows` of submissions.selectors.score_tables)
    beside the baselines, taken from the leaderboard as this viewer may see it, so the chart
    shows nothing the pages hide. None for fewer than two subsets."""
    if len(rows) < 2:
        return []
    metric = submission.phase.competition.primary_metric
    leaderboard = leaderboard_for(phase=submission.phase, viewer=viewer)
    figure = submission_figure(name=label, values={r["code"]: r["values"].get(metric) for r in rows},
                               leaderboard=leaderboard, metric=metric, own_url=submission.get_absolute_url())
    return as_html([figure])
