"""What must follow a committed change (a board update, a mail, a re-score), kept in an outbox.

`cupboard.events` records a follow-up for each `after_commit` handler of an event it sends, as a
row written in the sender's transaction (models.FollowUp); services.py carries the rows out once
that transaction commits and, when an attempt fails, a worker retries it (a job kind of
cupboard.jobs: claim with a fencing token, retry, stale sweep). See docs/architecture.md, "Flows".
This app imports no cupboard app above floor 0: the apps' handlers are found by their dotted path.
"""
