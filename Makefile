# cupboard: `make demo` runs a working competition, `make test` passes the tests.
# Both set up everything they need on a fresh machine (virtualenv, packages, browser).
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PG_URL ?= postgres://postgres@127.0.0.1:5432/cupboard
REDIS_URL ?= redis://127.0.0.1:6379/14
AMQP_URL ?= amqp://guest:guest@127.0.0.1:5672//

.PHONY: install browser sandbox services lint test test-fast test-sqlite test-postgres demo serve bench bench-web bench-bands bench-sandbox bench-per-topic bench-backup loadtest clean

## CI (CI set, as CI services and .ci/run's callers set it) installs without compiling the
## dependencies' bytecode: the tests keep theirs in var/pycache (PYTHONPYCACHEPREFIX, below), which
## ignores site-packages' own, so a fresh clone compiling all 14,600 of their modules was wasted.
PIP_COMPILE := $(if $(CI),--no-compile)

$(VENV)/.installed: pyproject.toml setup.py evaluator/io/_lines.c
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet $(PIP_COMPILE) -e '.[dev,s3]'
	touch $@ $(VENV)/.installed-site

## What the demo runs, alone (make demo): no test or lint tools, no S3 client, and no bytecode
## compiled at install: the demo's processes compile what they import, once, into var/pycache
## (DEMO_ENV), instead of pip compiling every module of the packages (docs/benchmarks.md).
$(VENV)/.installed-site: pyproject.toml setup.py evaluator/io/_lines.c
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet --no-compile -e .
	touch $@

install: $(VENV)/.installed

browser:
	@scripts/ensure-chromium

## bubblewrap, the sandbox that runs teams' systems (docs/systems.md); the sandbox tests skip without it.
sandbox:
	@scripts/ensure-bubblewrap

services:
	@scripts/ensure-services

## The checks first (they fail in seconds), then the two passes side by side: the whole suite on
## SQLite (test-sqlite) in the foreground, the Django side again on PostgreSQL + Redis
## (test-postgres) behind it, its output kept in var/test-postgres.log and printed when both are
## done; it fails if either failed. One after the other, the cores were idle a third of the run
## while end-to-end tests waited on their servers, workers and browsers (docs/development.md).
## They share nothing that collides: the SQLite pass has no PostgreSQL test database, no Redis db of
## the PostgreSQL pass's (14 and 15, one per xdist worker) and no RabbitMQ; the migrated SQLite
## template (var/test-databases) is made under a lock, the cached images and bytecode by renames.
## A command started in a script's background ignores Ctrl-C (SIGINT); `env --default-signal` gives
## the PostgreSQL pass the terminal's Ctrl-C back, so that it stops with the SQLite pass.
test: install browser sandbox services lint
	@mkdir -p var
	@echo "The PostgreSQL pass runs beside the SQLite pass: its output is in var/test-postgres.log, printed at the end."
	@env --default-signal=INT,QUIT $(MAKE) --no-print-directory test-postgres >var/test-postgres.log 2>&1 & postgres=$$!; \
	$(MAKE) --no-print-directory test-sqlite; sqlite=$$?; \
	wait $$postgres; pg=$$?; \
	echo; echo "==== The PostgreSQL pass (var/test-postgres.log) ===="; cat var/test-postgres.log; \
	echo "SQLite pass: $$([ $$sqlite = 0 ] && echo passed || echo FAILED); PostgreSQL pass: $$([ $$pg = 0 ] && echo passed || echo FAILED)"; \
	[ $$sqlite = 0 ] && [ $$pg = 0 ]

## ruff (imports, unused names, likely bugs) and mypy (strict on evaluator/, checked on the platform).
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy evaluator platform/cupboard

## Tests compile the project once, not in every process they start: bytecode goes to var/pycache
## (out of the tree) even where PYTHONDONTWRITEBYTECODE is set (docs/development.md).
TEST_ENV := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/var/pycache
PYTEST := $(TEST_ENV) $(PY) -m pytest -p no:cacheprovider
## Two workers; each test file whole to one of them (its module fixtures built once), the files
## holding slow tests first (tests/conftest.py orders them), so no long test is left for the end.
XDIST := -n 2 --dist loadfile --no-loadscope-reorder

## The daily loop: the SQLite suite without the tests marked slow or browser (docs/development.md).
test-fast: install
	$(PYTEST) $(XDIST) --durations=15 -m "not slow and not browser"

test-sqlite: install
	$(PYTEST) $(XDIST) --durations=25

## Again on PostgreSQL + Redis, the tests PostgreSQL can answer differently from SQLite (the
## `postgres_pass` mark, tests/conftest.py's runs_on_postgres; docs/development.md): those that
## commit for other connections, start real workers, test a migration, or exercise locks' SQL,
## jsonb, raw SQL, connection handling, backups (POSTGRES_FILES). The rest ran on SQLite above.
## The real-worker tests of tests/submissions/test_worker.py run once more through RabbitMQ, the
## other production broker (AMQP_URL, tests/celery_worker.py's each_broker), within the same run
## beside its other tests: they were a second pytest run after it, mostly waiting.
## Its sessions (the tests' and every process they start) commit without waiting for the disk
## (PGOPTIONS, synchronous_commit=off): what other sessions see and when is unchanged, only a
## server crash could lose the last commits; the tests' many small commits each waited for an fsync.
test-postgres: install
	PGOPTIONS="-c synchronous_commit=off" DATABASE_URL=$(PG_URL) CELERY_BROKER_URL=$(REDIS_URL) AMQP_URL=$(AMQP_URL) \
		$(PYTEST) $(XDIST) --durations=25 --ignore=tests/evaluator -m postgres_pass

## The demo runs as a site would (debug off, static files collected), on plain http (scripts/run-demo),
## its bytecode kept in var/pycache as the tests keep theirs (even where PYTHONDONTWRITEBYTECODE is set).
DEMO_ENV := PYTHONDONTWRITEBYTECODE= PYTHONPYCACHEPREFIX=$(CURDIR)/var/pycache
demo: $(VENV)/.installed-site
	$(DEMO_ENV) $(PY) manage.py migrate --noinput
	@# Loaded for the address it is served at (scripts/processes.sh): the archive and mails name it.
	CUPBOARD_SITE_URL=$${CUPBOARD_SITE_URL:-http://127.0.0.1:$${PORT:-8000}} $(DEMO_ENV) $(PY) manage.py load_demo
	$(DEMO_ENV) scripts/run-demo

## An empty site of your own (debug off, gunicorn, worker, beat; the first organizer asked for): docs/organizers.md.
serve: install
	scripts/serve

bench: install
	$(PY) -m evaluator.bench

## Not part of `make test`: the web side at scale on its own PostgreSQL database (docs/benchmarks.md, "Web benchmark").
bench-web: install
	@scripts/ensure-wrk
	$(PY) -m scripts.bench_web

## Not part of `make test`: a burst of 200 runs with rank bands on, on its own PostgreSQL database (docs/benchmarks.md, "Bands at a deadline").
bench-bands: install
	$(PY) -m scripts.bench_bands

## Not part of `make test`: what running a team's system costs on top of the system (docs/benchmarks.md, "Systems sandbox").
bench-sandbox: install sandbox
	$(PY) -m scripts.bench_sandbox

## Not part of `make test`: the per-topic CSVs on a TREC-sized phase, on its own PostgreSQL database (docs/benchmarks.md).
bench-per-topic: install
	$(PY) -m scripts.bench_per_topic

## Not part of `make test`: peak memory of backup and restore, the demo and a larger database (docs/benchmarks.md, "Backup and restore").
bench-backup: install
	$(PY) -m scripts.bench_backup

## Not part of `make test`: 10-12 min on its own PostgreSQL and Redis (docs/benchmarks.md, "Load test").
## LOADTEST_ARGS=--quick for a short run; --data DIR where ../shared/data is elsewhere.
loadtest: install
	$(PY) -m scripts.loadtest $(LOADTEST_ARGS)

clean:
	rm -rf $(VENV) var staticfiles
