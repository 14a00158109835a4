"""The scoring engines: the vectorised one (`scoring` with the `metrics` kernels), the
second opinion (`check`, pytrec_eval) and the one that spreads a submission's subsets over
every core (`parallel`).

Nothing is imported here, so the command line can plan jobs (`jobs`) before it imports numpy.
"""
