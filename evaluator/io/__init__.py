"""Reading and validating the evaluator's inputs: runs, qrels and topics, where their bytes
come from (`sources`), the line rules (`validation*`), file naming, and the Arrow/numpy
column helpers the readers share.

Nothing is imported here, so a command imports only the readers it uses (topics need
neither numpy nor pyarrow; qrels and runs need numpy, and pyarrow where the compiled reader is
not built).
"""
