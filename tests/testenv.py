"""Loaded by pytest before Django (`-p tests.testenv` in pyproject.toml).

Every test session gets its own var/ folder (SQLite file, broker folder, private storage; removed
at its end) and a cheap password hasher, so tests never touch a developer's data and run fast. The
checkout's templates/ and static/ are used wherever pytest is started from. Debug is on (it
is off by default): pages are requested over plain http and no SECRET_KEY is needed.
"""
import atexit
import os
import shutil
import tempfile
from pathlib import Path

if "CUPBOARD_VAR_DIR" not in os.environ:
    # Removed when the process that made it ends (its xdist workers share it and end first): each
    # session left its folder in /tmp, 80 MB a `make test`.
    os.environ["CUPBOARD_VAR_DIR"] = tempfile.mkdtemp(prefix="cupboard-test-")
    atexit.register(shutil.rmtree, os.environ["CUPBOARD_VAR_DIR"], ignore_errors=True)
os.environ.setdefault("CUPBOARD_FAST_PASSWORD_HASHER", "true")
os.environ.setdefault("CUPBOARD_SITE_DIR", str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("CUPBOARD_DEBUG", "true")
# Never a developer's ./staticfiles: its manifest would decide the static names pages print.
os.environ.setdefault("CUPBOARD_STATIC_ROOT", os.path.join(os.environ["CUPBOARD_VAR_DIR"], "staticfiles"))
# xdist workers share one broker URL: each gets its own Redis database, or the real Celery
# workers of two tests running at once take each other's messages (and find no such row).
_broker, _xdist = os.environ.get("CELERY_BROKER_URL", ""), os.environ.get("PYTEST_XDIST_WORKER", "")
if _broker.startswith("redis://") and _xdist[2:].isdigit() and _broker.rpartition("/")[2].isdigit():
    _base, _, _db = _broker.rpartition("/")
    os.environ["CELERY_BROKER_URL"] = f"{_base}/{(int(_db) + int(_xdist[2:])) % 16}"
