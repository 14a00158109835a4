"""The one thing pyproject.toml cannot say: the optional compiled run reader.

`evaluator/io/_runblock.c` parses plainly valid blocks of run lines ~10x faster than the
numpy/pyarrow path. It is optional: where no C compiler is found (the python:3.11-slim
image has none) the build says so and goes on, and `evaluator.io.validation_fast` uses its
numpy/pyarrow path, which gives identical results (tests/evaluator/test_compiled_reader.py).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("evaluator.io._runblock", ["evaluator/io/_runblock.c"], optional=True,
                             extra_compile_args=["-O2"])])
