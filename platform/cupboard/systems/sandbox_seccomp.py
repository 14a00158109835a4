"""A seccomp filter for the sandbox: the system calls a retrieval system never needs answer EPERM.

Namespaces decide what a system can see; the kernel's own interface stays whole, and most kernel
escapes go through a handful of rarely used calls. So, as Docker's default profile does, the
sandbox refuses: mounting and namespace changes (mount, umount2, the new mount API, pivot_root,
unshare, setns), tracing and reading other processes (ptrace, process_vm_*), kernel keyrings, BPF,
perf events, io_uring, userfaultfd, modules, kexec, reboot, swap, clocks, quotas, syslog, file
handles (open_by_handle_at, the "shocker" escape), and the x32 ABI. The filter is a classic BPF
program handed to bwrap (`--seccomp FD`), which loads it just before it runs the command. It is
written here by hand (no libseccomp) for x86_64; on other machines `program()` returns None and the
sandbox runs without it (namespaces, capabilities and rlimits still hold). No Django here.
"""

from __future__ import annotations

import errno
import os
import struct

AUDIT_ARCH_X86_64 = 0xC000003E
X32_BIT = 0x40000000
# x86_64 numbers (asm/unistd_64.h; tests/systems/test_sandbox_seccomp.py checks them against the header).
REFUSED_X86_64 = {
    "acct": 163, "add_key": 248, "bpf": 321, "clock_adjtime": 305, "clock_settime": 227,
    "create_module": 174, "delete_module": 176, "fanotify_init": 300, "finit_module": 313,
    "fsconfig": 431, "fsmount": 432, "fsopen": 430, "fspick": 433, "get_kernel_syms": 177,
    "init_module": 175, "io_uring_enter": 426, "io_uring_register": 427, "io_uring_setup": 425,
    "ioperm": 173, "iopl": 172, "kexec_file_load": 320, "kexec_load": 246, "keyctl": 250,
    "lookup_dcookie": 212, "mount": 165, "mount_setattr": 442, "move_mount": 429,
    "name_to_handle_at": 303, "nfsservctl": 180, "open_by_handle_at": 304, "open_tree": 428,
    "perf_event_open": 298, "pivot_root": 155, "process_vm_readv": 310, "process_vm_writev": 311,
    "ptrace": 101, "query_module": 178, "quotactl": 179, "quotactl_fd": 443, "reboot": 169,
    "request_key": 249, "setns": 308, "settimeofday": 164, "swapoff": 168, "swapon": 167,
    "syslog": 103, "umount2": 166, "unshare": 272, "uselib": 134, "userfaultfd": 323, "ustat": 136,
    "vhangup": 153, "_sysctl": 156,
}

# Classic BPF (linux/filter.h, linux/seccomp.h).
LD_W_ABS, JEQ_K, JGE_K, RET_K = 0x20, 0x15, 0x35, 0x06
RET_ALLOW, RET_KILL_PROCESS, RET_ERRNO = 0x7FFF0000, 0x80000000, 0x00050000
NR_OFFSET, ARCH_OFFSET = 0, 4


def _op(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("<HBBI", code, jt, jf, k)


def program() -> bytes | None:
    """The filter as bwrap reads it (struct sock_filter array), or None where there is none for this machine."""
    if os.uname().machine != "x86_64":
        return None
    numbers = sorted(set(REFUSED_X86_64.values()))
    count = len(numbers)
    refuse = RET_ERRNO | errno.EPERM
    ops = [
        _op(LD_W_ABS, ARCH_OFFSET),
        _op(JEQ_K, AUDIT_ARCH_X86_64, jt=1),  # another ABI (i386 through int 0x80): killed
        _op(RET_K, RET_KILL_PROCESS),
        _op(LD_W_ABS, NR_OFFSET),
        _op(JGE_K, X32_BIT, jt=count + 1),  # x32 calls: refused
    ]
    # The i-th comparison jumps over the rest and the allow to the refusal.
    ops += [_op(JEQ_K, number, jt=count - i) for i, number in enumerate(numbers)]
    ops += [_op(RET_K, RET_ALLOW), _op(RET_K, refuse)]
    return b"".join(ops)
