#!/usr/bin/env bash
# The dev/test Postgres: its own cluster in var/pg (not the system's cluster), run as the postgres
# system user because Postgres refuses to run as root. Listens on 127.0.0.1:15432 only, socket in
# var/pg/run, trust authentication (dev only: nothing but this machine can reach it).
#
#   postgres.sh start     initdb once, start, wait for pg_isready, ensure role + database duepay
#   postgres.sh stop      fast shutdown (data kept)
#   postgres.sh status    exit 0 when up, 3 when down
#   postgres.sh psql ...  psql into DATABASE_URL (default: our duepay database)
#
# External server: when DATABASE_URL is set to anything but our own URL, start only waits for it
# and stop is a no-op.
set -euo pipefail
DEV_COMPONENT=postgres
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

PORT=15432
OWN_URL="postgresql://duepay@127.0.0.1:$PORT/duepay"
URL="${DATABASE_URL:-$OWN_URL}"
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
if [[ ! -x "$PG_BIN/pg_ctl" ]]; then
  PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
fi
PGDIR="$VAR/pg"
DATA="$PGDIR/data"
RUN="$PGDIR/run"
LOGFILE="$PGDIR/postgres.log"

external() { [[ "$URL" != "$OWN_URL" ]]; }
as_pg() { runuser -u postgres -- "$@"; }
admin_psql() { psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U postgres -d postgres "$@"; }

# The postgres user must be able to reach var/pg: give o+x (traverse only, no listing) to any
# ancestor that lacks it, e.g. a clone under /root.
ensure_traversable() {
  local d="$PGDIR"
  as_pg test -x "$PGDIR" 2>/dev/null && return 0
  while [[ "$d" != "/" ]]; do
    d="$(dirname "$d")"
    if [[ "$(stat -c %A "$d" | cut -c10)" != "x" && "$(stat -c %A "$d" | cut -c10)" != "t" ]]; then
      log "chmod o+x $d so the postgres user can reach $PGDIR"
      chmod o+x "$d"
    fi
  done
  as_pg test -x "$PGDIR" || die "the postgres user cannot reach $PGDIR"
}

init_cluster() {
  mkdir -p "$PGDIR"
  chown postgres:postgres "$PGDIR"
  ensure_traversable
  if [[ ! -f "$DATA/PG_VERSION" ]]; then
    log "initdb in $DATA ($("$PG_BIN/postgres" --version))"
    as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >/dev/null
    cat >>"$DATA/postgresql.conf" <<CONF

# duepay dev stack (infra/dev/postgres.sh)
listen_addresses = '127.0.0.1'
port = $PORT
unix_socket_directories = '$RUN'
max_connections = 200
log_min_messages = warning
log_line_prefix = '%m [%p] %q%u@%d '
CONF
  fi
  as_pg mkdir -p "$RUN"
}

running() { [[ -f "$DATA/PG_VERSION" ]] && as_pg "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }

ensure_database() {
  if [[ "$(admin_psql -tAc "select 1 from pg_roles where rolname = 'duepay'")" != 1 ]]; then
    admin_psql -c "create role duepay login createdb"
  fi
  if [[ "$(admin_psql -tAc "select 1 from pg_database where datname = 'duepay'")" != 1 ]]; then
    admin_psql -c "create database duepay owner duepay"
  fi
}

start() {
  if external; then
    log "using the external server at ${URL%%\?*}"
    local deadline=$((SECONDS + 60))
    until pg_isready -q -d "$URL"; do
      (( SECONDS < deadline )) || die "external Postgres at $URL not ready after 60s"
      sleep 0.5
    done
    return 0
  fi
  with_lock postgres
  [[ -x "$PG_BIN/pg_ctl" ]] || die "no Postgres server binaries in /usr/lib/postgresql: run scripts/install-deps.sh"
  init_cluster
  if running; then
    log "already running"
  else
    port_open 127.0.0.1 "$PORT" && die "port $PORT is taken by a server this checkout did not start ($(port_owner "$PORT")); if it is another checkout's stack, stop it with its own infra/dev/stack.sh down"
    local t0; t0=$(now_ms)
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -o "-p $PORT" -l "$LOGFILE" -w -t 60 start >/dev/null 9>&- \
      || { tail -n 30 "$LOGFILE" >&2; die "postgres did not start (see $LOGFILE)"; }
    log "started in $(( $(now_ms) - t0 )) ms, log $LOGFILE"
  fi
  pg_isready -q -h 127.0.0.1 -p "$PORT" || die "pg_isready fails on 127.0.0.1:$PORT"
  ensure_database
}

stop() {
  if external; then
    log "external server is not ours to stop"
    return 0
  fi
  with_lock postgres
  if running; then
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w -t 60 stop >/dev/null
    log "stopped (data kept in $DATA)"
  else
    log "not running"
  fi
}

status() {
  if external; then
    pg_isready -q -d "$URL" && { echo "postgres: external server up"; return 0; }
    echo "postgres: external server down"; return 3
  fi
  if running && pg_isready -q -h 127.0.0.1 -p "$PORT"; then
    echo "postgres: running on 127.0.0.1:$PORT, data $DATA"
    return 0
  fi
  echo "postgres: stopped"
  return 3
}

cmd="${1:-}"; shift || true
case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  psql) exec psql -X "$URL" "$@" ;;
  *) echo "usage: $0 start|stop|status|psql [psql args]" >&2; exit 2 ;;
esac
