"""cupboard settings: one module, every knob an environment variable.

Debug is off unless CUPBOARD_DEBUG=true, and with debug off an installed cupboard (docker/)
requires SECRET_KEY: nothing insecure happens by forgetting a variable. Run from a checkout
(`make serve`, the organizer's commands), a key is made once and kept in var/secret-key. `make demo` and the tests set CUPBOARD_DEBUG=true.
Otherwise the defaults run on a laptop: SQLite in ./var, Celery on a filesystem transport in
./var/broker, run files in ./var/private, static files served by WhiteNoise from the source
folders until collectstatic has run. Production sets DATABASE_URL (PostgreSQL),
CELERY_BROKER_URL (Redis or RabbitMQ) and SECRET_KEY; see docker/.
"""
import os
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

from .envconfig import (
    cache_from_url,
    database_from_url,
    envbool,
    envint,
    envsecret,
    local_secret,
    rates_from_env,
    trusted_proxies_from_env,
)

# The folder holding templates/ and static/: the checkout, or /app in the image (docker/Dockerfile
# sets it). Never derived from this file's path: installed (not editable), this file sits in
# site-packages, far from both.
SITE_DIR = Path(os.getenv("CUPBOARD_SITE_DIR") or Path.cwd()).resolve()
if not (SITE_DIR / "templates").is_dir():
    raise ImproperlyConfigured(f"CUPBOARD_SITE_DIR={SITE_DIR} (default: the current folder) has no templates/ "
                               "folder: run from the checkout or set CUPBOARD_SITE_DIR")
VAR_DIR = Path(os.getenv("CUPBOARD_VAR_DIR", SITE_DIR / "var"))

DEBUG = envbool("CUPBOARD_DEBUG", "false")
# Running from the checkout's own sources (not an installed package, as in docker/): a site on
# this one machine, whose key may live in its var/ folder; production must be given one.
RUNS_FROM_CHECKOUT = Path(__file__).resolve().is_relative_to(SITE_DIR)
SECRET_KEY = envsecret("SECRET_KEY")
if not SECRET_KEY:
    if DEBUG:
        SECRET_KEY = "insecure-development-key-only-used-with-debug-on"
    elif RUNS_FROM_CHECKOUT:
        SECRET_KEY = local_secret(VAR_DIR / "secret-key")
    else:
        raise ImproperlyConfigured("SECRET_KEY (or SECRET_KEY_FILE) is required when CUPBOARD_DEBUG is false")

ALLOWED_HOSTS = [h for h in os.getenv("ALLOWED_HOSTS", "127.0.0.1,localhost,[::1]").split(",") if h]
# A failed CSRF check answers the site's styled 403 page, not Django's bare one (refusals.py).
CSRF_FAILURE_VIEW = "cupboard.refusals.csrf_failure"
CSRF_TRUSTED_ORIGINS = [o for o in os.getenv("CSRF_TRUSTED_ORIGINS", "").split(",") if o]
SITE_URL = os.getenv("CUPBOARD_SITE_URL", "http://127.0.0.1:8000")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.humanize",
    "cupboard.accounts",
    "cupboard.competitions",
    "cupboard.teams",
    "cupboard.submissions",
    "cupboard.leaderboards",
    "cupboard.audit",
    "cupboard.followups",  # what must follow a committed change, in an outbox (cupboard/events.py after_commit)
    "cupboard.notifications",
    "cupboard.judging",
    "cupboard.systems",  # systems phases: teams' images run on hidden topics (systems/, docs/systems.md)
    "cupboard.operations",  # the operators' view: /metrics (operations/metrics.py)
    "cupboard.flows",  # what follows each domain event (cupboard/events.py), above the apps it joins
    "cupboard.demo",
]

MIDDLEWARE = [
    # Before anything reads it: X-Forwarded-Proto from our proxies only (proxies.py).
    "cupboard.proxies.ProxyHeadersMiddleware",
    # First: /healthz and /readyz for load balancers and orchestrators, before host checks (health.py).
    "cupboard.health.HealthMiddleware",
    # Every answer counted by status class for the operators' metrics (tallies.py).
    "cupboard.tallies.ResponseTallyMiddleware",
    # Then: a database or broker outage anywhere below answers 503 with Retry-After (outages.py).
    "cupboard.outages.OutageMiddleware",
    "django.middleware.security.SecurityMiddleware",
    # Every page gets the Content-Security-Policy (csp.py).
    "cupboard.csp.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Below the messages: a follow-up that failed during the view is told on the next page (followups/answers.py).
    "cupboard.followups.answers.FollowUpAnswerMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "cupboard.urls"
WSGI_APPLICATION = "cupboard.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [SITE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {"default": database_from_url(os.getenv("DATABASE_URL", f"sqlite:///{VAR_DIR / 'cupboard.sqlite3'}"))}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]
LOGIN_URL = "accounts:login"
LOGIN_REDIRECT_URL = "competitions:list"
LOGOUT_REDIRECT_URL = "competitions:list"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(os.getenv("CUPBOARD_STATIC_ROOT", SITE_DIR / "staticfiles"))
STATICFILES_DIRS = [SITE_DIR / "static"]
STATICFILES_FINDERS = [
    "django.contrib.staticfiles.finders.FileSystemFinder",
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
]
# Files not collected yet (a checkout, debug on or off) are served from the finders.
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# Run files, topics and hidden qrels live in private storage: never under STATIC or a
# served MEDIA folder. Downloads go through views that check permissions.
PRIVATE_ROOT = Path(os.getenv("CUPBOARD_PRIVATE_ROOT", VAR_DIR / "private"))
_STORAGE_BACKEND = os.getenv("CUPBOARD_STORAGE", "local")
if _STORAGE_BACKEND == "local":
    _private_storage = {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": PRIVATE_ROOT, "base_url": None},
    }
elif _STORAGE_BACKEND == "s3":
    # Workers on other machines read the same bucket (pip install 'cupboard[s3]').
    _private_storage = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": os.environ.get("CUPBOARD_S3_BUCKET", "cupboard"),
            "endpoint_url": os.getenv("CUPBOARD_S3_ENDPOINT_URL") or None,
            "access_key": envsecret("CUPBOARD_S3_ACCESS_KEY"),
            "secret_key": envsecret("CUPBOARD_S3_SECRET_KEY"),
            "default_acl": "private",
            "querystring_auth": True,
            "file_overwrite": False,
            # An object read past this goes to a temporary file (TMPDIR), not memory: the
            # default, 0, kept every object read whole in memory (a backup held each run file).
            "max_memory_size": 5 * 1024 * 1024,
        },
    }
else:
    raise ImproperlyConfigured(f"CUPBOARD_STORAGE={_STORAGE_BACKEND!r}: use local or s3")
STORAGES = {
    "default": _private_storage,
    "private": _private_storage,
    # Once collected: hashed names, gzipped copies, cached for a year (cupboard/staticfiles.py).
    "staticfiles": {"BACKEND": "cupboard.staticfiles.StaticStorage"},
}

# Uploads: run files are large; Django streams anything over this to a temp file.
FILE_UPLOAD_MAX_MEMORY_SIZE = 5 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 10 * 1024 * 1024
CUPBOARD_MAX_UPLOAD_BYTES = envint("CUPBOARD_MAX_UPLOAD_BYTES", str(512 * 1024 * 1024))

# Celery. The database row is the truth; a message only carries an id to a worker.
# Recovery (the job engine, cupboard/jobs/: scoring, pool exports, verifications, mails): a
# worker beats every third of CUPBOARD_STALE_AFTER; silent that long, its work is taken over
# (at once when the worker process is known to be gone). With these defaults a killed worker's
# submissions are scored again within 30 s.
CUPBOARD_STALE_AFTER = envint("CUPBOARD_STALE_AFTER", "12")
CUPBOARD_SWEEP_INTERVAL = envint("CUPBOARD_SWEEP_INTERVAL", "5")
# A job waiting this long since its message was sent (broker down at upload, a lost message) is
# sent again by the sweep (CUPBOARD_RENUDGE_AFTER is this setting's former name, still read).
CUPBOARD_RESEND_AFTER = envint("CUPBOARD_RESEND_AFTER", os.getenv("CUPBOARD_RENUDGE_AFTER", "30"))
# /metrics answers Prometheus only with `Authorization: Bearer <this>`; unset, it is a 404.
CUPBOARD_METRICS_TOKEN = envsecret("CUPBOARD_METRICS_TOKEN") or ""
# Each worker writes its heartbeat here (cupboard/heartbeat.py: `python -m cupboard.heartbeat`
# tells an orchestrator whether the worker of this host still takes work).
CUPBOARD_HEARTBEAT_DIR = Path(os.getenv("CUPBOARD_HEARTBEAT_DIR", VAR_DIR / "heartbeats"))
CELERY_BROKER_URL = os.getenv("CELERY_BROKER_URL", "filesystem://")
CELERY_BROKER_TRANSPORT_OPTIONS = {}
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = Path(os.getenv("CUPBOARD_BROKER_DIR", VAR_DIR / "broker"))
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
    for _folder in ("queue", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
elif CELERY_BROKER_URL.startswith("redis"):
    # A message not acked within this many seconds is delivered again (acks_late): a whole
    # worker killed mid-task gets its message back after the stale period, not 15 minutes.
    # A long task's message may come back while it runs; the claim makes that copy a no-op.
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": envint("CUPBOARD_VISIBILITY_TIMEOUT",
                                                                    str(CUPBOARD_STALE_AFTER)),
                                       "socket_connect_timeout": 2,
                                       # An idle worker's wait for a message (BRPOP's timeout, Celery's
                                       # 1 s by default), which its warm shutdown waits out before it
                                       # closes the connection (the reply may bring a message).
                                       "polling_interval": envint("CUPBOARD_BROKER_POLL_MS", "1000") / 1000}
CELERY_TASK_ALWAYS_EAGER = False
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SOFT_TIME_LIMIT = envint("CUPBOARD_TASK_SOFT_TIME_LIMIT", "600")
CELERY_TASK_TIME_LIMIT = envint("CUPBOARD_TASK_TIME_LIMIT", "660")
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Sending a message from a web request gives up within about a second when the broker is
# down (the upload is committed anyway; the stale sweeper sends its message again).
CELERY_BROKER_CONNECTION_TIMEOUT = 2
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.2, "interval_max": 0.2}
CELERY_TIMEZONE = "UTC"
# A system's execution (cupboard/systems/) runs only on runner hosts, with bubblewrap and the
# corpus: `celery -A cupboard worker -Q systems` (docker/: the runner service). Every other task
# stays on Celery's default queue, which the ordinary workers take.
CUPBOARD_SYSTEMS_QUEUE = os.getenv("CUPBOARD_SYSTEMS_QUEUE", "systems")
CELERY_TASK_ROUTES = {"cupboard.systems.tasks.run_execution": {"queue": CUPBOARD_SYSTEMS_QUEUE}}
# Systems phases: the largest image a team may upload (docker save tar), the most its layers may
# unpack to, and what one execution may use (the sandbox stops it there and tells the team why).
CUPBOARD_SYSTEM_IMAGE_MAX_BYTES = envint("CUPBOARD_SYSTEM_IMAGE_MAX_BYTES", str(1024 ** 3))
CUPBOARD_SYSTEM_UNPACKED_MAX_BYTES = envint("CUPBOARD_SYSTEM_UNPACKED_MAX_BYTES", str(4 * 1024 ** 3))
CUPBOARD_SYSTEM_CPU_SECONDS = envint("CUPBOARD_SYSTEM_CPU_SECONDS", "600")
CUPBOARD_SYSTEM_MEMORY_BYTES = envint("CUPBOARD_SYSTEM_MEMORY_BYTES", str(2 * 1024 ** 3))
CUPBOARD_SYSTEM_OUTPUT_BYTES = envint("CUPBOARD_SYSTEM_OUTPUT_BYTES", str(256 * 1024 ** 2))
CUPBOARD_SYSTEM_PROCESSES = envint("CUPBOARD_SYSTEM_PROCESSES", "64")
CUPBOARD_SYSTEM_WALL_SECONDS = envint("CUPBOARD_SYSTEM_WALL_SECONDS", "900")
# Where runner hosts keep each competition's corpus for its systems: <dir>/<competition slug>/
# holds the JSONL files ({"docid", "text"}) a system reads at /input/corpus; none: no corpus.
CUPBOARD_SYSTEMS_CORPUS_DIR = Path(os.getenv("CUPBOARD_SYSTEMS_CORPUS_DIR", VAR_DIR / "corpus"))
CUPBOARD_MAX_ATTEMPTS = envint("CUPBOARD_MAX_ATTEMPTS", "3")
# Run files of rejected and failed submissions are deleted this many days after their last activity.
CUPBOARD_RUN_FILE_RETENTION_DAYS = envint("CUPBOARD_RUN_FILE_RETENTION_DAYS", "7")
# Test hook, off by default: seconds a worker waits right after its first claim of a row (any
# kind of job, cupboard.jobs), heartbeat running, so an end-to-end test can kill it mid-work
# (tests/e2e/test_worker_killed_mid_task.py, tests/jobs/test_kinds_with_a_real_worker.py). Every
# kind, follow-ups included: a run slowed so is paused for its scoring and again for each
# follow-up the worker carries out after it (its board row, its mail, the step's publication),
# which the queue estimate's test counts as the run's cost (claim to next claim). Never set it in production.
CUPBOARD_JOB_PAUSE = envint("CUPBOARD_JOB_PAUSE", "0")
# What follows a committed change (cupboard.followups): a failed attempt is sent to a worker again
# after this many seconds (the sweep runs every CUPBOARD_SWEEP_INTERVAL), up to this many
# attempts (an outage spends none), then failed and logged as an error.
CUPBOARD_FOLLOW_UP_RETRY_AFTER = envint("CUPBOARD_FOLLOW_UP_RETRY_AFTER", "3")
CUPBOARD_FOLLOW_UP_ATTEMPTS = envint("CUPBOARD_FOLLOW_UP_ATTEMPTS", "10")
# A test hook, never set in production: the first attempt of each follow-up whose handler is named
# here (comma-separated function names) meets a database error (tests/jobs/test_follow_ups_with_a_real_worker.py).
CUPBOARD_FOLLOW_UP_FAULTS = {name for name in os.getenv("CUPBOARD_FOLLOW_UP_FAULTS", "").split(",") if name}
# Processes that score the subsets of one submission side by side (submissions/scoring_jobs.py).
# 0 = the cores a worker may use divided by the Celery worker processes of the host
# (CUPBOARD_WORKER_CONCURRENCY, Celery's own setting too; the cores by default), at least 1.
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
CUPBOARD_WORKER_CONCURRENCY = CELERY_WORKER_CONCURRENCY = envint("CUPBOARD_WORKER_CONCURRENCY", str(_CORES))
CUPBOARD_SCORING_PROCESSES = envint("CUPBOARD_SCORING_PROCESSES", "0")
# Seconds between runs of the mail beat task; news older than CUPBOARD_MAIL_LATE_AFTER seconds
# when first seen (a competition loaded after its surprise reveal) is not mailed.
CUPBOARD_MAIL_INTERVAL = envint("CUPBOARD_MAIL_INTERVAL", "30")
CUPBOARD_MAIL_LATE_AFTER = envint("CUPBOARD_MAIL_LATE_AFTER", str(6 * 3600))
# Seconds after its last try before an unsent mail is sent again (lost message, SMTP down).
CUPBOARD_MAIL_RETRY_AFTER = envint("CUPBOARD_MAIL_RETRY_AFTER", "60")
# Every periodic task below is idempotent and the next one is at most an interval away, so a
# message a busy worker has not taken within its interval (at least 30 s: a broker that delivers
# slowly must not expire them all) expires, dropped on receipt, instead of piling up behind a
# long run and running hundreds of times once the worker is free.
_EXPIRES = {"expires": max(30.0, CUPBOARD_SWEEP_INTERVAL)}
CELERY_BEAT_SCHEDULE = {
    "purge-run-files": {  # files of rejected and failed submissions, after CUPBOARD_RUN_FILE_RETENTION_DAYS
        "task": "cupboard.submissions.tasks.purge_run_files",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # The page changes no cached page's key reads any more (competitions/page_cache.py).
    "prune-page-changes": {
        "task": "cupboard.competitions.tasks.prune_page_changes",
        "schedule": 3600.0,
        "options": {"expires": 3600.0},
    },
    # The stale sweep (cupboard.jobs) of every kind of job: scoring, verification, pool export,
    # results archive, mail, follow-up (flows/jobs.py).
    "sweep-jobs": {
        "task": "cupboard.flows.tasks.sweep_jobs",
        "schedule": float(CUPBOARD_SWEEP_INTERVAL),
        "options": _EXPIRES,
    },
    # Commitments at a competition's start and reveals happen by the clock; this only
    # writes their public audit events on time (pages only read).
    "publish-due-events": {
        "task": "cupboard.flows.tasks.publish_due_events",
        "schedule": float(CUPBOARD_SWEEP_INTERVAL),
        "options": _EXPIRES,
    },
    # A surprise group's reveal changes which columns ranks count: rebuild the leaderboards
    # computed before it, whether or not anyone opens them.
    "refresh-stale-leaderboards": {
        "task": "cupboard.leaderboards.tasks.refresh_stale_leaderboards",
        "schedule": float(CUPBOARD_SWEEP_INTERVAL),
        "options": _EXPIRES,
    },
    # Deadline reminders and reveal announcements that are due, and mails still unsent
    # (notifications/services.py): each recorded once, so any interval is safe.
    "mail-due": {
        "task": "cupboard.notifications.tasks.mail_due",
        "schedule": float(CUPBOARD_MAIL_INTERVAL),
        "options": {"expires": max(30.0, CUPBOARD_MAIL_INTERVAL)},
    },
}

# E-mail (organizers' messages to the teams, notifications, password resets): written to files in var/mail unless a site sets
# CUPBOARD_EMAIL_BACKEND=django.core.mail.backends.smtp.EmailBackend and the EMAIL_* below.
EMAIL_BACKEND = os.getenv("CUPBOARD_EMAIL_BACKEND", "django.core.mail.backends.filebased.EmailBackend")
EMAIL_FILE_PATH = Path(os.getenv("CUPBOARD_EMAIL_FILE_PATH", VAR_DIR / "mail"))
DEFAULT_FROM_EMAIL = os.getenv("CUPBOARD_FROM_EMAIL", "cupboard@localhost")
EMAIL_HOST = os.getenv("EMAIL_HOST", "localhost")
EMAIL_PORT = envint("EMAIL_PORT", "25")
EMAIL_HOST_USER = os.getenv("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = envsecret("EMAIL_HOST_PASSWORD") or ""
EMAIL_USE_TLS = envbool("EMAIL_USE_TLS", "false")

# Security (python manage.py check --deploy passes with CUPBOARD_DEBUG=false).
SESSION_COOKIE_SECURE = not DEBUG and envbool("CUPBOARD_SECURE_COOKIES", "true")
CSRF_COOKIE_SECURE = SESSION_COOKIE_SECURE
SECURE_SSL_REDIRECT = not DEBUG and envbool("CUPBOARD_SSL_REDIRECT", "true")
# Behind a TLS proxy (CUPBOARD_TRUSTED_PROXIES, none by default): trust its X-Forwarded-Proto
# (anyone else's is dropped before Django reads it: proxies.ProxyHeadersMiddleware), and the
# client address it appends to X-Forwarded-For (throttle.client_address), from it only.
CUPBOARD_TRUSTED_PROXIES = trusted_proxies_from_env()
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if CUPBOARD_TRUSTED_PROXIES else None
SECURE_HSTS_SECONDS = 0 if DEBUG else envint("CUPBOARD_HSTS_SECONDS", "31536000")
SECURE_HSTS_INCLUDE_SUBDOMAINS = not DEBUG
SECURE_HSTS_PRELOAD = not DEBUG
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"

# The cache holds rate-limit counters only (cupboard/throttle.py); every web process must share
# it in production (redis://host:6379/1), a laptop's single process may keep it in memory.
CACHES = {"default": cache_from_url(os.getenv("CUPBOARD_CACHE_URL", "locmem://"))}
# Whether a deletion in the cache reaches every process: a Redis server's does, one process's memory
# does not. Signed-in people's pages are kept under tokens that any process deletes when who they are
# or their team's runs change (accounts/signed_in.py); with a cache of one process's own they are not
# kept (a worker's scoring or another web process's log-out would not reach it). A site run as one
# process may say true.
CUPBOARD_CACHE_SHARED = envbool("CUPBOARD_CACHE_SHARED", str(CACHES["default"]["BACKEND"].endswith("RedisCache")))
# Leaderboard pages and exports per viewer class (leaderboards/cache.py) live in the same cache,
# keyed on the leaderboard's version; this bounds how long an edit that bumps none takes to show.
CUPBOARD_LEADERBOARD_CACHE_SECONDS = envint("CUPBOARD_LEADERBOARD_CACHE_SECONDS", "300")
# A competition's pages and files as anonymous visitors see them (competitions/page_cache.py), keyed on
# what changes them; this bounds how long a change no signal reports (a user renamed) takes to show.
CUPBOARD_PAGE_CACHE_SECONDS = envint("CUPBOARD_PAGE_CACHE_SECONDS", "300")
# The bytes each process may hold of its own copies of the entries above whose keys name the version of
# what they hold (cupboard/local_copies.py), so that a repeat hit costs no round trip to a cache in
# another process (Redis); 0 keeps none, as with the in-memory cache, which is this process's own.
CUPBOARD_LOCAL_COPY_BYTES = envint("CUPBOARD_LOCAL_COPY_BYTES",
                                   str(32 * 1024 * 1024 if CACHES["default"]["BACKEND"].endswith("RedisCache") else 0))
# How long who a session signs in, and its viewer class for the leaderboards, is remembered in the
# cache (accounts/signed_in.py, leaderboards/viewers.py); any change of who they are shows at once.
CUPBOARD_VIEWER_SECONDS = envint("CUPBOARD_VIEWER_SECONDS", "60")
# How long a web process reuses a phase's board state for visitors without cookies (0: never): a new
# leaderboard version reaches them that much later; clock reveals stay on time (leaderboards/cache.py).
CUPBOARD_BOARD_STATE_SECONDS = float(os.getenv("CUPBOARD_BOARD_STATE_SECONDS", "1"))
# Rates: failed log-ins per account from one client network (an IPv4 address, an IPv6 /64) and
# per account from anywhere, sign-ups and new teams per network, API requests per token,
# password-reset mails per e-mail address and per network, past leaderboards (?as_of=) per
# network, wrong current passwords on the profile per account.
# CUPBOARD_RATES="login-account=5/15m,api-token=120/m" changes some.
CUPBOARD_RATES = rates_from_env(os.getenv("CUPBOARD_RATES", ""), {
    "login-account": "10/15m", "login-account-any": "50/15m", "signup-address": "10/h",
    "team-create-address": "10/h", "api-token": "60/m", "reset-account": "5/h", "reset-address": "20/h",
    "as-of-address": "60/m", "current-password-account": "10/15m"})

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.getenv("CUPBOARD_LOG_LEVEL", "INFO")},
}

if envbool("CUPBOARD_FAST_PASSWORD_HASHER", "false"):
    # Tests only: hashing cost is pure waste there.
    PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
