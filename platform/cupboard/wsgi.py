"""WSGI entry point (gunicorn cupboard.wsgi).

What a web process holds once it is loaded (Django's apps and models, the URLconf and the views
it imports: some 125,000 objects tracked by the cyclic garbage collector) lives as long as the
process, yet each full collection walked all of it, and the requests queued behind it took that
as latency (the p99 of a kept page; its cost is in docs/benchmarks.md). The
URLconf is loaded here, not by the first request, and all of it is frozen (`gc.freeze`: moved
to a generation no collection visits); whatever the requests make after is collected as before.
"""
import gc
import os

from django.core.wsgi import get_wsgi_application
from django.urls import get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cupboard.settings")
application = get_wsgi_application()
get_resolver().url_patterns  # noqa: B018 - imports the URLconf and the views now, to be frozen with the rest
gc.collect()  # what loading left as garbage goes now, not into the frozen generation
gc.freeze()
