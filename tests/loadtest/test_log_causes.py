"""The load test names the exception behind each 500, per scenario, from the stack's logs."""
from scripts.loadtest.logs import causes, mark, scenario_causes, sections

WEB = """Internal Server Error: /submissions/api/loadtest/dev/
Traceback (most recent call last):
  File "x.py", line 1, in f
psycopg.errors.DeadlockDetected: deadlock detected
DETAIL:  Process 4242 waits for ShareLock on transaction 5151

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "y.py", line 2, in g
django.db.utils.OperationalError: deadlock detected
Internal Server Error: /submissions/api/loadtest/dev/
Traceback (most recent call last):
FileNotFoundError: [Errno 2] No such file or directory: '/tmp/a/run.sw.txt'
"""


def test_it_counts_each_error_once_by_the_end_of_its_chain():
    assert causes(WEB) == {"django.db.utils.OperationalError: deadlock detected": 1,
                           "FileNotFoundError: [Errno 2] No such file or directory: '...'": 1}


def test_it_counts_chained_tracebacks_in_worker_logs_once():
    assert causes(WEB, start="Traceback (most recent call last):") == {
        "django.db.utils.OperationalError: deadlock detected": 1,
        "FileNotFoundError: [Errno 2] No such file or directory: '...'": 1}


def test_it_splits_a_log_by_scenario(tmp_path):
    log = tmp_path / "gunicorn.log"
    log.write_text("before\n")
    mark([log], "rush")
    log.write_text(log.read_text() + WEB)
    mark([log], "redis")
    assert set(sections(log)) == {"rush", "redis"}
    assert "deadlock" in sections(log)["rush"] and sections(log)["redis"] == ""


def test_it_reports_the_supervisors_restarts_per_scenario(tmp_path):
    web, worker = tmp_path / "gunicorn.log", tmp_path / "worker0.log"
    web.write_text("")
    worker.write_text("")
    mark([web, worker], "kills")
    worker.write_text(worker.read_text() + "supervise: celery exited with status -9; starting it again in 1 s\n")
    mark([web, worker], "redis")
    worker.write_text(worker.read_text() + "supervise: celery exited with status 1; starting it again in 1 s\n")
    notes = scenario_causes(web, [worker])
    assert notes == {"kills": ["cupboard.supervise started celery again after: 1x status -9"],
                     "redis": ["cupboard.supervise started celery again after: 1x status 1"]}
