"""Running a team's unpacked image on hidden topics without trusting it (bubblewrap, no daemon).

What the system sees (docs/systems.md says it to teams):
  /               the image's own files, read-only
  /input/topics/  read-only: one `<lang>.tsv` per language, lines `qid<TAB>query text`
  /input/corpus/  read-only, when the phase has a corpus: JSONL files, one {"docid": ..., "text": ...} a line
  /output/        writable tmpfs of limits.output_bytes: it must write `/output/<lang>.trec`, one TREC run per language
  /tmp            a private tmpfs scratch of limits.scratch_bytes
  /proc, /dev     its own (a PID namespace: it sees only its own processes; /dev has null, zero, urandom...)
and nothing else: no network (a network namespace with only a loopback), no host files, no other
team's files, no database socket, none of the worker's environment (only the image's Env, HOME=/tmp).

How: bwrap (Debian's bubblewrap) makes new user, mount, PID, network, IPC, UTS and cgroup namespaces,
mounts the image's root read-only and the inputs read-only, forbids further user namespaces, and runs
the command. When the runner is root it first drops to an unprivileged uid of its own (no capabilities,
no supplementary groups); rootless runners run it as themselves. As root, the image and the corpus
are first bind-mounted into a staging folder inside a mount namespace of the runner's own (gone with
it), since bwrap resolves its sources as the sandbox uid, which may not search the folders above them.
Limits: rlimits set by prlimit before bwrap starts (CPU seconds, address space, processes, file size,
no core dumps), tmpfs sizes for /output and /tmp, and a watcher (sandbox_watch.py) that adds up the
CPU time, memory and processes of the whole namespace and stops it at the limit or at the wall-clock
limit. Stopping kills bwrap's whole process group; its --die-with-parent and PID namespace take every
process inside down with it.

The output tmpfs lives in the sandbox's mount namespace, which disappears with the sandbox. The runner
opens it (through /proc/CHILD/root) before the command starts, bwrap waiting on --block-fd meanwhile,
and reads the runs from that descriptor afterwards: only regular files directly in /output, with plain
names, are copied to output_dir. Nothing the system makes can point the runner elsewhere.
"""

from __future__ import annotations

import functools
import json
import os
import selectors
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from cupboard.systems import sandbox_seccomp as seccomp
from cupboard.systems.images import Image
from cupboard.systems.sandbox_cgroup import Cgroup
from cupboard.systems.sandbox_files import CorpusUnreadable, check_readable, collect_outputs, stage_topics
from cupboard.systems.sandbox_log import LogTail, Redactor
from cupboard.systems.sandbox_watch import namespace_of, usage_in

TICK = 0.1
LOG_TAIL_CHARS = 4000
#: The uid sandboxes run as when the runner is root: this base plus the runner process's pid modulo
#: 100000, so concurrent runners on a host never share a uid (the process limit counts per uid).
UID_BASE = int(os.environ.get("CUPBOARD_SANDBOX_UID_BASE", "1200000"))
MEMORY_WORDS = ("MemoryError", "Cannot allocate memory", "out of memory", "std::bad_alloc", "failed to allocate")

#: Run as root by `sh -c` in a mount namespace of its own ($1 staging, $2 rootfs, $3 corpus or "", $4 the
#: cgroup.procs files of the execution's cgroup or ""): the bind mounts vanish with the namespace; the
#: process joins the cgroup before bwrap exists, so whatever bwrap starts is in it from its first instant;
#: then the rest of the arguments run as the sandbox uid.
_MOUNT_AND_DROP = (
    'set -e; for procs in $4; do echo $$ > "$procs"; done; '
    'mount --bind "$2" "$1/root"; if [ -n "$3" ]; then mount --bind "$3" "$1/corpus"; fi; shift 4; exec "$@"'
)

#: What a team reads for each stopped_for.
REASONS = {
    "time": "stopped: it used more CPU time than the limit",
    "memory": "stopped: it used more memory than the limit",
    "output": "stopped: it wrote more than the output limit",
    "processes": "stopped: it started more processes than the limit",
    "wall": "stopped: it ran longer than the wall-clock limit",
}


class SandboxUnavailable(RuntimeError):
    """This host cannot run sandboxes (no bwrap, no user namespaces...): the operator's problem, not the team's."""


@dataclass(frozen=True)
class Limits:
    """Per execution. memory_bytes bounds each process's address space and the namespace's total resident memory."""

    cpu_seconds: int
    memory_bytes: int
    output_bytes: int
    processes: int
    wall_seconds: int
    scratch_bytes: int = 256 * 1024 * 1024


@dataclass(frozen=True)
class Execution:
    """What happened. exit_code is None when the runner stopped the system; stopped_for then says why
    ("time", "memory", "output", "processes", "wall"); log_tail is bounded and redacted (sandbox_log.py)."""

    exit_code: int | None
    stopped_for: str | None
    cpu_seconds: float
    max_rss_bytes: int
    wall_seconds: float
    log_tail: str
    outputs: tuple[str, ...] = ()
    output_bytes: int = 0

    @property
    def reason(self) -> str:
        """One line for the team: why it stopped, or how it ended."""
        if self.stopped_for:
            return REASONS[self.stopped_for]
        if self.exit_code == 0:
            return "finished"
        return f"failed: the command exited with status {self.exit_code}"


def sandbox_uid(runner_pid: int | None = None) -> int:
    """The uid the sandboxes of a runner process run as (when it is root)."""
    return UID_BASE + (os.getpid() if runner_pid is None else runner_pid) % 100_000


def _run_ids() -> tuple[int, int] | None:
    """(uid, gid) to drop to when the runner is root; None when it already is an ordinary user."""
    if os.geteuid() != 0:
        return None
    return sandbox_uid(), sandbox_uid()


@functools.cache
def sandbox_problem() -> str | None:
    """Why this host cannot run sandboxes, or None. Checked once per process (tests skip on it)."""
    ids = _run_ids()
    for tool in ("bwrap", "prlimit", "setpriv") + (("unshare", "mount") if ids else ()):
        if shutil.which(tool, path="/usr/sbin:/usr/bin:/sbin:/bin") is None:
            return f"{tool} is not installed (apt-get install bubblewrap util-linux mount)"
    try:
        done = subprocess.run(
            ["bwrap", "--unshare-all", "--die-with-parent", "--ro-bind", "/", "/", "true"],
            capture_output=True, timeout=30, user=ids and ids[0], group=ids and ids[1],
            extra_groups=[] if ids else None, env={"PATH": "/usr/bin:/bin"},
        )
    except (OSError, subprocess.SubprocessError) as error:
        return f"bwrap could not start: {error}"
    if done.returncode != 0:
        return "bwrap cannot make namespaces here: " + done.stderr.decode(errors="replace").strip()
    return None


def _corpus_readable(corpus: Path) -> None:
    try:
        check_readable(corpus)
    except CorpusUnreadable as error:
        raise SandboxUnavailable(str(error)) from None


def run_system(
    image: Image, *, topics_dir: Path, corpus_dir: Path | None, output_dir: Path, limits: Limits,
    secrets: Iterable[str], log_chars: int = LOG_TAIL_CHARS,
) -> Execution:
    """Run the image's command on the topics; copy the runs it wrote into output_dir (made if missing).

    secrets are the texts withheld from the log tail: the topics' query texts (and anything else the
    team must not see). Raises SandboxUnavailable when the host cannot sandbox; everything the system
    itself does wrong comes back in the Execution.
    """
    problem = sandbox_problem()
    if problem:
        raise SandboxUnavailable(problem)
    if corpus_dir is not None:
        _corpus_readable(Path(corpus_dir))
    redactor = Redactor(secrets)
    Path(output_dir).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="cupboard-sandbox-") as staging:
        stage_topics(Path(topics_dir), Path(staging) / "topics")
        for mount_point in ("root", "corpus"):
            (Path(staging) / mount_point).mkdir(mode=0o755)
        Path(staging).chmod(0o711)
        run = _Run(image, Path(staging), Path(corpus_dir) if corpus_dir is not None else None, limits)
        return run.run(Path(output_dir), redactor, log_chars)


class _Run:
    """One execution: starts bwrap, opens its /output, watches it, and collects what it left."""

    def __init__(self, image: Image, staging: Path, corpus: Path | None, limits: Limits):
        self.image, self.staging, self.corpus, self.limits = image, staging, corpus, limits
        self.ids = _run_ids()
        self.stopped_for: str | None = None
        self.tail = LogTail()
        self.pid = 0
        self.child: int | None = None
        self.namespace: str | None = None
        self.cpu_seen = 0.0
        self.cgroup: Cgroup | None = None
        self.block_w: int | None = None
        self.seccomp_fd: int | None = None

    def _sources(self) -> tuple[str, str | None]:
        """The root and corpus paths as bwrap sees them: when root, bind-mounted into the staging
        directory (in a mount namespace of the runner's own), since bwrap resolves its sources as the
        sandbox uid, which may not search the directories that lead to the real ones."""
        if self.ids is None:
            return str(self.image.rootfs), (str(self.corpus) if self.corpus else None)
        return str(self.staging / "root"), (str(self.staging / "corpus") if self.corpus else None)

    def _bwrap_args(self, block_fd: int, info_fd: int) -> list[str]:
        limits, image = self.limits, self.image
        root, corpus = self._sources()
        args = [
            "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session",
            "--hostname", "sandbox", "--cap-drop", "ALL",
            "--ro-bind", root, "/",
            "--proc", "/proc", "--dev", "/dev",
            "--ro-bind", str(self.staging / "topics"), "/input/topics",
        ]
        if corpus:
            args += ["--ro-bind", corpus, "/input/corpus"]
        args += [
            "--size", str(limits.output_bytes), "--perms", "0755", "--tmpfs", "/output",
            "--size", str(limits.scratch_bytes), "--perms", "1777", "--tmpfs", "/tmp",
            # bwrap's /dev is a tmpfs of no size: shared memory gets one of its own, the rest is read-only.
            "--size", str(limits.scratch_bytes), "--perms", "1777", "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
            "--chdir", image.workdir, "--clearenv",
        ]
        env = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/tmp"}
        env.update(image.env)
        for name, value in env.items():
            args += ["--setenv", name, value]
        if self.seccomp_fd is not None:
            args += ["--seccomp", str(self.seccomp_fd)]
        args += ["--block-fd", str(block_fd), "--info-fd", str(info_fd), "--", *image.command]
        return args

    def _command(self, block_fd: int, info_fd: int) -> list[str]:
        limits = self.limits
        # bwrap's own two processes (outside and the namespace's init) count against the uid's limit too.
        command = [
            "prlimit", f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}", f"--as={limits.memory_bytes}",
            f"--nproc={limits.processes + 2}", f"--fsize={limits.output_bytes}", "--core=0",
            "--", *self._bwrap_args(block_fd, info_fd),
        ]
        # A runner that dies takes bwrap with it (SIGKILL as its parent dies), from before bwrap starts:
        # bwrap's own --die-with-parent only ties the namespace to bwrap, and a runner killed before it
        # let the command start would close the block pipe, which starts the command unwatched.
        if self.ids is None:
            return ["setpriv", "--pdeathsig", "SIGKILL", "--", *command]
        uid, gid = self.ids
        return [
            "unshare", "--mount", "--propagation", "private", "--", "sh", "-c", _MOUNT_AND_DROP, "sh",
            str(self.staging), str(self.image.rootfs), str(self.corpus or ""),
            " ".join(self.cgroup.procs_files()) if self.cgroup else "",
            "setpriv", f"--reuid={uid}", f"--regid={gid}", "--clear-groups", "--inh-caps=-all",
            "--pdeathsig", "SIGKILL", "--", *command,
        ]

    def run(self, output_dir: Path, redactor: Redactor, log_chars: int) -> Execution:
        limits = self.limits
        # tmpfs pages are charged to the cgroup too: /output, /tmp and /dev/shm, and room for bwrap.
        self.cgroup = Cgroup.make(
            memory_bytes=limits.memory_bytes + limits.output_bytes + 2 * limits.scratch_bytes + (64 << 20),
            processes=limits.processes + 2) if self.ids else None
        try:
            return self._run(output_dir, redactor, log_chars)
        finally:
            if self.cgroup is not None:
                self.cgroup.remove()

    def _run(self, output_dir: Path, redactor: Redactor, log_chars: int) -> Execution:
        block_r, block_w = os.pipe()
        info_r, info_w = os.pipe()
        filter_program = seccomp.program()
        if filter_program is not None:
            (self.staging / "seccomp.bpf").write_bytes(filter_program)
            self.seccomp_fd = os.open(self.staging / "seccomp.bpf", os.O_RDONLY | os.O_CLOEXEC)
        try:
            process = subprocess.Popen(
                self._command(block_r, info_w), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT, start_new_session=True, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin"},
                pass_fds=(block_r, info_w) + ((self.seccomp_fd,) if self.seccomp_fd is not None else ()),
            )
        finally:
            for fd in (block_r, info_w, self.seccomp_fd):
                if fd is not None:
                    os.close(fd)
        self.pid = process.pid
        try:
            output_fd = self._start(process, info_r, block_w)
            try:
                return self._watch(process, output_fd, output_dir, redactor, log_chars)
            finally:
                os.close(output_fd)
        except BaseException:
            _kill(process.pid, self.child)  # before block_w closes: its end would let the command start
            if process.returncode is None:
                process.wait()
            raise
        finally:
            if self.block_w is not None:
                os.close(self.block_w)

    def _start(self, process: subprocess.Popen[bytes], info_r: int, block_w: int) -> int:
        """Waits for bwrap to set the sandbox up, opens its /output, then lets the command start."""
        self.block_w = block_w
        with os.fdopen(info_r, "rb") as info_file:
            raw = info_file.read()
        if not raw:
            assert process.stdout is not None
            message = process.stdout.read(4000).decode(errors="replace").strip()
            process.wait()
            raise SandboxUnavailable(f"bwrap failed before the command started: {message}")
        self.child = int(json.loads(raw)["child-pid"])
        rootfs_output = os.stat(self.image.rootfs / "output")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                fd = os.open(f"/proc/{self.child}/root/output", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
            except OSError:
                time.sleep(0.005)
                continue
            mounted = os.fstat(fd)
            if (mounted.st_dev, mounted.st_ino) != (rootfs_output.st_dev, rootfs_output.st_ino):
                self.namespace = namespace_of(self.child)
                os.write(block_w, b"go")
                os.close(block_w)
                self.block_w = None
                return fd
            os.close(fd)  # bwrap has not mounted the tmpfs yet
            time.sleep(0.005)
        raise SandboxUnavailable("bwrap did not set the sandbox up within 30 s")

    def _watch(self, process: subprocess.Popen[bytes], output_fd: int, output_dir: Path,
               redactor: Redactor, log_chars: int) -> Execution:
        started = time.monotonic()
        assert process.stdout is not None
        os.set_blocking(process.stdout.fileno(), False)
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        peak_rss, open_pipe, next_check = 0, True, 0.0
        # os.wait4, not Popen.poll: it returns the resource usage of bwrap and all it reaped.
        while True:
            if open_pipe:
                for _key, _events in selector.select(TICK):
                    data = os.read(process.stdout.fileno(), 1 << 16)
                    if data:
                        self.tail.feed(data)
                    else:
                        selector.unregister(process.stdout)
                        open_pipe = False
            else:
                time.sleep(TICK)
            pid, status, rusage = os.wait4(process.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() >= next_check:
                peak_rss = max(peak_rss, self._check(started))
                next_check = time.monotonic() + TICK
        selector.close()
        process.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - started
        self._drain(process)
        cpu = max(rusage.ru_utime + rusage.ru_stime, self.cpu_seen, self.cgroup.cpu_seconds() if self.cgroup else 0.0)
        outputs, size, full = collect_outputs(output_fd, output_dir, self.limits.output_bytes)
        exit_code: int | None = process.returncode
        stopped_for = self.stopped_for or self._diagnose(exit_code, cpu, full)
        if stopped_for:
            exit_code = None
        return Execution(
            exit_code=exit_code, stopped_for=stopped_for, cpu_seconds=round(cpu, 3), max_rss_bytes=peak_rss,
            wall_seconds=round(wall, 3), log_tail=self.tail.text(redactor, log_chars),
            outputs=tuple(outputs), output_bytes=size,
        )

    def _check(self, started: float) -> int:
        """Stops the sandbox at a limit; returns the namespace's peak resident memory so far."""
        limits = self.limits
        if time.monotonic() - started > limits.wall_seconds:
            self._stop("wall")
            return 0
        if self.namespace is None:
            return 0
        usage = usage_in(self.namespace, leave_out=self.child or 0)
        if self.cgroup is not None:
            usage.cpu_seconds = max(usage.cpu_seconds, self.cgroup.cpu_seconds())
        self.cpu_seen = max(self.cpu_seen, usage.cpu_seconds)
        if usage.cpu_seconds > limits.cpu_seconds:
            self._stop("time")
        elif usage.rss_bytes > limits.memory_bytes or (self.cgroup is not None and self.cgroup.out_of_memory()):
            self._stop("memory")
        elif usage.processes >= limits.processes:
            self._stop("processes")
        return usage.peak_bytes

    def _stop(self, reason: str) -> None:
        if self.stopped_for is None:
            self.stopped_for = reason
        _kill(self.pid, self.child)

    def _drain(self, process: subprocess.Popen[bytes]) -> None:
        assert process.stdout is not None
        try:
            while data := os.read(process.stdout.fileno(), 1 << 16):
                self.tail.feed(data)
        except BlockingIOError:
            pass
        process.stdout.close()

    def _diagnose(self, exit_code: int | None, cpu: float, output_full: bool) -> str | None:
        """Why the kernel stopped it, when the watcher did not: the signal bwrap reports as 128 + n."""
        if self.cgroup is not None and self.cgroup.out_of_memory():
            return "memory"
        if output_full:
            return "output"  # even if it went on and exited 0: some of what it wrote is missing
        if exit_code is None or exit_code == 0:
            return None
        # The kernel sends SIGXCPU at the limit, SIGKILL a second later to a system that ignores it.
        if exit_code == 128 + signal.SIGXCPU or (exit_code == 128 + signal.SIGKILL and cpu >= self.limits.cpu_seconds):
            return "time"
        if exit_code == 128 + signal.SIGXFSZ:
            return "output"
        if any(word in self.tail.raw_text()[-20000:] for word in MEMORY_WORDS):
            return "memory"
        if self.cgroup is not None and self.cgroup.refused_a_process():
            return "processes"
        return None


def _kill(group: int, child: int | None) -> None:
    """SIGKILL to bwrap's process group and to the namespace's init (which takes the namespace with it)."""
    for target in ([child] if child else []):
        try:
            os.kill(target, signal.SIGKILL)
        except OSError:
            pass
    try:
        os.killpg(group, signal.SIGKILL)
    except OSError:
        pass
