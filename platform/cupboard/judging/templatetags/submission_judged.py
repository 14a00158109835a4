"""The submission page's Judged@10 section (templates/submissions/detail.html:
`{% submission_judged viewer submission %}`), rendered by this app, which keeps Judged@10:
submissions sits on the floor below judging and never imports it."""
from django import template

from ..judged import submission_judged as judged_rows

register = template.Library()


@register.inclusion_tag("judging/_submission_judged.html")
def submission_judged(viewer, submission) -> dict:
    """Judged@10 per subset the viewer sees, once the submission is scored (judging/judged.py)."""
    judged = judged_rows(viewer, submission) if submission.status == "scored" else None
    return {"judged": judged, "judged_far_below": any(row["far_below"] for row in judged or ())}
