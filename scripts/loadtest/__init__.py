"""`make loadtest`: cupboard under a deadline rush, worker kills and outages, measured.

Starts a production-shaped stack (gunicorn and Celery workers with debug off) on its own
throwaway PostgreSQL and Redis, loads a MIRACL-shaped competition with four teams, then
uploads realistic 18-language depth-100 submissions through the JSON API while it
(a) rushes and bursts, (b) kills workers with SIGKILL, (c) stops Redis, then PostgreSQL,
for 15 s. It prints one table row per scenario: how uploads were answered, how many
submissions were lost or scored twice, upload and scoring times, and recovery after each
fault. Traffic goes to 127.0.0.1 only; every loop is bounded in count and time; the stack
is torn down at the end whatever happened. Not part of `make test`.

Modules: datasets (generated submissions, cached), servers (own PostgreSQL and Redis),
stack (gunicorn, workers, beat), competition (Django-side set-up, in a subprocess),
uploads (the HTTP client and its thread pool), scenarios, database (reads), report (the table).
"""
