"""score's usual command lines read without argparse (evaluator/cli/score_argv.py) give the
namespace score's parser gives; any other line is left to the parser (None)."""
import pytest

from evaluator.cli import build_parser, main
from evaluator.cli.score_argv import score_namespace

READ = [
    ["--qrels", "q.txt", "--run", "r.txt"],
    ["--benchmark", "generic", "--metrics", "ndcg_cut_10,recall_100", "--format", "json", "--qrels", "all=q",
     "--run", "all=r"],
    ["--run", "a=r1", "b=r2", "--qrels", "a=q1", "b=q2", "--format", "trec", "--per-query"],
    ["--qrels", "q", "--run", "r", "--depth", "10", "--max-depth", "1000", "--strict", "--format", "csv"],
    ["--format", "table", "--qrels", "q", "--run", "r", "--metrics", "P@5"],
    ["--qrels", "q", "--run", "r", "--residual-qrels", "round1", "sw=round2"],
]
LEFT = [
    ["--help"], ["-h"], ["--qrels", "q"], ["--run", "r"], [],
    ["--qrels", "q", "--run", "r", "--format", "xml"],  # the parser names the choices
    ["--qrels", "q", "--run", "r", "--benchmark", "miracl"],
    ["--qrels", "q", "--run", "r", "--met", "P@5"],  # an abbreviation
    ["--qrels", "q", "--run", "r", "--metrics=P@5"],
    ["--qrels", "q", "--run", "r", "--metrics", "P@5", "--metrics", "P@10"],
    ["--qrels", "q", "--run", "r", "--depth", "-1"], ["--qrels", "q", "--run", "r", "--depth", "ten"],
    ["--qrels", "q", "--run", "r", "--metrics"], ["--qrels", "q", "--run", "r", "--metrics", "a", "b"],
    ["--qrels", "q", "--run", "r", "--topics", "t"], ["--qrels", "q", "--run", "r", "--server", "s"],
    ["--qrels", "q", "--run", "r", "--per-query", "x"], ["q.txt", "--qrels", "q", "--run", "r"],
    ["--qrels", "q", "--run", "r", "--depth", "١٠"],  # digits argparse's int() reads, not ASCII
]


@pytest.mark.parametrize("argv", READ)
def test_it_reads_what_the_parser_reads(argv):
    parsed = vars(build_parser("score").parse_args(["score", *argv]))
    parsed.pop("func")
    quick = score_namespace(argv)
    assert quick is not None and vars(quick) == parsed


@pytest.mark.parametrize("argv", LEFT)
def test_it_leaves_the_rest_to_the_parser(argv):
    assert score_namespace(argv) is None


def test_the_parser_still_answers_what_it_leaves(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["score", "--qrels", "q", "--run", "r", "--format", "xml"])
    assert exit_.value.code == 2 and "invalid choice: 'xml'" in capsys.readouterr().err
