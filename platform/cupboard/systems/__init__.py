"""Blind evaluation (issue 36): teams submit images, the platform runs them in a sandbox (images.py, sandbox.py)."""
