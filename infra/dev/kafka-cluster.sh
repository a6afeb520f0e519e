#!/usr/bin/env bash
# A three-broker Apache Kafka cluster on loopback, from the same jars as the dev broker (kafka.sh,
# ADR 0030), for the broker-loss test (kafka_cluster_test, docs/operations.md). Each node is
# broker and controller (KRaft quorum of three); replication settings as in production:
# default.replication.factor=3, min.insync.replicas=2 (infra/kafka/config/cluster.properties).
# `make run` and the rest of the stack stay single-broker; nothing else starts this.
#
#   kafka-cluster.sh start       format storage once, start the three nodes, wait until every
#                                node reports three live brokers
#   kafka-cluster.sh stop [N]    SIGTERM node N (1..3) or every node, wait, SIGKILL after
#                                KAFKA_STOP_TIMEOUT s (default 20); data kept
#   kafka-cluster.sh kill N      SIGKILL node N (a crash: no controlled shutdown)
#   kafka-cluster.sh start-node N  start one stopped node again
#   kafka-cluster.sh status      one line per node; exit 0 only when all three run
#   kafka-cluster.sh bootstrap   prints the bootstrap list (127.0.0.1:21092,...)
#   kafka-cluster.sh wipe        SIGKILL every node, delete its data (fresh next start; logs kept)
#
# Ports: node N serves clients on 2N092 and the controller quorum on 2N093 (N = 1, 2, 3): below the
# kernel's ephemeral range (32768+), so no outgoing connection of the running stack can hold one,
# and apart from the dev broker (19092/19093). Data and logs: var/kafka-cluster/node<N>/.
set -euo pipefail
DEV_COMPONENT=kafka-cluster
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST=127.0.0.1
NODES=(1 2 3)
START_TIMEOUT="${KAFKA_START_TIMEOUT:-120}"
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-20}"
HEAP_OPTS="${KAFKA_CLUSTER_HEAP_OPTS:--Xms128m -Xmx320m}"

LIBS="$VAR/kafka/libs"
CDIR="$VAR/kafka-cluster"
CONF="$ROOT/infra/kafka/config"

port_of() { echo "2${1}092"; }
controller_port_of() { echo "2${1}093"; }
node_dir() { echo "$CDIR/node$1"; }
pidfile() { echo "$(node_dir "$1")/kafka.pid"; }

bootstrap() {
  local n out=()
  for n in "${NODES[@]}"; do out+=("$HOST:$(port_of "$n")"); done
  (IFS=,; echo "${out[*]}")
}

voters() {
  local n out=()
  for n in "${NODES[@]}"; do out+=("$n@$HOST:$(controller_port_of "$n")"); done
  (IFS=,; echo "${out[*]}")
}

# A Kafka tool class, with kafka.sh's client-style JVM flags and logging.
tool() { "$ROOT/infra/dev/kafka.sh" run-class "$@"; }

check_node() {
  [[ "${1:-}" =~ ^[123]$ ]] || die "node must be 1, 2 or 3 (got '${1:-}')"
}

render_props() {
  local n="$1" dir; dir="$(node_dir "$n")"
  mkdir -p "$dir/data" "$dir/logs"
  sed -e "s#@NODE_ID@#$n#g" -e "s#@DATA_DIR@#$dir/data#g" -e "s#@HOST@#$HOST#g" \
      -e "s#@PORT@#$(port_of "$n")#g" -e "s#@CONTROLLER_PORT@#$(controller_port_of "$n")#g" \
      -e "s#@VOTERS@#$(voters)#g" "$CONF/cluster.properties" >"$dir/server.properties.tmp"
  mv "$dir/server.properties.tmp" "$dir/server.properties"
}

# One cluster id for the three nodes, formatted once each.
format_storage() {
  if [[ ! -s "$CDIR/cluster.id" ]]; then
    tool kafka.tools.StorageTool random-uuid | tr -d '[:space:]' >"$CDIR/cluster.id.tmp"
    mv "$CDIR/cluster.id.tmp" "$CDIR/cluster.id"
  fi
  local n dir
  for n in "${NODES[@]}"; do
    dir="$(node_dir "$n")"
    [[ -f "$dir/data/meta.properties" ]] && continue
    log "formatting node $n storage (cluster id $(cat "$CDIR/cluster.id"))"
    tool kafka.tools.StorageTool format --ignore-formatted \
      --cluster-id "$(cat "$CDIR/cluster.id")" --config "$dir/server.properties" >/dev/null
  done
}

# The dev broker's class-data archive (kafka.sh writes it) serves these JVMs too: same jars, same
# JVM. Without it the nodes simply start a little slower.
cds_opt() {
  local jsa="$VAR/kafka/broker.jsa" key
  key="$(cat "$LIBS/.pom.sha256" 2>/dev/null) $(java -version 2>&1 | head -1)"
  if [[ -s "$jsa" && "$(cat "$jsa.key" 2>/dev/null)" == "$key" ]]; then
    echo "-XX:SharedArchiveFile=$jsa"
  else
    echo "-Xshare:auto"
  fi
}

start_node() {
  local n="$1" dir; dir="$(node_dir "$n")"
  if pid_alive "$(pidfile "$n")" kafka.Kafka; then
    log "node $n already running (pid $(cat "$(pidfile "$n")"))"
    return 0
  fi
  local p
  for p in "$(port_of "$n")" "$(controller_port_of "$n")"; do
    port_open "$HOST" "$p" && die "port $p is taken ($(port_owner "$p"))"
  done
  render_props "$n"
  # setsid: own session, so a test runner killing its process group does not take the node down.
  # shellcheck disable=SC2086
  setsid java $HEAP_OPTS -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 "$(cds_opt)" \
    -Xlog:cds=off,cds+dynamic=off -Djava.awt.headless=true -Dkafka.logs.dir="$dir/logs" \
    -Dlog4j.configuration="file:$CONF/log4j.properties" \
    -cp "$LIBS/*" kafka.Kafka "$dir/server.properties" >>"$dir/kafka.log" 2>&1 </dev/null 9>&- &
  echo $! >"$(pidfile "$n")"
  log "node $n started, pid $(cat "$(pidfile "$n")"), port $(port_of "$n"), log $dir/kafka.log"
}

# live_brokers N: the live broker count node N reports (0 when it does not answer).
live_brokers() {
  local out
  out="$(node "$ROOT/infra/dev/kafka_metadata.mjs" "$HOST:$(port_of "$1")" 2>/dev/null)" || true
  sed -n 's/^brokers=//p' <<<"$out" | grep . || echo 0
}

# wait_brokers WANT NODE...: until each listed node reports WANT live brokers.
wait_brokers() {
  local want="$1"; shift
  local deadline=$((SECONDS + START_TIMEOUT)) n ok
  while :; do
    ok=1
    for n in "$@"; do
      # kill -0, not pid_alive: just after the fork the command line is not java's yet.
      if ! kill -0 "$(cat "$(pidfile "$n")" 2>/dev/null || echo 0)" 2>/dev/null; then
        grep -E "ERROR|FATAL|Exception" "$(node_dir "$n")/kafka.log" | head -n 20 >&2 || true
        tail -n 15 "$(node_dir "$n")/kafka.log" >&2 || true
        die "node $n exited during start-up (see $(node_dir "$n")/kafka.log)"
      fi
      [[ "$(live_brokers "$n")" == "$want" ]] || ok=0
    done
    ((ok)) && return 0
    (( SECONDS < deadline )) || die "the nodes $* do not report $want live brokers after ${START_TIMEOUT}s"
    sleep 0.5
  done
}

start() {
  command -v java >/dev/null || die "java not found: run scripts/install-deps.sh"
  command -v node >/dev/null || die "node not found: run scripts/install-deps.sh"
  "$ROOT/infra/dev/kafka.sh" libs
  with_lock kafka-cluster
  mkdir -p "$CDIR"
  local n t0; t0=$(now_ms)
  for n in "${NODES[@]}"; do render_props "$n"; done
  format_storage
  for n in "${NODES[@]}"; do start_node "$n"; done
  wait_brokers 3 "${NODES[@]}"
  log "ready at $(bootstrap) in $(( $(now_ms) - t0 )) ms"
}

start_one() {
  check_node "$1"
  with_lock kafka-cluster
  local t0; t0=$(now_ms)
  start_node "$1"
  wait_brokers 3 "$1"
  log "node $1 back in $(( $(now_ms) - t0 )) ms"
}

stop_node() {
  local n="$1" sig="$2" pid t0; t0=$(now_ms)
  if ! pid_alive "$(pidfile "$n")" kafka.Kafka; then
    rm -f "$(pidfile "$n")"
    return 0
  fi
  pid="$(cat "$(pidfile "$n")")"
  kill "-$sig" "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null; do
    if (( SECONDS >= deadline )); then
      log "node $n: no clean exit after ${STOP_TIMEOUT}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  rm -f "$(pidfile "$n")"
  log "node $n (pid $pid) stopped by SIG$sig in $(( $(now_ms) - t0 )) ms"
}

stop() {
  local n
  if [[ -n "${1:-}" ]]; then
    check_node "$1"
    stop_node "$1" TERM
    return
  fi
  # Together: a node stopping alone waits for the others to take over its partitions.
  for n in "${NODES[@]}"; do
    if pid_alive "$(pidfile "$n")" kafka.Kafka; then
      kill -TERM "$(cat "$(pidfile "$n")")" 2>/dev/null || true
    fi
  done
  for n in "${NODES[@]}"; do stop_node "$n" TERM; done
}

status() {
  local n up=0 pf
  for n in "${NODES[@]}"; do
    pf="$(pidfile "$n")"
    if pid_alive "$pf" kafka.Kafka; then
      echo "node $n: running pid $(cat "$pf"), $HOST:$(port_of "$n"), sees $(live_brokers "$n") live brokers"
      up=$((up + 1))
    else
      echo "node $n: stopped"
    fi
  done
  ((up == ${#NODES[@]})) || return 3
}

cmd="${1:-}"; shift || true
case "$cmd" in
  start) start ;;
  start-node) start_one "${1:-}" ;;
  stop) stop "${1:-}" ;;
  kill) check_node "${1:-}"; stop_node "$1" KILL ;;
  status) status ;;
  bootstrap) bootstrap ;;
  wipe)
    for n in "${NODES[@]}"; do stop_node "$n" KILL; done
    # The logs stay (appended to by the next start) so a failed run can be read afterwards.
    rm -rf "$CDIR"/node*/data "$CDIR"/node*/logs "$CDIR/cluster.id"
    log "removed the cluster's data in $CDIR (kafka.log of each node kept)" ;;
  *) echo "usage: $0 start|stop [N]|kill N|start-node N|status|bootstrap|wipe" >&2; exit 2 ;;
esac
