from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class SubmissionsConfig(AppConfig):
    name = "cupboard.submissions"
    label = "submissions"

    def ready(self) -> None:
        """A submission saved or deleted changes its team's runs: the pages kept for the team's
        browsers are reached no more (kept_pages.py; a bulk write tells through RowsWritten: cupboard.flows)."""
        from cupboard.submissions.kept_pages import run_saved
        from cupboard.submissions.models import Submission

        for signal in (post_save, post_delete):
            signal.connect(run_saved, sender=Submission, dispatch_uid=f"kept-runs-{signal is post_save}")
