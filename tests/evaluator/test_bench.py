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
