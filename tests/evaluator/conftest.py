"""Fixtures shared by the evaluator's tests."""
import pytest

from evaluator.io import compiled


@pytest.fixture(params=["compiled", "numpy"])
def run_reader(request, monkeypatch):
    """Run the test once with the C run reader and once with the numpy/pyarrow one (what
    runs where the extension could not be built): both must give the same results.
    tests/evaluator/test_compiled_reader.py fails when the extension is missing; here its
    cases are skipped, so one missing build is one failure, not hundreds."""
    if request.param == "compiled" and compiled.BUILT is None:
        pytest.skip("the C run reader is not built (test_compiled_reader says why)")
    monkeypatch.setattr(compiled, "COMPILED", compiled.BUILT if request.param == "compiled" else None)
    return request.param
