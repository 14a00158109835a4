"""The scoring engines: the vectorised one (`scoring` with the `metrics` kernels), the
pure-Python one for small collections (`small`), the second opinion (`check`, pytrec_eval)
and the one that spreads a submission's subsets over every core (`parallel`).

Nothing is imported here, so `evaluator.engines.small` runs without numpy or pyarrow.
"""
