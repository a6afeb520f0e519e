#!/usr/bin/env bash
# The whole dev/test stack in one command, idempotent (a second `up` reuses what runs).
#
#   stack.sh up      secrets (once) → Postgres → Kafka + topic → chains (infra/dev/chains.sh, when
#                    present) → migrations → demo project and key (build/duepay admin demo, when
#                    the binary supports it) → var/dev.env
#   stack.sh down    stop everything `up` started (chains, Kafka, Postgres); data stays in var/
#   stack.sh status  one line per component; exit 0 only when all are up
#   stack.sh migrate apply schemas/migrations/*.sql to DATABASE_URL (what `up` does; for a test
#                    that brings its own Postgres, e.g. tests/integration/ha)
#
# HA=1 (make run HA=1, make test HA=1): Postgres is a primary and a synchronous standby under
# pg_auto_failover (infra/dev/postgres-ha.sh, ADR 0209) instead of the single cluster in var/pg, and
# DATABASE_URL is the multi-host URL of both nodes (target_session_attrs=read-write).
#
# DATABASE_URL / KAFKA_BOOTSTRAP in the environment (other than our own defaults) select an
# external Postgres / broker; see infra/dev/README.md.
set -euo pipefail
DEV_COMPONENT=stack
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

DEV="$ROOT/infra/dev"
SECRETS="$VAR/secrets.env"
CHAINS_ENV="$VAR/chains.env"
DEV_ENV="$VAR/dev.env"
OWN_DATABASE_URL="postgresql://duepay@127.0.0.1:15432/duepay"
OWN_KAFKA_BOOTSTRAP="127.0.0.1:19092"
TOPIC="${DUEPAY_TOPIC:-duepay.charge-events.v1}"
PARTITIONS="${DUEPAY_TOPIC_PARTITIONS:-6}"
BIN="${DUEPAY_BIN:-$ROOT/build/duepay}"
# secp256k1 group order n: a private key must be in [1, n-1].
SECP256K1_N=FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141

# ha: HA=1 selects the HA Postgres (infra/dev/postgres-ha.sh).
ha() { [[ "${HA:-0}" == 1 ]]; }

random_hex32() { od -An -tx1 -N32 /dev/urandom | tr -d ' \n'; }

ensure_secrets() {
  [[ -s "$SECRETS" ]] && return 0
  local key
  while :; do
    key="$(random_hex32)"
    local up="${key^^}"
    [[ "$up" =~ ^0+$ ]] && continue
    # equal-length uppercase hex: byte order is numeric order
    [[ "$up" != "$SECP256K1_N" && "$(printf '%s\n%s\n' "$up" "$SECP256K1_N" | LC_ALL=C sort | head -1)" == "$up" ]] && break
  done
  umask 077
  printf 'DUEPAY_SIGNER_KEY=0x%s\nDUEPAY_SERVER_SECRET=%s\n' "$key" "$(random_hex32)" >"$SECRETS.tmp"
  mv "$SECRETS.tmp" "$SECRETS"
  log "created $SECRETS (new signer key and server secret)"
}

migrate() {
  local url="$1" f version applied
  local -a files=()
  shopt -s nullglob
  files=("$ROOT"/schemas/migrations/*.sql)
  shopt -u nullglob
  PGOPTIONS="-c client_min_messages=warning" psql -X -q -v ON_ERROR_STOP=1 -d "$url" -c "create table if not exists schema_migrations (
      version text primary key, applied_at timestamptz not null default now())"
  applied="$(psql -X -q -tA -d "$url" -c "select version from schema_migrations")"
  local n=0
  for f in "${files[@]}"; do   # the glob sorts by name, so 0001_ before 0002_
    version="$(basename "$f" .sql)"
    grep -qxF "$version" <<<"$applied" && continue
    log "migration $version"
    # One transaction for the file and its bookkeeping row.
    psql -X -q -v ON_ERROR_STOP=1 --single-transaction -d "$url" -f "$f" \
      -c "insert into schema_migrations (version) values ('$version')" >/dev/null \
      || die "migration $f failed (nothing of it was applied)"
    n=$((n + 1))
  done
  log "migrations: $n applied, $(( ${#files[@]} - n )) already present"
}

# write_env [DEMO_KEY]: var/dev.env, sourceable shell KEY=value lines.
write_env() {
  local demo_key="${1:-}"
  {
    echo "# written by infra/dev/stack.sh up; source it: set -a; . var/dev.env; set +a"
    echo "DUEPAY_ROOT=$ROOT"
    echo "DUEPAY_BASE_URL=${DUEPAY_BASE_URL:-http://127.0.0.1:8080}"
    echo "DUEPAY_CHECKOUT_URL=${DUEPAY_CHECKOUT_URL:-http://127.0.0.1:8081}"
    echo "DUEPAY_DASHBOARD_URL=${DUEPAY_DASHBOARD_URL:-http://127.0.0.1:8082}"
    echo "DATABASE_URL=$DATABASE_URL"
    echo "KAFKA_BOOTSTRAP=$KAFKA_BOOTSTRAP"
    echo "DUEPAY_TOPIC=$TOPIC"
    echo "DUEPAY_TOPIC_PARTITIONS=$PARTITIONS"
    echo "DUEPAY_CHAINS_FILE=$VAR/chains.json"
    # Dev only: webhook URLs may be http:// and loopback (docs/webhooks.md); never in production.
    echo "DUEPAY_WEBHOOK_ALLOW_INSECURE=1"
    grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$SECRETS"
    [[ -f "$CHAINS_ENV" ]] && grep -E '^[A-Za-z_][A-Za-z0-9_]*=' "$CHAINS_ENV"
    [[ -n "$demo_key" ]] && echo "DUEPAY_DEMO_TEST_KEY=$demo_key"
    true
  } >"$DEV_ENV.tmp"
  mv "$DEV_ENV.tmp" "$DEV_ENV"
}

# demo_key: run `duepay admin demo` with the stack's environment; print its "key" field.
demo_key() {
  [[ -x "$BIN" ]] || { log "no $BIN yet: skipping the demo project (DUEPAY_DEMO_TEST_KEY unset)"; return 0; }
  local out
  if ! out="$(set -a; source "$DEV_ENV"; set +a; "$BIN" admin demo 2>"$VAR/admin-demo.err" 9>&- </dev/null)"; then
    log "\`duepay admin demo\` failed or is not there yet (see $VAR/admin-demo.err): DUEPAY_DEMO_TEST_KEY unset"
    return 0
  fi
  if node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const k=JSON.parse(s).key;if(typeof k!=="string"||!k)process.exit(1);process.stdout.write(k)})' <<<"$out"; then
    log "demo project ready (DUEPAY_DEMO_TEST_KEY)"
  else
    log "\`duepay admin demo\` printed no JSON \"key\": DUEPAY_DEMO_TEST_KEY unset"
  fi
}

up() {
  with_lock stack
  local t0; t0=$(now_ms)
  mkdir -p "$VAR"
  ensure_secrets
  set -a; source "$SECRETS"; set +a
  if ha; then
    export DATABASE_URL="${DATABASE_URL:-$("$DEV/postgres-ha.sh" url)}"
  else
    export DATABASE_URL="${DATABASE_URL:-$OWN_DATABASE_URL}"
  fi
  export KAFKA_BOOTSTRAP="${KAFKA_BOOTSTRAP:-$OWN_KAFKA_BOOTSTRAP}"
  export DUEPAY_TOPIC="$TOPIC" DUEPAY_TOPIC_PARTITIONS="$PARTITIONS"

  if ha; then
    "$DEV/postgres-ha.sh" start 9>&-
  else
    "$DEV/postgres.sh" start 9>&-
  fi
  "$DEV/kafka.sh" start 9>&-
  "$DEV/kafka.sh" create-topic "$TOPIC" "$PARTITIONS" 9>&-
  if [[ -x "$DEV/chains.sh" ]]; then
    "$DEV/chains.sh" start 9>&-
  elif [[ -f "$DEV/chains.sh" ]]; then
    bash "$DEV/chains.sh" start 9>&-
  else
    log "no infra/dev/chains.sh yet: no dev chains"
  fi
  migrate "$DATABASE_URL"
  write_env
  write_env "$(demo_key)"
  log "up in $(( $(now_ms) - t0 )) ms; environment in $DEV_ENV"
}

down() {
  with_lock stack
  local rc=0
  if [[ -f "$DEV/chains.sh" ]]; then bash "$DEV/chains.sh" stop 9>&- || rc=1; fi
  "$DEV/kafka.sh" stop 9>&- || rc=1
  if [[ -n "${DATABASE_URL:-}" && "$DATABASE_URL" == "$("$DEV/postgres-ha.sh" url)" ]]; then
    # Our HA URL (var/dev.env of an HA=1 up) is not an external server: the single cluster, if
    # an earlier up started it, is ours to stop.
    DATABASE_URL= "$DEV/postgres.sh" stop 9>&- || rc=1
  else
    "$DEV/postgres.sh" stop 9>&- || rc=1
  fi
  # The HA nodes too, whatever HA says now: down stops what any earlier `up` started.
  if [[ -d "$VAR/pg-ha" ]]; then "$DEV/postgres-ha.sh" stop 9>&- || rc=1; fi
  return $rc
}

status() {
  local rc=0
  if ha; then
    "$DEV/postgres-ha.sh" status || rc=1
  else
    "$DEV/postgres.sh" status || rc=1
  fi
  "$DEV/kafka.sh" status || rc=1
  if [[ -f "$DEV/chains.sh" ]]; then bash "$DEV/chains.sh" status || rc=1; fi
  [[ -f "$DEV_ENV" ]] && echo "env: $DEV_ENV"
  return $rc
}

case "${1:-}" in
  up) up ;;
  down) down ;;
  status) status ;;
  migrate) migrate "${DATABASE_URL:?DATABASE_URL is not set}" ;;
  *) echo "usage: $0 up|down|status|migrate" >&2; exit 2 ;;
esac
