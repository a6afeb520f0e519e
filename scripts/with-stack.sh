#!/usr/bin/env bash
# with-stack.sh [--banner] CMD ARGS...: bring the dev stack up (infra/dev/stack.sh up), run CMD in
# the foreground with var/dev.env in its environment, then bring the stack down, also when CMD
# fails or on Ctrl-C / SIGTERM. Exits with CMD's status (130/143 when interrupted).
# `make test` runs ctest this way and `make run` runs `build/duepay dev` (with --banner).
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { printf '[with-stack] %s\n' "$*" >&2; }

banner=0
if [[ "${1:-}" == "--banner" ]]; then banner=1; shift; fi
(($#)) || { echo "usage: $0 [--banner] CMD ARGS..." >&2; exit 2; }

stopping=0
stop_stack() {
  ((stopping)) && return
  stopping=1
  log "stopping the stack"
  infra/dev/stack.sh down || log "stack down reported an error (see above)"
}
# The command runs in the foreground and gets Ctrl-C itself; once it has exited, leave through
# the EXIT trap, which stops the stack.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'rc=$?; stop_stack; exit $rc' EXIT

infra/dev/stack.sh up || { log "stack up failed"; exit 1; }
set -a
# shellcheck disable=SC1091
source var/dev.env
set +a

# make run gives every role an ops listener (/metrics /healthz /readyz): the supervisor on
# DUEPAY_DEV_OPS_PORT and the roles on the ports after it (duepay dev --ops-base-port). Their URLs
# go into var/dev.env for other shells, and into the banner.
ops_lines=""
if [[ -n "${DUEPAY_DEV_OPS_PORT:-}" ]]; then
  i=0
  for role in supervisor api checkout projector chainwatch webhooks dashboard; do
    var="DUEPAY_OPS_URL_${role^^}"
    url="http://127.0.0.1:$((DUEPAY_DEV_OPS_PORT + i))"
    echo "$var=$url" >>var/dev.env
    export "$var=$url"
    ops_lines+="$(printf '\n  %-12s %s/metrics' "$role" "$url")"
    i=$((i + 1))
  done
fi

if ((banner)); then
  # A DATABASE_URL of your own may carry a password (user:password@ or ?password=): masked.
  db_shown="$(sed -E -e 's#^([A-Za-z][A-Za-z0-9+.-]*://[^:/@]*):[^@/]*@#\1:***@#' \
    -e 's#([?&]password=)[^&]*#\1***#' <<<"$DATABASE_URL")"
  cat <<BANNER

  duepay dev stack is up   (environment: var/dev.env, stop with Ctrl-C)
  API          $DUEPAY_BASE_URL
  checkout     $DUEPAY_CHECKOUT_URL/c/<invoiceId>   (the buyer's page; docs/checkout.md)
  dashboard    $DUEPAY_DASHBOARD_URL   (sign in with a browser wallet; docs/dashboard.md)
  Postgres     $db_shown
  Kafka        $KAFKA_BOOTSTRAP   topic $DUEPAY_TOPIC
  test key     ${DUEPAY_DEMO_TEST_KEY:-(none: build/duepay admin demo did not run)}${ops_lines:+

  Ops: /metrics /healthz /readyz of each role (each a process of its own, restarted if it dies)$ops_lines}

  Create a charge:
    curl -s -X POST $DUEPAY_BASE_URL/v1/invoices -H "x-api-key: ${DUEPAY_DEMO_TEST_KEY:-<key>}" \\
      -H 'content-type: application/json' -d '{"chainId":80002,"amount":"1000000"}'
  Same variables in another shell:  set -a; . var/dev.env; set +a

BANNER
fi

"$@"
