"""The load test's uploads carry the run metadata the Cup requires: refused otherwise (as
they were, unnoticed, once the Cup began to require it), and read by a driver that runs
without Django's settings."""
import json
import os
import subprocess
import sys
from pathlib import Path

import yaml

from cupboard.competitions.definition import DEFINITIONS_DIR

ROOT = Path(__file__).resolve().parents[2]


def test_every_required_field_is_sent_with_one_of_its_choices_without_django_settings():
    environment = {k: v for k, v in os.environ.items() if k != "DJANGO_SETTINGS_MODULE"}
    code = "import json; from scripts.loadtest.competition import run_metadata; print(json.dumps(run_metadata()))"
    sent = json.loads(subprocess.run([sys.executable, "-c", code], env=environment, cwd=ROOT, capture_output=True,
                                     text=True, check=True).stdout)
    cup = yaml.safe_load((DEFINITIONS_DIR / "miracl-wsdm-cup.yaml").read_text(encoding="utf-8"))
    required = {f"meta_{f['name']}": [c["value"] for c in f["choices"]] for f in cup["run_metadata"] if f.get("required")}
    assert required and set(sent) == set(required)
    assert all(sent[name] in choices for name, choices in required.items())
