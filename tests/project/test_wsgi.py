"""The web process's entry point (cupboard/wsgi.py) loads the URLconf and freezes what it
loaded out of the garbage collector's full collections."""
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PROBE = ("import gc, sys; import cupboard.wsgi; gc.collect(); "
         "print(gc.get_freeze_count(), 'cupboard.submissions.views' in sys.modules, len(gc.get_objects()))")


def test_the_loaded_process_is_frozen_out_of_full_collections():
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'platform'}{os.pathsep}{ROOT}",
           "DJANGO_SETTINGS_MODULE": "cupboard.settings"}
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, cwd=ROOT, capture_output=True, text=True, check=True)
    frozen, views_loaded, still_tracked = out.stdout.split()
    assert views_loaded == "True"  # the URLconf's views, loaded before the freeze
    assert int(frozen) > 50_000 and int(still_tracked) < int(frozen) // 10
