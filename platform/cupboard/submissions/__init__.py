"""cupboard.submissions."""
