"""The HTTP client of a cupboard server's API: what `python -m evaluator submit` calls.

Standard library only, and apart from the scoring library's core (`evaluator.engines`,
`evaluator.io`), which never talks to a network.
"""
