"""WSGI entry point (gunicorn cupboard.wsgi)."""
import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "cupboard.settings")
application = get_wsgi_application()
