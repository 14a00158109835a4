"""`make demo` loads the demo for the address it then serves at: `PORT=8123 make demo` makes an
archive and mails that name :8123 (scripts/processes.sh serves there), not settings' :8000."""
import os
import subprocess

from tests.e2e.stack import ROOT


def test_make_demo_loads_it_with_the_site_address_of_the_port_it_serves_on(tmp_path):
    stub = tmp_path / "python"
    stub.write_text('#!/bin/sh\necho "$CUPBOARD_SITE_URL"\n')
    stub.chmod(0o755)
    printed = subprocess.run(["make", "-n", "demo", f"PY={stub}"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout
    (line,) = [line for line in printed.splitlines() if "load_demo" in line]
    env = {name: value for name, value in os.environ.items() if name != "CUPBOARD_SITE_URL"}
    for port, address in (("8123", "http://127.0.0.1:8123"), (None, "http://127.0.0.1:8000")):
        ran = subprocess.run(["sh", "-c", line], env={**env, **({"PORT": port} if port else {})},
                             capture_output=True, text=True, check=True)
        assert ran.stdout.strip() == address, (line, ran.stdout, ran.stderr)
