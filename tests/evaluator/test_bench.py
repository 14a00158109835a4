"""`make bench`'s two sides on a small MIRACL-shaped set: both score every language, agree
to 1e-9, and ours reports the lines it validated."""
from evaluator import bench
from evaluator.synthetic import make_miracl_set


def test_it_scores_the_same_as_pytrec_eval_on_a_small_set(tmp_path):
    make_miracl_set(tmp_path, counts={"sw": 60, "yo": 25}, depth=40)
    ours, theirs = bench.ours(tmp_path), bench.pytrec(tmp_path)
    assert set(ours["means"]) == set(theirs["means"]) == {"sw", "yo"}
    assert ours["lines"] > 0 and ours["seconds"] > 0
    for code, means in ours["means"].items():
        for metric in bench.METRICS:
            assert abs(means[metric] - theirs["means"][code][metric]) < 1e-9
            assert 0 < means[metric] <= 1


def test_each_goal_is_a_bound_from_the_same_sittings_other_tools():
    from evaluator.bench_process import verdict

    assert verdict("1k queries, depth 100", {"evaluator": 0.07, "trec_eval": 0.08, "pytrec_eval": 0.2})[1] == "met"
    assert verdict("1k queries, depth 100", {"evaluator": 0.12, "trec_eval": 0.08, "pytrec_eval": 0.2}) == \
        ("<= trec_eval: <= 0.08 s", "missed by 0.04 s (1.5x)")
    assert verdict("1k queries, depth 1000", {"evaluator": 0.5, "trec_eval": 0.9, "pytrec_eval": 1.0})[1] == \
        "missed by 0.05 s (1.1x)"
    # test-B: a quarter of pytrec_eval, and never above 0.5 s however slow pytrec_eval is
    assert verdict("test-B, depth 100", {"evaluator": 0.45, "pytrec_eval": 1.6})[1] == "missed by 0.05 s (1.1x)"
    assert verdict("test-B, depth 100", {"evaluator": 0.55, "pytrec_eval": 4.0})[1] == "missed by 0.05 s (1.1x)"
    assert verdict("1k queries, depth 100", {"evaluator": 0.1, "pytrec_eval": 0.2})[1] == "not measured (no trec_eval)"


def test_peak_memory_adds_up_the_workers_and_is_not_the_parents():
    """A process holding 100 MB and its worker another 60 MB: the processes' peaks add up
    to at least 160 MB; a small process is not charged the peak of the process measuring it."""
    import sys

    from evaluator.bench_process import run_measured

    script = ("import os, time\nheld = b'x' * (100 << 20)\npid = os.fork()\n"
              "if pid == 0:\n    more = b'y' * (60 << 20)\n    time.sleep(0.3)\n    os._exit(0)\nos.waitpid(pid, 0)\n")
    peaks: dict[int, int] = {}
    assert run_measured([sys.executable, "-c", script], peaks) > 0
    assert len(peaks) == 2 and sum(peaks.values()) >= 160 << 10
    ballast = b"z" * (200 << 20)  # this process's own peak, which ru_maxrss would hand on
    small: dict[int, int] = {}
    run_measured([sys.executable, "-S", "-c", "pass"], small)
    assert 0 < sum(small.values()) < 30 << 10
    del ballast
