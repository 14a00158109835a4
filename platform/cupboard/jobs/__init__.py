"""Work done by Celery workers on a database row: one engine for every kind of job.

Scoring a submission, building a pool export, verifying a phase's scores, sending mails and
carrying out what follows a committed change are all the same machine: a row says what is to
be done, a message carrying only its id is sent to a worker, and the row, not the message,
decides. One name per idea: a row's message is *sent* (`queued_at`) and *sent again* by the
sweep (`resend_after`); a worker *claims* it (`claimed_at`, the fencing token; `claimed_by`),
*beats* while it works (`heartbeat_at`), and each claim is an *attempt*; silent work is *put
back*; work out of attempts is *given up*. Every job row has these columns from the abstract
`jobs.models.JobRow`, so a kind declares behaviour, never column names. The engine gives every kind the
same guarantees:

- **Claim with a fencing token.** A worker takes a row with one conditional UPDATE and
  proceeds only if it changed one row (`job_claim`); the claim writes its instant into the
  row, the token. Every later write of that worker goes through `Claim.rows()`, which
  requires the token: a duplicate delivery finds the row taken or done and does nothing,
  and a worker whose claim was taken over (it froze, the sweeper handed its work on) has
  its late writes refused.
- **Heartbeat and progress.** While a worker works, a thread writes the row's heartbeat
  (`Claim.heartbeat()`), and each step done writes progress (`Claim.progress(done, total)`),
  which pages already show. Work is stale when its worker went silent, not when it was
  claimed long ago; work of a process of this host that no longer exists is taken at once.
- **A stale sweep** (`job_sweep`, run by beat): silent work is queued again, and queued work
  whose message seems lost (sent longer ago than the kind's `resend_after`) is sent again,
  each row at most once per `resend_after` and at most `sweep_limit` rows per sweep. Work
  out of attempts fails, with its last problem: nothing is dropped silently.
- **Send after commit, tolerant of a broker outage** (`job_enqueue`, `job_send`): the row is
  committed first; a broker that is down is logged, and the sweeper sends the message later.

A kind of job is one `JobKind` declaration beside its work function: the model (a `JobRow`),
its waiting and running states, the task, and its limits; flows/jobs.py lists every kind for
the one beat task that sweeps them all. See docs/architecture.md, "Jobs".
This package imports no cupboard app: the apps import it.
"""
from .claims import Claim, beating, job_claim
from .kinds import JobKind
from .sending import job_enqueue, job_send
from .sweep import job_sweep

__all__ = ["Claim", "JobKind", "beating", "job_claim", "job_enqueue", "job_send", "job_sweep"]
