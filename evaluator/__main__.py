"""`python -m evaluator validate|score|fuse|compare|submit` (see evaluator/cli/)."""
import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
