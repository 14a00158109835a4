"""The measure registry (evaluator/measures.py) against trec_eval and the engines: the trec_eval
names it declares are trec_eval's own (read from its source and answered by the built binary
with the evaluator's values), and every engine a measure lists computes it, the same way."""
from __future__ import annotations

import math
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest

from evaluator import reference
from evaluator.engines import check
from evaluator.engines import metrics as fast
from evaluator.engines.scoring import Evaluator
from evaluator.measures import FAST, MEASURES, PYTREC, Kernels, parse_metric, trec_eval_measures, trec_name
from evaluator.records import Qrels, Run
from tests.waiting import PATIENCE

from .trec_cases import MEASURES as DIFFERENTIAL_MEASURES

# Graded labels, a judged query with nothing relevant (q3), one the run omits (q4), one the
# qrels lack (q5); distinct scores, so no engine has a tie to break.
JUDGMENTS = {"q1": {"a": 2, "b": 0, "c": 1, "d": 1, "e": 0}, "q2": {"f": 1, "g": 0}, "q3": {"h": 0}, "q4": {"i": 1}}
RANKED = {"q1": [("b", 5.0), ("a", 4.0), ("x", 3.0), ("c", 2.0), ("e", 1.0)], "q2": [("g", 3.0), ("y", 2.0), ("f", 1.0)],
          "q3": [("h", 1.0), ("z", 0.5)], "q5": [("w", 1.0)]}
DEPTH = 10


def metric_names(measure) -> list[str]:
    """The measure with and without a cutoff, as far as it takes either."""
    return {"none": [measure.name], "required": [f"{measure.name}@3"],
            "optional": [measure.name, f"{measure.name}@3"]}[measure.cutoff]


def declared_trec_names() -> list[str]:
    """Every trec_eval name the registry declares, with cutoffs 1 and 3 where it takes them."""
    return [name for m in MEASURES.values()
            for name in ([m.trec] if m.trec else []) + ([f"{m.trec_cut}_{k}" for k in (1, 3)] if m.trec_cut else [])]


def ours() -> dict[str, np.ndarray]:
    run = Run(np.array([q for q, docs in RANKED.items() for _ in docs], dtype=object),
              np.array([d for docs in RANKED.values() for d, _ in docs], dtype=object),
              np.array([s for docs in RANKED.values() for _, s in docs]))
    names = [*declared_trec_names(), *(n for m in MEASURES.values() for n in metric_names(m))]
    return Evaluator(Qrels(JUDGMENTS), names, depth=DEPTH).per_query_arrays(run)


def trec_eval_source_measures() -> dict[str, tuple[bool, bool]]:
    """{name: (takes cutoffs, summed over queries)} from trec_eval's m_*.c: each declares
    `TREC_MEAS te_meas_x = { "name", "doc", init, calc, acc, avg, ...}`."""
    found = {}
    for path in sorted(reference.SOURCE.glob("m_*.c")):
        for name, body in re.findall(r'TREC_MEAS\s+te_meas_\w+\s*=\s*\{\s*"(\w+)",(.*?)\};', path.read_text(), re.S):
            found[name] = ("_cut" in re.search(r"te_init_meas_\w+", body).group(),
                           "te_calc_avg_meas_empty" in body)
    return found


@pytest.fixture(scope="module")
def source_measures():
    if not (reference.SOURCE / "m_map.c").is_file():
        pytest.skip(f"no trec_eval source at {reference.SOURCE} (set CUPBOARD_TREC_EVAL_SRC)")
    return trec_eval_source_measures()


def test_the_declared_trec_eval_names_are_in_trec_evals_source(source_measures):
    assert len(source_measures) > 40  # the reader found trec_eval's table, not a few stray names
    for m in MEASURES.values():
        for trec, takes_cutoff in ((m.trec, False), (m.trec_cut, True)):
            if trec is None:
                continue
            assert trec in source_measures, f"{m.name}: trec_eval has no measure {trec!r}"
            cut, summed = source_measures[trec]
            assert cut == takes_cutoff, f"{m.name}: trec_eval's {trec} {'takes' if cut else 'takes no'} cutoffs"
            assert summed == (m.summary == "sum"), f"{m.name}: trec_eval's {trec} is {'summed' if summed else 'averaged'}"


def test_trec_eval_answers_to_every_declared_name_with_the_evaluators_value(tmp_path):
    if why := reference.why_not():
        pytest.skip(why)
    (tmp_path / "qrels").write_text("".join(f"{q} 0 {d} {label}\n" for q, docs in JUDGMENTS.items()
                                            for d, label in docs.items()))
    (tmp_path / "run").write_text("".join(f"{q} Q0 {d} {rank} {score} r\n" for q, docs in RANKED.items()
                                          for rank, (d, score) in enumerate(docs, 1)))
    args = [arg for measure in trec_eval_measures(declared_trec_names()) for arg in ("-m", measure)]
    done = subprocess.run([str(reference.trec_eval_binary()), "-c", *args, str(tmp_path / "qrels"), str(tmp_path / "run")],
                          capture_output=True, text=True, timeout=PATIENCE, check=True)
    theirs = {name: float(value) for name, _, value in (line.split() for line in done.stdout.splitlines())}
    assert set(theirs) == set(declared_trec_names())
    values = ours()
    for name, value in theirs.items():
        summed = values[name].sum() if parse_metric(name).measure.summary == "sum" else values[name].mean()
        assert summed == pytest.approx(value, abs=1e-12), name


def test_every_declared_trec_eval_name_is_in_the_differential_corpus():
    """A measure added to the registry is compared with trec_eval query by query on the
    corpus of test_trec_eval_differential.py, not only here."""
    declared = {trec for m in MEASURES.values() for trec in (m.trec, m.trec_cut) if trec}
    covered = {parse_metric(name).measure.trec if parse_metric(name).cutoff is None else name.rpartition("_")[0]
               for name in DIFFERENTIAL_MEASURES}
    assert declared <= covered


def test_the_guide_lists_every_measure_under_its_trec_eval_names():
    """docs/evaluator.md's Measures table: a row per trec_eval name, naming its measure."""
    guide = (Path(__file__).parents[2] / "docs" / "evaluator.md").read_text()
    rows = re.findall(r"^\| `(\w+)` \| `(\w+)", guide.split("## Measures", 1)[1].split("\n## ", 1)[0], re.M)
    listed = {trec.removesuffix("_k"): parse_metric(name.split("@")[0] + ("@1" if "_k" in trec else "")).family
              for trec, name in rows}
    declared = {trec: m.name for m in MEASURES.values() for trec in (m.trec, m.trec_cut) if trec}
    assert listed == declared


@pytest.mark.parametrize("measure", MEASURES.values(), ids=lambda m: m.name)
def test_every_engine_a_measure_lists_computes_it(measure):
    names = metric_names(measure)
    exact = ours()
    assert (measure.name in fast.KERNELS) == (FAST in measure.engines)
    for name in names:
        assert all(map(math.isfinite, exact[name])), name
    trec_names = [trec for name in names if (trec := trec_name(parse_metric(name)))]
    pytrec_eval = pytest.importorskip("pytrec_eval")
    supported = {trec.rpartition("_")[0] if parse_metric(trec).cutoff else trec for trec in trec_names}
    assert (PYTREC in measure.engines) == bool(trec_names and supported <= pytrec_eval.supported_measures), measure
    if PYTREC in measure.engines:
        theirs = check._evaluate(JUDGMENTS, {q: dict(docs) for q, docs in RANKED.items()}, trec_names, 1)
        for name in names:
            if trec := trec_name(parse_metric(name)):
                got = [theirs.get(q, {}).get(trec, 0.0) for q in JUDGMENTS]
                assert got == pytest.approx(exact[name].tolist(), abs=1e-6), name  # pytrec_eval: float32 scores


def test_an_engine_whose_kernels_disagree_with_the_registry_refuses_to_load():
    kernels: Kernels = Kernels(FAST)
    for name in MEASURES:
        if FAST in MEASURES[name].engines and name != "AP":
            kernels.of(name)(len)
    with pytest.raises(RuntimeError, match=r"missing \['AP'\]"):
        kernels.check()
    kernels.of("AP")(len)
    kernels.check()
    kernels.of("BLEU")(len)
    with pytest.raises(RuntimeError, match=r"not declared for it \['BLEU'\]"):
        kernels.check()


@pytest.mark.parametrize("measure", MEASURES.values(), ids=lambda m: m.name)
def test_every_spelling_and_trec_eval_name_parses_back_to_its_measure(measure):
    for spelling in (measure.name, *measure.aliases):
        for text in (spelling, spelling.lower(), spelling.upper()):
            name = text + ("@3" if measure.cutoff == "required" else "")
            assert parse_metric(name).family == measure.name, name
    for trec in ([measure.trec] if measure.trec else []) + ([f"{measure.trec_cut}_7"] if measure.trec_cut else []):
        metric = parse_metric(trec)
        assert metric.family == measure.name and trec_name(metric) == trec
