"""The walk that proves no host kept a run (tests/e2e/hosts.py) finds what it looks for: a copy
of a run's line anywhere in a var dir, gzip data, anything left in a temp dir; and nothing else."""
import gzip

from tests.e2e.hosts import host_env, run_bytes_on_hosts

RUN = b"".join(b"q%d Q0 doc%d %d %f tag\n" % (1 + i // 10, i, 1 + i % 10, 1 / (1 + i)) for i in range(20))


def test_the_walk_finds_run_bytes_gzip_and_leftover_temp_files(tmp_path):
    for host in ("web", "worker-a"):
        host_env(tmp_path, host)
    (tmp_path / "hosts" / "web" / "heartbeat").write_bytes(b"1764262000")
    assert run_bytes_on_hosts(tmp_path, [RUN]) == []

    (tmp_path / "hosts" / "worker-a" / "private").mkdir()
    (tmp_path / "hosts" / "worker-a" / "private" / "run.txt").write_bytes(b"header\n" + RUN.splitlines(True)[5])
    (tmp_path / "hosts" / "web" / "copy.bin").write_bytes(gzip.compress(b"anything"))
    (tmp_path / "hosts" / "web" / "tmp" / "left-over").write_bytes(b"")
    assert run_bytes_on_hosts(tmp_path, [RUN]) == ["web/copy.bin", "web/tmp/left-over", "worker-a/private/run.txt"]
