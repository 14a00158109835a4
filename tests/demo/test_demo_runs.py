"""The demo's runs are made on every core and come out exactly as made one after another."""
from cupboard.demo.data import synthetic_subset
from cupboard.demo.runs import RunSpec, demo_runs, make_runs


def test_runs_made_in_parallel_equal_runs_made_in_turn():
    pieces = {code: synthetic_subset(code, count=6) for code in ("sw", "te")}
    specs = [RunSpec(f"system-{n}", 0.3 + 0.1 * n, 0.08, f"team-{n % 2}", "Cup / dev", pieces, 20) for n in range(5)]
    made = demo_runs(specs)
    assert made == [make_runs(spec) for spec in specs]
    assert len({runs["sw"] for runs in made}) == 5  # each system its own run
