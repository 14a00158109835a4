"""cupboard.audit."""
