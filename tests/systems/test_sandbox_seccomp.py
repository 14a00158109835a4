"""The sandbox's seccomp filter (cupboard.systems.sandbox_seccomp): the numbers it refuses are the
calls it names, and the program is well formed. That the calls are refused inside the sandbox is
tests/systems/test_sandbox.py's."""
from __future__ import annotations

import os
import re
import struct
from pathlib import Path

import pytest

from cupboard.systems.sandbox_seccomp import REFUSED_X86_64, RET_ALLOW, program

HEADER = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")


@pytest.mark.skipif(not HEADER.exists(), reason=f"{HEADER} is absent (Debian's linux-libc-dev has it)")
def test_the_refused_numbers_are_the_named_calls():
    numbers = dict(re.findall(r"#define __NR_(\w+) (\d+)", HEADER.read_text()))
    assert {name: int(numbers[name]) for name in REFUSED_X86_64} == REFUSED_X86_64


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the filter is written for x86_64")
def test_every_jump_of_the_program_lands_inside_it():
    code = program()
    assert code is not None and len(code) % 8 == 0
    ops = [struct.unpack("<HBBI", code[i:i + 8]) for i in range(0, len(code), 8)]
    for index, (op, jt, jf, _) in enumerate(ops):
        if op & 0x07 == 0x05:  # a jump
            assert index + 1 + max(jt, jf) < len(ops)
    assert ops[-2] == (0x06, 0, 0, RET_ALLOW) and ops[-1][3] & 0xFFFF == 1  # allow, then EPERM
    # The comparisons after the architecture check: each jumps to the EPERM answer when it matches.
    refused = {k for index, (op, jt, _, k) in enumerate(ops) if op == 0x15 and index > 1 and index + 1 + jt == len(ops) - 1}
    assert refused == set(REFUSED_X86_64.values())
