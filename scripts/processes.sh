# Sourced by scripts/run-demo and scripts/serve: a site's three processes (a supervised Celery
# worker, Celery beat, a web server), each leading its own process group, so that Ctrl-C (or
# SIGTERM) stops all of them within 5 s: each is asked to stop, and whatever is still running
# after 3 s is killed (runs are acknowledged late, so a killed worker loses nothing).
BIN="${VENV:-.venv}/bin"
VAR="${CUPBOARD_VAR_DIR:-var}"  # the same folder settings.py uses for the database and broker
PORT="${PORT:-8000}"
mkdir -p "$VAR"
pids=()

start() {
  local log=$1; shift
  if [ "$log" = - ]; then setsid "$@" & else setsid "$@" >>"$log" 2>&1 & fi
  pids+=($!)
}

# Each process is signalled as its group and as itself: on a loaded host a Ctrl-C can come before
# its `setsid` has run, when there is no group yet (it used to be taken for stopped, and started
# later in a session of its own). A second Ctrl-C during the stop is ignored: it used to end this
# script in the middle and leave what had not stopped yet running; the kill comes within 3 s anyway.
signal_all() {
  for pid in "${pids[@]}"; do kill "-$1" -- "-$pid" 2>/dev/null || kill "-$1" "$pid" 2>/dev/null || true; done
}

stop() {
  trap '' INT TERM
  trap - EXIT
  echo "stopping (pids ${pids[*]})"
  signal_all TERM
  # Celery's warm shutdown can linger for seconds after its last log line: give 3 s, then kill.
  local deadline=$(( ${EPOCHREALTIME/./} + 3000000 ))
  while (( ${EPOCHREALTIME/./} < deadline )); do
    local alive=0
    for pid in "${pids[@]}"; do { kill -0 -- "-$pid" || kill -0 "$pid"; } 2>/dev/null && alive=1; done
    (( alive )) || exit 0
    sleep 0.1
  done
  signal_all KILL
  exit 0
}
trap stop INT TERM EXIT

# Debug off, plain http on 127.0.0.1: no redirect to https, cookies without the Secure flag, no
# HSTS; absolute links (mails, feeds, password resets) name this port. Static files collected:
# hashed names, gzipped, cached for a year, as the image serves them.
serve_plainly_on_loopback() {
  export CUPBOARD_DEBUG="${CUPBOARD_DEBUG:-false}"
  export CUPBOARD_SSL_REDIRECT="${CUPBOARD_SSL_REDIRECT:-false}" CUPBOARD_SECURE_COOKIES="${CUPBOARD_SECURE_COOKIES:-false}"
  export CUPBOARD_HSTS_SECONDS="${CUPBOARD_HSTS_SECONDS:-0}" CUPBOARD_SITE_URL="${CUPBOARD_SITE_URL:-http://127.0.0.1:$PORT}"
  "$BIN/python" manage.py collectstatic --noinput >/dev/null
}

# The worker (restarted if it ever exits by itself, see cupboard/supervise.py) and the beat (the
# periodic sweeper) as separate processes.
start_worker_and_beat() {
  start "$VAR/worker.log" "$BIN/python" -m cupboard.supervise "$BIN/celery" -A cupboard worker \
    --loglevel=INFO  # processes: CUPBOARD_WORKER_CONCURRENCY (settings.py), the cores by default
  echo "worker pid ${pids[-1]} (log: $VAR/worker.log)"
  start "$VAR/beat.log" "$BIN/celery" -A cupboard beat --loglevel=INFO --schedule="$VAR/celerybeat-schedule"
  echo "beat pid ${pids[-1]} (log: $VAR/beat.log)"
}

# `wait` returns as soon as a trapped signal arrives; if the server ends by itself, stop the rest.
wait_for_web() {
  wait "$1" || true
  stop
}
