"""What follows each domain event, one module per event: the top floor of the apps.

Each module sets its event's handlers (cupboard/events.py) in the order they run; FlowsConfig
sets them all once the apps are ready. This app has no models, views or urls: it only joins
the apps below it, so none of them has to import one above it (docs/architecture.md).
"""
