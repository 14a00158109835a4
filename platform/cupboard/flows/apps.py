from django.apps import AppConfig


class FlowsConfig(AppConfig):
    name = "cupboard.flows"
    label = "flows"
    verbose_name = "What follows each domain event"

    def ready(self) -> None:
        from . import (
            definition_changed,
            qrels_released,
            rows_written,
            run_finished,
            run_scored,
            run_standing,
            schedule_changed,
            team_changed,
            topics_changed,
        )

        for flow in (run_scored, run_finished, run_standing, qrels_released, schedule_changed, team_changed,
                     definition_changed, topics_changed, rows_written):
            flow.connect()
