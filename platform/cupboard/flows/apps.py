from django.apps import AppConfig


class FlowsConfig(AppConfig):
    name = "cupboard.flows"
    label = "flows"
    verbose_name = "What follows each domain event"

    def ready(self) -> None:
        from . import run_finished, run_scored

        for flow in (run_scored, run_finished):
            flow.connect()
