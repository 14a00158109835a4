"""Every row lock goes through cupboard.locking.locked, which is where the lock order is written down."""
from pathlib import Path

import cupboard

PLATFORM = Path(cupboard.__file__).parent


def test_no_code_takes_a_row_lock_outside_the_locking_module():
    offenders = [str(path.relative_to(PLATFORM)) for path in PLATFORM.rglob("*.py")
                 if path.name != "locking.py" and "select_for_update" in path.read_text()]
    assert offenders == []
