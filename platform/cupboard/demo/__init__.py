"""cupboard.demo: the demo competitions `make demo` loads."""
