import json

from evaluator.cli import main
from evaluator.io.runs import read_run


def test_it_writes_one_fused_run_per_language_both_systems_cover(tmp_path, capsys):
    a = tmp_path / "run.bm25.sw.txt"
    a.write_text("q1 Q0 1#0 1 10 bm25\nq1 Q0 2#0 2 5 bm25\nq1 Q0 3#0 3 0 bm25\n")
    b = tmp_path / "run.mdpr.sw.txt"
    b.write_text("q1 Q0 2#0 1 0.9 mdpr\nq1 Q0 4#0 2 0.5 mdpr\nq1 Q0 1#0 3 0.1 mdpr\n")
    lonely = tmp_path / "run.bm25.te.txt"
    lonely.write_text("q1 Q0 1#0 1 1 bm25\n")
    out_dir = tmp_path / "fused"
    code = main(["fuse", "--run", str(a), str(lonely), "--run", str(b), "--alpha", "0.5",
                 "--output", str(out_dir), "--format", "json"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0 and document["skipped"] == ["te"]
    lines = (out_dir / "run.hybrid.sw.txt").read_text().split("\n")
    # 2#0: 0.5*0.5 + 0.5*1 = 0.75; 1#0: 0.5*1 + 0 = 0.5; 4#0: 0.5*0.5 = 0.25; 3#0: 0
    assert [line.split()[2] for line in lines if line] == ["2#0", "1#0", "4#0", "3#0"]
    run, report = read_run(out_dir / "run.hybrid.sw.txt", topics={"q1"})
    assert report.ok and run.tag in ("", "hybrid")


def test_it_fuses_any_number_of_systems_with_rrf(tmp_path, capsys):
    paths = []
    for i in range(3):
        path = tmp_path / f"run.s{i}.sw.txt"
        path.write_text(f"q1 Q0 {i}#0 1 2 s{i}\nq1 Q0 9#0 2 1 s{i}\n")
        paths += ["--run", str(path)]
    assert main(["fuse", *paths, "--method", "rrf", "--k", "1", "--output", str(tmp_path / "out")]) == 0
    first = (tmp_path / "out" / "run.rrf.sw.txt").read_text().splitlines()[0].split()
    assert first[2] == "9#0" and float(first[4]) == 3 / 3  # 1/(1+2) three times
    assert main(["fuse", *paths, "--output", str(tmp_path / "x")]) == 2  # hybrid takes two
