"""Running images in the sandbox (cupboard.systems.sandbox) with real bubblewrap: the example system
gives the run it gives by hand, and hostile systems are stopped or contained, with a reason a team
can read and nothing leaked. Skipped, with the reason, where the host cannot make namespaces."""
from __future__ import annotations

import dataclasses
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from cupboard.systems.images import Image, unpack_image
from cupboard.systems.sandbox import Execution, Limits, run_system, sandbox_problem, sandbox_uid
from tests.systems.image_tars import EXAMPLE, example_image
from tests.waiting import wait_until

pytestmark = pytest.mark.skipif(bool(sandbox_problem()), reason=f"no sandbox here: {sandbox_problem()}")

TOPICS = {
    "en": {"101": "blue whale size", "102": "red fox habitat", "103": "zzzz unknown words"},
    "zh": {"201": "东京塔的高度", "202": "长城"},
}
CORPUS = {
    "en": ["The blue whale is the largest animal; its size is unmatched.", "A red fox jumps over a fence.",
           "Foxes live in a habitat of forests and fields.", "Whales sing songs.", "Size matters little."],
    "zh": ["东京塔是日本东京的电波塔，高度为333米。", "长城是中国古代的军事防御工程。", "北京是中国的首都。"],
}
LIMITS = Limits(cpu_seconds=20, memory_bytes=512 << 20, output_bytes=8 << 20, processes=16, wall_seconds=60)
SECRETS = [text for topics in TOPICS.values() for text in topics.values()]


@pytest.fixture(scope="module")
def image(tmp_path_factory) -> Image:
    return unpack_image(example_image(), tmp_path_factory.mktemp("image") / "root", max_bytes=500_000_000)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("inputs")
    (base / "topics").mkdir(mode=0o700)  # the sandbox gets its own copy: these modes do not matter
    (base / "corpus").mkdir()
    for lang, topics in TOPICS.items():
        (base / "topics" / f"{lang}.tsv").write_text("".join(f"{q}\t{t}\n" for q, t in topics.items()))
        (base / "topics" / f"{lang}.tsv").chmod(0o600)
        with open(base / "corpus" / f"{lang}.jsonl", "w") as handle:
            for number, text in enumerate(CORPUS[lang]):
                handle.write(json.dumps({"docid": f"{lang}-{number}", "title": "", "text": text}, ensure_ascii=False) + "\n")
    for path in [base, base / "corpus", *(base / "corpus").iterdir()]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return base / "topics", base / "corpus"


def run(image: Image, inputs, tmp_path: Path, script: str | None = None, **limits) -> Execution:
    """The image as built, or the same root with a hostile `python3 -c script` as its command."""
    if script is not None:
        image = dataclasses.replace(image, command=["python3", "-c", script])
    execution = run_system(image, topics_dir=inputs[0], corpus_dir=inputs[1], output_dir=tmp_path / "out",
                           limits=dataclasses.replace(LIMITS, **limits), secrets=SECRETS)
    wait_until(lambda: not sandbox_processes(), what="no process of the sandbox left")
    assert not leftover_cgroups(), "the sandbox's cgroup is removed"
    return execution


def leftover_cgroups() -> list[Path]:
    return list(Path("/sys/fs/cgroup").glob(f"**/cupboard-sandbox-{os.getpid()}-*"))


def sandbox_processes(runner_pid: int | None = None) -> list[int]:
    """Processes running as the sandbox uid of a runner (this test process by default)."""
    uid = sandbox_uid(runner_pid) if os.geteuid() == 0 else None
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and uid is not None and os.stat(f"/proc/{name}").st_uid == uid:
                found.append(int(name))
        except OSError:
            pass
    return found


def test_the_example_writes_the_runs_it_writes_by_hand(image, inputs, tmp_path):
    execution = run(image, inputs, tmp_path)
    assert (execution.exit_code, execution.stopped_for, execution.reason) == (0, None, "finished")
    assert execution.outputs == ("en.trec", "zh.trec")
    assert 0 < execution.cpu_seconds < LIMITS.cpu_seconds and execution.max_rss_bytes > 1 << 20
    by_hand = tmp_path / "by-hand"
    by_hand.mkdir()
    subprocess.run([sys.executable, EXAMPLE / "bm25.py", "--topics", inputs[0], "--corpus", inputs[1],
                    "--output", by_hand], check=True, capture_output=True)
    for name in ("en.trec", "zh.trec"):
        assert (tmp_path / "out" / name).read_bytes() == (by_hand / name).read_bytes()
    first = (tmp_path / "out" / "en.trec").read_text().splitlines()
    assert first[0].split()[:3] == ["101", "Q0", "en-0"] and "202 Q0 zh-1 1" in (tmp_path / "out" / "zh.trec").read_text()
    assert "en: 5 passages" in execution.log_tail


def test_a_second_execution_gives_the_same_bytes(image, inputs, tmp_path):
    run(image, inputs, tmp_path / "one")
    run(image, inputs, tmp_path / "two")
    for name in ("en.trec", "zh.trec"):
        assert (tmp_path / "one" / "out" / name).read_bytes() == (tmp_path / "two" / "out" / name).read_bytes()


# Hostile systems: each is the example's root with a `python3 -c` command of its own.

PROBE = """
import json, os, socket, sys
found = {}
def attempt(name, action):
    try:
        found[name] = "did: " + repr(action())[:200]
    except Exception as error:
        found[name] = "refused: " + type(error).__name__
"""


def probe(image, inputs, tmp_path, body: str) -> tuple[Execution, dict]:
    script = PROBE + body + "\nopen('/output/probe.json', 'w').write(json.dumps(found))\n"
    execution = run(image, inputs, tmp_path, script)
    assert execution.exit_code == 0, execution.log_tail
    return execution, json.loads((tmp_path / "out" / "probe.json").read_text())


def test_no_network_not_even_the_hosts_services(image, inputs, tmp_path):
    _, found = probe(image, inputs, tmp_path, """
for port in (6379, 5432, 5672, 8000, 22):
    attempt(f"localhost:{port}", lambda: socket.create_connection(("127.0.0.1", port), timeout=2))
attempt("internet", lambda: socket.create_connection(("1.1.1.1", 53), timeout=2))
attempt("dns", lambda: socket.getaddrinfo("pypi.org", 443))
found["interfaces"] = sorted(line.split(":")[0].strip() for line in open("/proc/net/dev").readlines()[2:])
""")
    assert found.pop("interfaces") == ["lo"]
    assert all(result.startswith("refused") for result in found.values()), found


def test_nothing_is_writable_but_output_and_tmp(image, inputs, tmp_path):
    before = sorted(str(p) for p in image.rootfs.rglob("*"))
    _, found = probe(image, inputs, tmp_path, """
for path in ("/app/x", "/etc/x", "/x", "/input/topics/x", "/input/corpus/x", "/usr/bin/x", "/proc/sys/kernel/hostname",
             "/dev/x"):
    attempt(path, lambda: open(path, "w").write("x"))
for path in ("/tmp/x", "/output/x", "/dev/shm/x"):
    attempt(path, lambda: open(path, "w").write("x"))
attempt("chmod", lambda: os.chmod("/app/bm25.py", 0o777))
""")
    assert [found.pop(path) for path in ("/tmp/x", "/output/x", "/dev/shm/x")] == ["did: 1"] * 3
    assert all(result.startswith("refused") for result in found.values()), found
    assert sorted(str(p) for p in image.rootfs.rglob("*")) == before


def test_no_view_of_the_host_other_teams_the_database_or_the_workers_environment(image, inputs, tmp_path, monkeypatch):
    other_team = tmp_path / "team-b"
    other_team.mkdir()
    (other_team / "run.trec").write_text("another team's run")
    database = Path(__file__).resolve().parents[2] / "var" / "db.sqlite3"
    monkeypatch.setenv("CUPBOARD_SECRET_CANARY", "canary-7f3a")
    execution, found = probe(image, inputs, tmp_path, f"""
for path in ({str(other_team / 'run.trec')!r}, {str(database)!r}, "/work/main/pyproject.toml", "/etc/shadow",
             "/root/.bashrc", "/var/run/postgresql/.s.PGSQL.5432", "/proc/1/environ"):
    attempt(path, lambda: open(path).read())
attempt("/work", lambda: os.listdir("/work"))
found["processes"] = sorted(name for name in os.listdir("/proc") if name.isdigit())
found["descriptors"] = sorted(os.listdir("/proc/self/fd"))  # 0, 1, 2 and the listing's own
found["init's descriptors"] = sorted(os.readlink(f"/proc/1/fd/{{fd}}") for fd in os.listdir("/proc/1/fd"))
found["environ"] = dict(os.environ)
found["ids"] = [os.getuid(), os.geteuid()]
found["caps"] = [l.split()[1] for l in open("/proc/self/status") if l.startswith("CapEff")]
""")
    assert found.pop("caps") == ["0000000000000000"] and 0 not in found.pop("ids")
    assert len(found.pop("processes")) <= 3  # bwrap's init, this python, maybe its child: nothing of the host
    assert found.pop("descriptors") == ["0", "1", "2", "3"]  # nothing of the runner's (the block pipe, the filter)
    # bwrap's init holds /dev/null, the log pipe and an eventfd: no handle on a host folder to climb out by.
    assert all(not target.startswith("/") or target == "/dev/null" for target in found.pop("init's descriptors"))
    environ = found.pop("environ")
    assert "CUPBOARD_SECRET_CANARY" not in environ and set(environ) <= {"PATH", "HOME", "PWD", "PYTHONDONTWRITEBYTECODE", "LANG"}
    # The sandbox's init (bwrap) has the runner's minimal environment, not the worker's.
    assert "CUPBOARD" not in found.pop("/proc/1/environ")
    assert all(result.startswith("refused") for result in found.values()), found
    assert "canary" not in execution.log_tail and "another team" not in json.dumps(found)


@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the seccomp filter is written for x86_64")
def test_the_calls_a_system_never_needs_are_refused(image, inputs, tmp_path):
    _, found = probe(image, inputs, tmp_path, """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
def call(number):
    ctypes.set_errno(0)
    result = libc.syscall(number, 0, 0, 0, 0, 0)
    return (result, ctypes.get_errno())
for name, number in [("unshare", 272), ("mount", 165), ("ptrace", 101), ("keyctl", 250), ("bpf", 321),
                     ("io_uring_setup", 425), ("open_by_handle_at", 304), ("setns", 308), ("x32 getpid", 0x40000027)]:
    found[name] = call(number)
found["getpid"] = call(39)
""")
    assert found.pop("getpid")[0] > 0
    assert all(result == [-1, 1] for result in found.values()), found  # EPERM


def test_a_fork_bomb_is_stopped_at_the_process_limit(image, inputs, tmp_path):
    execution = run(image, inputs, tmp_path, "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
                    processes=8, wall_seconds=30)
    assert (execution.stopped_for, execution.exit_code) == ("processes", None)
    assert "processes than the limit" in execution.reason and execution.wall_seconds < 30


def test_memory_beyond_the_limit_stops_it(image, inputs, tmp_path):
    execution = run(image, inputs, tmp_path, "blocks = []\nwhile True:\n    blocks.append(bytearray(16 << 20))\n",
                    memory_bytes=256 << 20)
    assert execution.stopped_for == "memory" and "memory" in execution.reason
    assert execution.max_rss_bytes < 300 << 20


def test_memory_spread_over_processes_is_added_up(image, inputs, tmp_path):
    script = ("import os, time\nfor _ in range(5):\n    if os.fork() == 0:\n        block = bytearray(100 << 20)\n"
              "        block[::4096] = b'x' * len(block[::4096])\n        time.sleep(60)\ntime.sleep(60)\n")
    execution = run(image, inputs, tmp_path, script, memory_bytes=256 << 20, wall_seconds=50)
    assert execution.stopped_for == "memory" and execution.wall_seconds < 50


def test_cpu_time_beyond_the_limit_stops_it(image, inputs, tmp_path):
    execution = run(image, inputs, tmp_path, "while True:\n    pass\n", cpu_seconds=1, wall_seconds=60)
    assert execution.stopped_for == "time" and "CPU time" in execution.reason
    assert 0.8 <= execution.cpu_seconds < 5 and execution.wall_seconds < 30


def test_sleeping_past_the_wall_limit_stops_it(image, inputs, tmp_path):
    execution = run(image, inputs, tmp_path, "import os, time\nos.setsid() if os.fork() == 0 else None\ntime.sleep(600)\n",
                    wall_seconds=2)
    assert execution.stopped_for == "wall" and 2 <= execution.wall_seconds < 10 and execution.cpu_seconds < 1


def test_writing_more_than_the_output_limit_stops_it(image, inputs, tmp_path):
    script = "import os\nwith open('/output/en.trec', 'w') as out:\n    while True:\n        out.write('1 Q0 d 1 1.0 x\\n' * 1000)\n"
    execution = run(image, inputs, tmp_path, script, output_bytes=1 << 20)
    assert execution.stopped_for == "output" and "output limit" in execution.reason
    assert (tmp_path / "out" / "en.trec").stat().st_size <= 1 << 20


def test_many_files_are_bounded_by_the_output_limit_as_a_whole(image, inputs, tmp_path):
    script = "for n in range(100):\n    open(f'/output/{n}.trec', 'w').write('x' * (200 << 10))\n"
    execution = run(image, inputs, tmp_path, script, output_bytes=1 << 20)
    assert execution.stopped_for == "output"
    assert sum(p.stat().st_size for p in (tmp_path / "out").iterdir()) <= 1 << 20


def test_the_topics_printed_into_the_log_are_withheld(image, inputs, tmp_path):
    script = ("import glob\nfor path in sorted(glob.glob('/input/topics/*.tsv')):\n    text = open(path).read()\n"
              "    print(text)\n    print(text.upper())\n    print(' '.join(text.split()))\n"
              "    print([w for line in text.splitlines() for w in line.split('\\t')[1].split()])\n"
              "print('done reading')\n")
    execution = run(image, inputs, tmp_path, script)
    assert execution.exit_code == 0 and "done reading" in execution.log_tail and "[withheld]" in execution.log_tail
    tail = execution.log_tail.casefold()
    for text in SECRETS:
        for word in text.split():
            assert word.casefold() not in tail or len(word) < 4, word
    for text in TOPICS["zh"].values():
        assert not any(text[i:i + 2] in tail for i in range(len(text) - 1))


def test_links_and_odd_files_in_output_are_not_followed(image, inputs, tmp_path):
    script = ("import os\nos.symlink('/etc/passwd', '/output/en.trec')\nos.mkfifo('/output/zh.trec')\n"
              "os.mkdir('/output/sub')\nopen('/output/sub/x.trec', 'w').write('x')\nopen('/output/.hidden', 'w').write('x')\n"
              "open('/output/ok.trec', 'w').write('fine')\n")
    execution = run(image, inputs, tmp_path, script)
    assert execution.outputs == ("ok.trec",) and sorted(os.listdir(tmp_path / "out")) == ["ok.trec"]


RUNNER = """
import dataclasses, sys
from pathlib import Path
from cupboard.systems.images import Image
from cupboard.systems.sandbox import Limits, run_system
image = Image(sha256="", command=["python3", "-c", "import time; print('started', flush=True); time.sleep(600)"],
              env={}, workdir="/", rootfs=Path(sys.argv[1]))
run_system(image, topics_dir=Path(sys.argv[2]), corpus_dir=None, output_dir=Path(sys.argv[3]),
           limits=Limits(cpu_seconds=60, memory_bytes=256 << 20, output_bytes=1 << 20, processes=8, wall_seconds=600),
           secrets=[])
"""


def system_running(runner_pid: int) -> bool:
    """Is the system's own command (not bwrap) running in the sandbox of this runner?"""
    for pid in sandbox_processes(runner_pid):
        try:
            if Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"python3\0"):
                return True
        except OSError:
            pass
    return False


@pytest.mark.skipif(os.geteuid() != 0, reason="a rootless runner's sandbox runs as the runner's own uid: nothing to tell apart")
@pytest.mark.parametrize("moment", ["setting-up", "running"])
def test_a_runner_killed_mid_execution_leaves_nothing_running(image, inputs, tmp_path, moment):
    """Killed while bwrap sets the sandbox up (a bwrap blocked on its parent's signal would wait
    forever), or while the system runs. What its SIGKILL-on-parent-death chain does not take down, the
    next execution on the host does: it removes a dead runner's cgroup and kills what is in it."""
    runner = subprocess.Popen([sys.executable, "-c", RUNNER, image.rootfs, inputs[0], tmp_path / "out"])
    try:
        if moment == "running":
            wait_until(lambda: system_running(runner.pid), what="the system running in its sandbox", every=0.01)
        else:
            wait_until(lambda: sandbox_processes(runner.pid), what="bwrap started", every=0.002)
    finally:
        runner.kill()
        runner.wait()
    run(image, inputs, tmp_path / "next", "print('ok')")
    wait_until(lambda: not sandbox_processes(runner.pid), what="every process of the killed runner's sandbox gone",
               seconds=60)
    assert not list(Path("/sys/fs/cgroup").glob(f"**/cupboard-sandbox-{runner.pid}-*"))


ROOTLESS_RUNNER = """
import json, sys
from pathlib import Path
from cupboard.systems.images import unpack_image
from cupboard.systems.sandbox import Limits, run_system
base = Path(sys.argv[1])
image = unpack_image(base / "image.tar", base / "root", max_bytes=500_000_000)
execution = run_system(image, topics_dir=base / "topics", corpus_dir=base / "corpus", output_dir=base / "out",
                       limits=Limits(cpu_seconds=20, memory_bytes=512 << 20, output_bytes=8 << 20, processes=16,
                                     wall_seconds=60), secrets=[])
print(json.dumps([execution.exit_code, execution.stopped_for, list(execution.outputs)]))
"""


@pytest.mark.skipif(os.geteuid() != 0 or not Path("/usr/bin/python3").exists(),
                    reason="needs root to become another user, and Debian's /usr/bin/python3")
def test_a_rootless_runner_runs_the_example_as_itself(image, inputs, tmp_path):
    """The runner as an ordinary user (the Docker image's `cupboard`): no uid to drop to, no bind
    mounts, no cgroup; bwrap makes the user namespace itself. The sandbox modules need no Django, so a
    bare interpreter runs them (a `cupboard` package of just `systems`)."""
    user = 1_100_000 + os.getpid() % 1000
    base = Path(tempfile.mkdtemp(prefix="rootless-runner-"))
    try:
        (base / "stub" / "cupboard").mkdir(parents=True)
        (base / "stub" / "cupboard" / "__init__.py").write_text("")
        (base / "stub" / "cupboard" / "systems").symlink_to(Path(__file__).resolve().parents[2] / "platform/cupboard/systems")
        work = base / "work"
        shutil.copytree(inputs[0], work / "topics")
        shutil.copytree(inputs[1], work / "corpus")
        shutil.copyfile(example_image(), work / "image.tar")
        for path in [work, *work.rglob("*")]:
            os.chown(path, user, user)
        base.chmod(0o755)
        done = subprocess.run(
            ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "/usr/bin/python3", "-c", ROOTLESS_RUNNER, work],
            env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(base / "stub"), "PYTHONDONTWRITEBYTECODE": "1"},
            capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout.splitlines()[-1]) == [0, None, ["en.trec", "zh.trec"]]
        run(image, inputs, tmp_path)  # the same as root
        for name in ("en.trec", "zh.trec"):
            assert (work / "out" / name).read_bytes() == (tmp_path / "out" / name).read_bytes()
    finally:
        shutil.rmtree(base, ignore_errors=True)
