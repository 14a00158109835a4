"""Reading and validating the evaluator's inputs: runs, qrels and topics, where their bytes
come from (`sources`), the line rules (`validation*`), file naming, and the Arrow/numpy
column helpers the readers share.

Nothing is imported here, so reading topics or qrels for the command line stays free of
numpy and pyarrow until a run is read.
"""
