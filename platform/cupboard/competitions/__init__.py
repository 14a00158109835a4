"""cupboard.competitions."""
