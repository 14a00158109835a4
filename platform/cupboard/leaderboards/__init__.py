"""cupboard.leaderboards."""
