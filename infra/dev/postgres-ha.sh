#!/usr/bin/env bash
# The dev/test Postgres in HA mode (HA=1, ADR 0209): a primary and a synchronous standby under
# pg_auto_failover (Debian's postgresql-15-auto-failover), with its monitor. Everything runs as the
# postgres system user, on 127.0.0.1 only, trust authentication (dev only), data in var/pg-ha:
#
#   var/pg-ha/monitor   the monitor's cluster, port 15440 (its keeper: pg_autoctl run)
#   var/pg-ha/node1     data node 1, port 15441 (first primary)
#   var/pg-ha/node2     data node 2, port 15442 (first standby, synchronous)
#   var/pg-ha/xdg       pg_autoctl's config, state and pid files (XDG_* pointed here, not ~postgres)
#   var/pg-ha/*.log     each pg_autoctl's log (its Postgres logs go to <node>/log)
#
#   postgres-ha.sh start          create once, run the three keepers, wait for primary + secondary,
#                                 ensure role + database duepay
#   postgres-ha.sh stop           stop the keepers (each stops its Postgres); data kept
#   postgres-ha.sh status         exit 0 when a primary accepts writes, 3 otherwise
#   postgres-ha.sh url            the multi-host libpq URL the roles use
#   postgres-ha.sh state          pg_autoctl show state (the monitor's view)
#   postgres-ha.sh primary        the node (node1|node2) that is primary now
#   postgres-ha.sh kill-node N    kill -9 node N's keeper and its postmaster (the failover test);
#                                 prints the time of the kill (ms since the epoch)
#   postgres-ha.sh start-node N   run node N's keeper again (it rejoins as a standby)
#   postgres-ha.sh wait-healthy [S]  wait (S seconds, default 120) for one primary + one secondary
#   postgres-ha.sh reclone-node N  drop standby N from the monitor with its data, create it again
#                                 from the primary (pg_basebackup) and wait until it is the
#                                 synchronous standby: for a standby whose slot was lost (bound_wal)
#
# The monitor's health checks are tightened (1 s period, 3 s unhealthy timeout, 2 s demote
# timeout) so a dead primary is replaced in seconds; see docs/operations.md.
# The WAL a data node keeps for a standby that is down is bounded (bound_wal below): without it
# pg_auto_failover's replication slot keeps every segment until the volume is full.
set -euo pipefail
DEV_COMPONENT=postgres-ha
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

MONITOR_PORT=15440
NODE_PORTS=([1]=15441 [2]=15442)
PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
HADIR="$VAR/pg-ha"
XDG="$HADIR/xdg"
MONITOR_URL="postgres://autoctl_node@127.0.0.1:$MONITOR_PORT/pg_auto_failover?sslmode=disable"

ha_url() {
  echo "postgresql://duepay@127.0.0.1:${NODE_PORTS[1]},127.0.0.1:${NODE_PORTS[2]}/duepay?target_session_attrs=read-write"
}

# as_pg CMD...: run as the postgres user with pg_autoctl's files under var/pg-ha/xdg.
as_pg() {
  runuser -u postgres -- env XDG_CONFIG_HOME="$XDG/config" XDG_DATA_HOME="$XDG/data" \
    XDG_RUNTIME_DIR="$XDG/run" PATH="$PG_BIN:$PATH" "$@"
}
autoctl() { as_pg pg_autoctl "$@"; }

ensure_traversable() {
  local d="$HADIR"
  as_pg test -x "$HADIR" 2>/dev/null && return 0
  while [[ "$d" != "/" ]]; do
    d="$(dirname "$d")"
    local o; o="$(stat -c %A "$d" | cut -c10)"
    if [[ "$o" != "x" && "$o" != "t" ]]; then
      log "chmod o+x $d so the postgres user can reach $HADIR"
      chmod o+x "$d"
    fi
  done
  as_pg test -x "$HADIR" || die "the postgres user cannot reach $HADIR"
}

have_packages() { command -v pg_autoctl >/dev/null && [[ -x "$PG_BIN/pg_ctl" ]]; }

# keeper_pid NAME: pid of the pg_autoctl run of var/pg-ha/NAME, when alive.
keeper_pid() {
  local f="$HADIR/$1.pid" pid
  [[ -s "$f" ]] || return 1
  pid="$(cat "$f")"
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$HADIR/$1" || return 1
  echo "$pid"
}

# run_keeper NAME: `pg_autoctl run` for var/pg-ha/NAME in the background, in a session of its own
# (setsid): its children (the Postgres controller, the node-active service) and its postmaster
# with every backend share that session, which is how kill-node kills the whole node. Ctrl-C of
# make run reaches it only through `stop`.
run_keeper() {
  local name="$1"
  keeper_pid "$name" >/dev/null && return 0
  as_pg setsid pg_autoctl run --pgdata "$HADIR/$name" </dev/null >>"$HADIR/$name.log" 2>&1 9>&- &
  # runuser forks: record the pg_autoctl process itself (its command line starts with pg_autoctl).
  local pid
  for _ in $(seq 50); do
    pid="$(pgrep -u postgres -f "^pg_autoctl run --pgdata $HADIR/$name\$" | head -1 || true)"
    [[ -n "$pid" ]] && { echo "$pid" >"$HADIR/$name.pid"; return 0; }
    sleep 0.1
  done
  die "pg_autoctl run for $name did not start (see $HADIR/$name.log)"
}

wait_port() {
  local port="$1" what="$2" deadline=$((SECONDS + ${3:-60}))
  until pg_isready -q -h 127.0.0.1 -p "$port"; do
    ((SECONDS < deadline)) || die "$what (127.0.0.1:$port) not ready (see $HADIR/*.log)"
    sleep 0.3
  done
}

# node_state N: the monitor's reported state of node N (primary, secondary, ...).
node_state() {
  psql -X -qtA -h 127.0.0.1 -p "$MONITOR_PORT" -U autoctl_node -d pg_auto_failover \
    -c "select reportedstate from pgautofailover.node where nodename = 'node$1'" 2>/dev/null || true
}

# settled: one primary and one secondary, each in the state the monitor assigned it (a state
# reported before a restart does not count), and the primary answers.
settled() {
  local states
  states="$(psql -X -qtA -h 127.0.0.1 -p "$MONITOR_PORT" -U autoctl_node -d pg_auto_failover \
    -c "select string_agg(reportedstate::text || '/' || goalstate::text, ',' order by reportedstate::text)
        from pgautofailover.node" 2>/dev/null || true)"
  [[ "$states" == "primary/primary,secondary/secondary" ]] && primary >/dev/null
}

wait_states() {
  local deadline=$((SECONDS + ${1:-120}))
  until settled; do
    ((SECONDS < deadline)) || die "nodes not primary + secondary after ${1:-120}s (node1=$(node_state 1) node2=$(node_state 2); see $HADIR/*.log)"
    sleep 0.5
  done
}

create_monitor() {
  [[ -f "$HADIR/monitor/PG_VERSION" ]] && return 0
  log "creating the monitor in $HADIR/monitor"
  autoctl create monitor --pgdata "$HADIR/monitor" --pgport "$MONITOR_PORT" \
    --pgctl "$PG_BIN/pg_ctl" --hostname 127.0.0.1 --auth trust --no-ssl \
    >>"$HADIR/monitor.log" 2>&1 9>&- || { tail -n 30 "$HADIR/monitor.log" >&2; die "create monitor failed"; }
  # pg_autoctl starts the monitor with -h * by default: loopback only, like every dev server.
  autoctl config set --pgdata "$HADIR/monitor" postgresql.listen_addresses 127.0.0.1 >/dev/null
  cat >>"$HADIR/monitor/postgresql.conf" <<CONF

# duepay dev stack (infra/dev/postgres-ha.sh): notice a dead node in seconds, not half a minute.
listen_addresses = '127.0.0.1'
pgautofailover.health_check_period = 1000
pgautofailover.health_check_timeout = 1000
pgautofailover.health_check_max_retries = 1
pgautofailover.health_check_retry_delay = 500
pgautofailover.node_considered_unhealthy_timeout = 3000
pgautofailover.primary_demote_timeout = 2000
CONF
}

create_node() {
  local n="$1" name="node$1"
  [[ -f "$HADIR/$name/PG_VERSION" && -f "$HADIR/$name.created" ]] && return 0
  log "creating $name in $HADIR/$name (port ${NODE_PORTS[$n]})"
  autoctl create postgres --pgdata "$HADIR/$name" --pgport "${NODE_PORTS[$n]}" \
    --pgctl "$PG_BIN/pg_ctl" --hostname 127.0.0.1 --listen 127.0.0.1 --name "$name" \
    --dbname duepay --monitor "$MONITOR_URL" --auth trust --no-ssl \
    >>"$HADIR/$name.log" 2>&1 9>&- || { tail -n 30 "$HADIR/$name.log" >&2; die "create $name failed"; }
  # A killed primary that comes back is rewound or, when pg_rewind fails (pg_auto_failover 2.0
  # with Postgres 15 after a crash: "standby mode is not supported by single-user servers"),
  # re-cloned with pg_basebackup, which waits for a spread checkpoint on the new primary: short
  # checkpoints keep that wait to seconds instead of minutes (dev stack only).
  cat >>"$HADIR/$name/postgresql.conf" <<CONF

# duepay dev stack (infra/dev/postgres-ha.sh): a rejoining node's base backup waits seconds.
checkpoint_timeout = 30s
checkpoint_completion_target = 0.1
CONF
  as_pg "$PG_BIN/pg_ctl" -D "$HADIR/$name" reload >/dev/null 2>&1 || true
  touch "$HADIR/$name.created"
}

# bound_wal N: the WAL node N keeps is bounded, on every start (a node created before the bound
# gets it too; a node cloned again copies the primary's postgresql.conf, bound included).
# pg_auto_failover leaves max_slot_wal_keep_size at -1, so its replication slot for a standby
# that is down keeps every segment until the volume is full, and sets wal_keep_size to 8 GB. With
# these, pg_wal holds at most about WAL_SLOT_BOUND (+ max_wal_size between checkpoints); a standby
# further behind than that loses its slot at the next checkpoint and must be cloned again
# (docs/operations.md, "Runbooks": "A standby down too long"). Both settings apply on reload.
WAL_SLOT_BOUND=512MB
WAL_KEEP=128MB
bound_wal() {
  local conf="$HADIR/node$1/postgresql.conf"
  grep -q '^max_slot_wal_keep_size' "$conf" && return 0
  cat >>"$conf" <<CONF

# duepay dev stack (infra/dev/postgres-ha.sh): WAL kept for a standby that is down is bounded.
max_slot_wal_keep_size = $WAL_SLOT_BOUND
wal_keep_size = $WAL_KEEP
CONF
  as_pg "$PG_BIN/pg_ctl" -D "$HADIR/node$1" reload >/dev/null 2>&1 || true
}

ensure_database() {
  local p port
  p="$(primary)" || die "no primary"
  port="${NODE_PORTS[${p#node}]}"
  local q=(psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres)
  if [[ "$("${q[@]}" -tAc "select 1 from pg_roles where rolname = 'duepay'")" != 1 ]]; then
    "${q[@]}" -c "create role duepay login createdb"
  fi
  if [[ "$("${q[@]}" -tAc "select 1 from pg_database where datname = 'duepay'")" != 1 ]]; then
    "${q[@]}" -c "create database duepay owner duepay"
  else
    "${q[@]}" -c "alter database duepay owner to duepay" -c "grant all on schema public to duepay" -d duepay
  fi
}

start() {
  have_packages || die "pg_auto_failover is not installed (Debian package postgresql-15-auto-failover): run scripts/install-deps.sh"
  with_lock postgres-ha
  local t0; t0=$(now_ms)
  mkdir -p "$HADIR"
  chown postgres:postgres "$HADIR"
  ensure_traversable
  as_pg mkdir -p "$XDG/config" "$XDG/data" "$XDG/run"
  local name port
  for name in monitor node1 node2; do
    port="$MONITOR_PORT"; [[ "$name" == node* ]] && port="${NODE_PORTS[${name#node}]}"
    if port_open 127.0.0.1 "$port" && ! keeper_pid "$name" >/dev/null; then
      die "port $port is taken by a server this checkout's keepers did not start ($(port_owner "$port")); stop it, e.g. with that checkout's infra/dev/stack.sh down"
    fi
  done
  create_monitor
  run_keeper monitor
  wait_port "$MONITOR_PORT" monitor
  create_node 1
  bound_wal 1
  run_keeper node1
  create_node 2
  bound_wal 2
  run_keeper node2
  wait_states 180
  ensure_database
  log "up in $(( $(now_ms) - t0 )) ms: $(url)"
}

stop_keeper() {
  local name="$1" pid
  pid="$(keeper_pid "$name")" || { rm -f "$HADIR/$name.pid"; return 0; }
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  if kill -0 "$pid" 2>/dev/null; then
    log "$name keeper still running after 30 s: SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  # Anything left in its session (after a SIGKILL), then make sure its Postgres is down.
  pkill -KILL -s "$pid" 2>/dev/null || true
  if [[ -f "$HADIR/$name/postmaster.pid" ]]; then
    as_pg "$PG_BIN/pg_ctl" -D "$HADIR/$name" -m fast -w -t 30 stop >/dev/null 2>&1 || true
  fi
  rm -f "$HADIR/$name.pid"
}

stop() {
  with_lock postgres-ha
  [[ -d "$HADIR" ]] || { log "not running"; return 0; }
  # Standby first, then the primary, then the monitor: no failover on the way down.
  local first=node2 second=node1
  [[ "$(node_state 2)" == primary ]] && { first=node1; second=node2; }
  stop_keeper "$first"
  stop_keeper "$second"
  stop_keeper monitor
  log "stopped (data kept in $HADIR)"
}

# primary: the node that accepts writes now (asked of each node, not of the monitor, whose
# reported state of a dead node stays what it last heard).
primary() {
  for n in 1 2; do
    [[ "$(psql -X -qtA -h 127.0.0.1 -p "${NODE_PORTS[$n]}" -U postgres -d postgres \
      -c 'select pg_is_in_recovery()' 2>/dev/null)" == f ]] && { echo "node$n"; return 0; }
  done
  return 1
}

status() {
  if have_packages && [[ -d "$HADIR" ]] && psql -X -qtA -d "$(url)" -c 'select 1' >/dev/null 2>&1; then
    echo "postgres: HA (pg_auto_failover), primary $(primary || echo '?'), $(url)"
    return 0
  fi
  echo "postgres: HA stopped"
  return 3
}

url() { ha_url; }

# kill_node N: the node dies as a machine would: SIGKILL to every process of its keeper's session
# (pg_autoctl run, its services, the postmaster), to the postmaster and to its children (backends
# and auxiliary processes: each backend runs in a session of its own), so nothing restarts it in
# place and no backend finishes a request afterwards.
kill_node() {
  local name="node$1" kpid ppid children=""
  kpid="$(keeper_pid "$name" || true)"
  ppid="$(head -1 "$HADIR/$name/postmaster.pid" 2>/dev/null || true)"
  [[ -n "$ppid" ]] && children="$(pgrep -P "$ppid" | tr '\n' ' ' || true)"
  [[ -n "$kpid" ]] && { pkill -KILL -s "$kpid" 2>/dev/null || true; }
  # shellcheck disable=SC2086
  [[ -n "$ppid$children" ]] && { kill -KILL $ppid $children 2>/dev/null || true; }
  now_ms  # when it died, for the failover test's timing
  log "killed $name (keeper session ${kpid:-none}, postmaster ${ppid:-none} and its children)"
}

# reclone_node N: standby N, stuck because the primary no longer has the WAL it needs (its slot
# "lost": bound_wal), is dropped from the monitor with its data directory and created again, which
# clones it from the primary; then waits for primary + secondary. Starts the monitor's and the
# other node's keepers if they are not running; refuses the primary. `pg_autoctl drop node` failed
# once in six runs ("Failed to ensure that the local node ... has been removed from the monitor",
# the monitor still listing it); the node is then dropped by name with --force, and its
# pg_autoctl files are removed with its data either way.
reclone_node() {
  local n="$1" name="node$1" other
  [[ "$n" == 1 || "$n" == 2 ]] || die "reclone-node: N is 1 or 2"
  other="node$((3 - n))"
  with_lock postgres-ha
  run_keeper monitor
  wait_port "$MONITOR_PORT" monitor
  run_keeper "$other"
  wait_port "${NODE_PORTS[${other#node}]}" "$other"
  [[ "$(primary || true)" == "$other" ]] || die "$other is not the primary: reclone-node is for the standby of a running primary"
  log "dropping $name from the monitor with its data (pg_autoctl drop node --destroy)"
  run_keeper "$name"   # drop node waits for the keeper to report the node dropped
  if ! autoctl drop node --destroy --pgdata "$HADIR/$name" >>"$HADIR/$name.log" 2>&1 9>&-; then
    stop_keeper "$name"
    if [[ -n "$(node_state "$n")" ]]; then
      log "the monitor still lists $name: dropping it by name (--force)"
      autoctl drop node --monitor "$MONITOR_URL" --formation default --name "$name" --force \
        >>"$HADIR/$name.log" 2>&1 9>&- || { tail -n 20 "$HADIR/$name.log" >&2; die "drop node $name failed"; }
    fi
  fi
  stop_keeper "$name"
  rm -rf "${HADIR:?}/$name" "$HADIR/$name.created" "$XDG/config/pg_autoctl$HADIR/$name" \
    "$XDG/data/pg_autoctl$HADIR/$name" "$XDG/run/pg_autoctl$HADIR/$name"
  create_node "$n"
  bound_wal "$n"
  run_keeper "$name"
  wait_states 180
  log "$name cloned again and back as the standby"
}

cmd="${1:-}"; shift || true
case "$cmd" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  url) url ;;
  state) autoctl show state --pgdata "$HADIR/monitor" ;;
  primary) primary ;;
  kill-node) kill_node "${1:?node number}" ;;
  start-node) with_lock postgres-ha; run_keeper "node${1:?node number}" ;;
  have-packages) have_packages ;;
  wait-healthy) wait_states "${1:-120}" ;;
  reclone-node) reclone_node "${1:?node number}" ;;
  *) echo "usage: $0 start|stop|status|url|state|primary|kill-node N|start-node N|reclone-node N|wait-healthy [S]|have-packages" >&2; exit 2 ;;
esac
