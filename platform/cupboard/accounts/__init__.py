"""cupboard.accounts."""
