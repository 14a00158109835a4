"""cupboard.teams."""
