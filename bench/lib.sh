#!/usr/bin/env bash
# Shared set-up of the wrk benches (bench/load/run.sh, bench/list/run.sh). Source it from a bench
# script after `set -euo pipefail`:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
#   bench_setup wrk psql          # ROOT, var/dev.env in the environment, BIN, BASE, OUT; the tools
#   bench_ensure_api dev.log      # a duepay dev if nothing answers on $BASE, stopped at exit
#   committed_offsets URL GROUP   # the events a consumer group has committed
#   ticks_of PID, tree_ticks PID  # CPU ticks (bench/load/sweep.sh, bench/replay/run.sh use
#                                 # these alone, with superuser_url URL)
#   role_of PID                   # the role of a `duepay dev --supervise` child
#   pg_mode, pg_ticks, pg_ha_ticks  # which Postgres the stack runs (single | ha) and the CPU
#                                 # ticks of its data nodes and of pg_auto_failover (HA=1)
#
# Reads DUEPAY_ENV_FILE (default var/dev.env), DUEPAY_BIN (default build/duepay) and
# DUEPAY_BASE_URL (default http://127.0.0.1:8080).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Loads the dev stack's environment and checks that each tool named is installed.
bench_setup() {
  local env_file="${DUEPAY_ENV_FILE:-$ROOT/var/dev.env}" tool
  [[ -f "$env_file" ]] || { echo "no $env_file: run make stack-up first" >&2; exit 2; }
  set -a
  # shellcheck disable=SC1090
  source "$env_file"
  set +a
  for tool in "$@"; do
    command -v "$tool" >/dev/null || { echo "$tool not installed (make deps)" >&2; exit 2; }
  done
  BIN="${DUEPAY_BIN:-$ROOT/build/duepay}"
  BASE="${DUEPAY_BASE_URL:-http://127.0.0.1:8080}"
  OUT="$ROOT/var/bench"
  mkdir -p "$OUT"
}

BENCH_DEV_PID=""
bench_stop_dev() {
  if [[ -n "$BENCH_DEV_PID" ]]; then
    kill -TERM "$BENCH_DEV_PID" 2>/dev/null && wait "$BENCH_DEV_PID" 2>/dev/null
    BENCH_DEV_PID=""
  fi
  true
}

# If nothing answers on $BASE/healthz, starts `$BIN dev` (log in $OUT/$1) and stops it when the
# script exits; fails when the API still does not answer after 20 s.
bench_ensure_api() {
  if ! curl -sf -m 2 "$BASE/healthz" >/dev/null; then
    echo "starting $BIN dev (log $OUT/$1)" >&2
    "$BIN" dev >"$OUT/$1" 2>&1 &
    BENCH_DEV_PID=$!
    trap bench_stop_dev EXIT
    for _ in $(seq 1 100); do curl -sf -m 1 "$BASE/healthz" >/dev/null && break; sleep 0.2; done
  fi
  curl -sf -m 2 "$BASE/healthz" >/dev/null || { echo "API not answering on $BASE" >&2; exit 1; }
}

# The URL of the stack's superuser (postgres) on the database of URL $1: CHECKPOINT and
# DROP DATABASE ... WITH (FORCE) against autovacuum need it.
superuser_url() { sed -E 's#://([^@/]*@)?#://postgres@#' <<<"$1"; }

# The events a consumer group has committed (its stored offsets, summed over the partitions) in
# the database of URL $1; $2: the group (duepay-projector, duepay-webhooks, ...).
committed_offsets() {
  psql -X -qtA -d "$1" -c \
    "select coalesce(sum(next_offset), 0) from consumer_offsets where group_id = '$2'"
}

# CPU ticks of a process (utime + stime + waited-for children); 0 when it is gone, also when it
# ends between being listed and being read (a Postgres backend does, often).
ticks_of() {
  local t
  t="$(sed 's/^.*) //' "/proc/$1/stat" 2>/dev/null | awk '{ print $12 + $13 + $14 + $15 }' || true)"
  echo "${t:-0}"
}
# CPU ticks of a process and its live children (Postgres backends; ended ones are in cutime).
tree_ticks() {
  local total kid
  total="$(ticks_of "$1")"
  for kid in $(pgrep -P "$1" || true); do total=$((total + $(ticks_of "$kid"))); done
  echo "$total"
}
# Role name of a child of `duepay dev --supervise` (`duepay dev --only <role>`), from its command
# line (bench/chain/at_rest.sh, bench/load/open.sh).
role_of() { tr '\0' ' ' <"/proc/$1/cmdline" 2>/dev/null | sed -nE 's/.*--only ([a-z]+).*/\1/p'; }

# desc_ticks PID [STOP...]: CPU ticks of PID and all its live descendants, not descending into the
# STOP pids (nor counting them); 0 for a pid that is not a number > 0 (pgrep -P 0 would list init).
desc_ticks() {
  local root="$1" total kid
  shift
  [[ "$root" =~ ^[1-9][0-9]*$ ]] || { echo 0; return; }
  total="$(ticks_of "$root")"
  for kid in $(pgrep -P "$root" || true); do
    [[ " $* " == *" $kid "* ]] && continue
    total=$((total + $(desc_ticks "$kid" "$@")))
  done
  echo "$total"
}

# pg_mode: "ha" when DATABASE_URL is the HA stack's multi-host URL (HA=1, infra/dev/postgres-ha.sh,
# ADR 0209), else "single" (var/pg). An external Postgres counts as single and its CPU as 0.
pg_mode() {
  if [[ "${DATABASE_URL:-}" == "$("$ROOT/infra/dev/postgres-ha.sh" url 2>/dev/null)" ]]; then
    echo ha
  else
    echo single
  fi
}

# postmaster_of DATADIR: the pid in DATADIR/postmaster.pid, or 0 (stopped, or unreadable: the HA
# nodes' directories are the postgres user's, so the HA figures need root, as the stack does).
postmaster_of() { head -1 "$1/postmaster.pid" 2>/dev/null || echo 0; }

# pg_ticks: CPU ticks of the stack's data Postgres, backends included: var/pg's postmaster with
# its children; with HA both nodes' (the primary, and the synchronous standby's startup process,
# walreceiver and the primary's walsender are children of theirs). Pids are looked up at each
# call, so call it right before and right after what it measures.
pg_ticks() {
  if [[ "$(pg_mode)" == ha ]]; then
    echo $(($(tree_ticks "$(postmaster_of "$ROOT/var/pg-ha/node1")") +
      $(tree_ticks "$(postmaster_of "$ROOT/var/pg-ha/node2")")))
  else
    tree_ticks "$(postmaster_of "$ROOT/var/pg/data")"
  fi
}

# pg_ha_ticks: CPU ticks of pg_auto_failover itself, 0 without HA: the three keepers (pg_autoctl
# run of the monitor, node1 and node2, with their services and what they spawn) and the monitor's
# Postgres with its backends; the data nodes' postmasters are in pg_ticks, not here. The keepers'
# queries to their own node run in that node's backends (in pg_ticks).
pg_ha_ticks() {
  [[ "$(pg_mode)" == ha ]] || { echo 0; return; }
  local ha="$ROOT/var/pg-ha" total=0 name
  local stop=("$(postmaster_of "$ha/node1")" "$(postmaster_of "$ha/node2")")
  for name in monitor node1 node2; do
    total=$((total + $(desc_ticks "$(cat "$ha/$name.pid" 2>/dev/null || echo 0)" "${stop[@]}")))
  done
  echo "$total"
}
