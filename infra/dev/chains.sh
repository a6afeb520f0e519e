#!/usr/bin/env bash
# The two dev EVM chains: anvil as chainId 137 ("mainnet") on 127.0.0.1:18545 and chainId 80002
# ("testnet") on 127.0.0.1:18546, 1-second blocks, with duepay's contracts deployed by
# infra/chain/deploy.mjs (which writes var/chains.json and var/chains.env).
#
#   chains.sh start    start what is not running, wait for eth_chainId, deploy (a deployment
#                      still live on a running chain is reused; a restarted chain is redeployed)
#   chains.sh stop     stop both anvils (their state is gone: anvil runs without --state)
#   chains.sh status   one line per chain; exit 0 when both are up, 3 otherwise
#
# Chain state is NOT persisted: every anvil start begins at block 0 and the deploy script
# redeploys, at the same addresses (fresh deployer nonces). pids and logs in var/chains/.
# DUEPAY_SIGNER_KEY comes from the environment, else from var/secrets.env (stack.sh creates it).
set -euo pipefail
DEV_COMPONENT=chains
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

CHAINS_DIR="$VAR/chains"
ANVIL="$ROOT/node_modules/.bin/anvil"
CHAINS=("137:18545" "80002:18546")   # chainId:port

pidfile() { echo "$CHAINS_DIR/anvil-$1.pid"; }
logfile() { echo "$CHAINS_DIR/anvil-$1.log"; }

# rpc PORT METHOD: the JSON-RPC result (a hex string), or fail.
rpc() {
  local out
  out="$(curl -sf -m 2 -H 'content-type: application/json' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"$2\",\"params\":[]}" "http://127.0.0.1:$1")" || return 1
  [[ "$out" =~ \"result\":\"(0x[0-9a-fA-F]+)\" ]] || return 1
  echo "${BASH_REMATCH[1]}"
}

# chain_id_on PORT: decimal chain id answered on PORT, or fail.
chain_id_on() { local hex; hex="$(rpc "$1" eth_chainId)" || return 1; echo $((hex)); }

# ours ID: true when the pid file names a live anvil that we started.
ours() {
  local f; f="$(pidfile "$1")"
  pid_alive "$f" && grep -q anvil "/proc/$(cat "$f")/cmdline" 2>/dev/null
}

start_one() {
  local id="$1" port="$2" pid log
  log="$(logfile "$id")"
  if ours "$id" && [[ "$(chain_id_on "$port" 2>/dev/null)" == "$id" ]]; then
    log "chain $id already running on 127.0.0.1:$port"
    return 0
  fi
  ours "$id" && stop_one "$id"   # alive but not answering: start afresh
  port_open 127.0.0.1 "$port" && die "port $port is taken by a process we did not start"
  rm -f "$(pidfile "$id")"
  # setsid: anvil (the node_modules/.bin shim and the native binary it spawns) gets its own
  # process group, so stop can end both; 9>&- so it does not hold the start lock.
  setsid "$ANVIL" --host 127.0.0.1 --port "$port" --chain-id "$id" --block-time 1 \
    </dev/null >"$log" 2>&1 9>&- &   # a fresh chain, a fresh log
  pid=$!
  echo "$pid" >"$(pidfile "$id")"
  local t0 deadline; t0=$(now_ms); deadline=$((SECONDS + 30))
  until [[ "$(chain_id_on "$port" 2>/dev/null)" == "$id" ]]; do
    if ! kill -0 "$pid" 2>/dev/null; then tail -n 20 "$log" >&2; die "anvil for chain $id exited (see $log)"; fi
    (( SECONDS < deadline )) || { stop_one "$id"; die "anvil for chain $id not answering on :$port after 30s"; }
    sleep 0.2
  done
  log "chain $id up on 127.0.0.1:$port in $(( $(now_ms) - t0 )) ms (pid $pid, log $log)"
}

stop_one() {
  local id="$1" f pid
  f="$(pidfile "$id")"
  if ! ours "$id"; then
    rm -f "$f"
    log "chain $id not running"
    return 0
  fi
  pid="$(cat "$f")"
  kill -TERM -- "-$pid" 2>/dev/null || true
  local deadline=$((SECONDS + 10))
  while kill -0 "$pid" 2>/dev/null && (( SECONDS < deadline )); do sleep 0.1; done
  kill -0 "$pid" 2>/dev/null && kill -KILL -- "-$pid" 2>/dev/null || true
  rm -f "$f"
  log "chain $id stopped"
}

start() {
  with_lock chains
  mkdir -p "$CHAINS_DIR"
  [[ -x "$ANVIL" ]] || die "no $ANVIL: install the npm packages (npm ci)"
  if [[ -z "${DUEPAY_SIGNER_KEY:-}" && -s "$VAR/secrets.env" ]]; then
    DUEPAY_SIGNER_KEY="$(sed -n 's/^DUEPAY_SIGNER_KEY=//p' "$VAR/secrets.env")"
  fi
  [[ -n "${DUEPAY_SIGNER_KEY:-}" ]] \
    || die "DUEPAY_SIGNER_KEY is not set and $VAR/secrets.env has none (infra/dev/stack.sh up creates it)"
  export DUEPAY_SIGNER_KEY
  local c
  for c in "${CHAINS[@]}"; do start_one "${c%%:*}" "${c##*:}"; done
  node "$ROOT/infra/chain/deploy.mjs" --var-dir "$VAR" \
    --chain "80002=http://127.0.0.1:18546" --chain "137=http://127.0.0.1:18545" 2>&1 9>&- \
    | sed -u 's/^/[chains] /' >&2
}

stop() {
  with_lock chains
  local c
  for c in "${CHAINS[@]}"; do stop_one "${c%%:*}"; done
}

status() {
  local c id port block rc=0
  for c in "${CHAINS[@]}"; do
    id="${c%%:*}"; port="${c##*:}"
    if ours "$id" && [[ "$(chain_id_on "$port" 2>/dev/null)" == "$id" ]]; then
      block="$(rpc "$port" eth_blockNumber)"
      echo "chain $id: running on 127.0.0.1:$port, block $((block)), pid $(cat "$(pidfile "$id")")"
    else
      echo "chain $id: stopped"
      rc=3
    fi
  done
  return $rc
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
