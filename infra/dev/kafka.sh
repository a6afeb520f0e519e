#!/usr/bin/env bash
# The dev/test Kafka broker: Apache Kafka 3.9 in KRaft mode, one JVM that is broker and controller,
# run from the jars that infra/kafka/pom.xml resolves (ADR 0030). No Docker, no ZooKeeper.
#
#   kafka.sh libs            copy the broker jars into var/kafka/libs (skipped when the pom is unchanged)
#   kafka.sh start           format storage once, start the broker, wait until it serves metadata
#   kafka.sh stop            SIGTERM, wait, SIGKILL after KAFKA_STOP_TIMEOUT s (default 30); data kept
#   kafka.sh status          exit 0 when up (prints pid, RSS, port), 3 when down
#   kafka.sh create-topic [T [P]]  create T (default $DUEPAY_TOPIC) with P partitions if missing
#   kafka.sh topics          list topics
#   kafka.sh run-class C ... run a Kafka tool class with the tools' logging (e.g. ConsoleProducer)
#
# External broker: when KAFKA_BOOTSTRAP is set to anything but our own 127.0.0.1:19092, start only
# waits for it and create-topic creates the topic there; stop is a no-op.
# KAFKA_DIR (default var/kafka): where a broker of its own keeps its config, pid, log and data
# (data/); the jars stay in var/kafka/libs. A test with a broker of its own in a network namespace
# of its own uses it (tests/integration/ops/kafka_disk_full_test.sh).
set -euo pipefail
DEV_COMPONENT=kafka
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST=127.0.0.1
PORT=19092
CONTROLLER_PORT=19093
OWN_BOOTSTRAP="$HOST:$PORT"
BOOTSTRAP="${KAFKA_BOOTSTRAP:-$OWN_BOOTSTRAP}"
TOPIC="${DUEPAY_TOPIC:-duepay.charge-events.v1}"
PARTITIONS="${DUEPAY_TOPIC_PARTITIONS:-6}"
START_TIMEOUT="${KAFKA_START_TIMEOUT:-90}"
STOP_TIMEOUT="${KAFKA_STOP_TIMEOUT:-30}"
HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"

KDIR="${KAFKA_DIR:-$VAR/kafka}"
LIBS="$VAR/kafka/libs"
DATA="$KDIR/data"
PIDFILE="$KDIR/kafka.pid"
LOGFILE="$KDIR/kafka.log"
PROPS="$KDIR/server.properties"
CONF="$ROOT/infra/kafka/config"
POM="$ROOT/infra/kafka/pom.xml"

external() { [[ "$BOOTSTRAP" != "$OWN_BOOTSTRAP" ]]; }

# Tools are short-lived JVMs: client-style flags that start quickly.
tool() {
  local cls="$1"; shift
  java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$CONF/tools-log4j.properties" \
    -cp "$LIBS/*" "$cls" "$@"
}

ensure_libs() {
  local want have=""
  want="$(sha256sum "$POM" | cut -d' ' -f1)"
  [[ -f "$LIBS/.pom.sha256" ]] && have="$(cat "$LIBS/.pom.sha256")"
  if [[ "$want" == "$have" ]] && compgen -G "$LIBS/kafka_2.13-*.jar" >/dev/null; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found: run scripts/install-deps.sh"
  log "resolving the broker jars with Maven into $LIBS (first run downloads ~50 MB)"
  rm -rf "$LIBS"
  mkdir -p "$LIBS"
  if ! mvn -B -q -ntp -Dstyle.color=never -f "$POM" package -Dkafka.libs.dir="$LIBS" \
       </dev/null >"$KDIR/mvn.log" 2>&1; then
    tail -n 40 "$KDIR/mvn.log" >&2
    die "mvn could not resolve $POM (full output in $KDIR/mvn.log)"
  fi
  echo "$want" >"$LIBS/.pom.sha256"
}

render_props() {
  mkdir -p "$DATA"
  sed -e "s#@DATA_DIR@#$DATA#g" -e "s#@HOST@#$HOST#g" \
      -e "s#@CONTROLLER_PORT@#$CONTROLLER_PORT#g" -e "s#@PORT@#$PORT#g" \
      "$CONF/server.properties" >"$PROPS.tmp"
  mv "$PROPS.tmp" "$PROPS"
}

format_storage() {
  if [[ ! -s "$KDIR/cluster.id" ]]; then
    tool kafka.tools.StorageTool random-uuid | tr -d '[:space:]' >"$KDIR/cluster.id.tmp"
    mv "$KDIR/cluster.id.tmp" "$KDIR/cluster.id"
  fi
  if [[ ! -f "$DATA/meta.properties" ]]; then
    log "formatting storage in $DATA (cluster id $(cat "$KDIR/cluster.id"))"
    tool kafka.tools.StorageTool format --ignore-formatted \
      --cluster-id "$(cat "$KDIR/cluster.id")" --config "$PROPS" >/dev/null
  fi
}

# metadata_ok: the broker answers a Metadata request naming at least one live broker. Uses the
# tiny Node client (~50 ms); without node, a JVM Admin call (TopicCommand --list, ~1.5 s).
metadata_ok() {
  local first="${BOOTSTRAP%%,*}"
  if command -v node >/dev/null; then
    node "$ROOT/infra/dev/kafka_metadata.mjs" "$first" >/dev/null 2>&1
    return
  fi
  timeout 30 bash -c "$(declare -f tool); CONF='$CONF' LIBS='$LIBS'; tool org.apache.kafka.tools.TopicCommand \
    --bootstrap-server '$BOOTSTRAP' --list \
    --command-config <(printf 'request.timeout.ms=5000\ndefault.api.timeout.ms=20000\n')" >/dev/null 2>&1
}

log_tail() { [[ -f "$LOGFILE" ]] && { log "last lines of $LOGFILE:"; tail -n 40 "$LOGFILE" >&2; }; true; }

wait_ready() {
  local t0 deadline host="${BOOTSTRAP%%,*}"
  t0=$(now_ms); deadline=$((SECONDS + START_TIMEOUT))
  until port_open "${host%:*}" "${host##*:}"; do
    if ! external && ! pid_alive "$PIDFILE" kafka.Kafka; then
      log_tail; die "the broker exited during start-up (see $LOGFILE)"
    fi
    (( SECONDS < deadline )) || { log_tail; die "broker port $host not open after ${START_TIMEOUT}s"; }
    sleep 0.2
  done
  until metadata_ok; do
    if ! external && ! pid_alive "$PIDFILE" kafka.Kafka; then
      log_tail; die "the broker exited during start-up (see $LOGFILE)"
    fi
    (( SECONDS < deadline )) || { log_tail; die "broker $BOOTSTRAP does not answer metadata after ${START_TIMEOUT}s"; }
    sleep 0.3
  done
  log "ready at $BOOTSTRAP in $(( $(now_ms) - t0 )) ms"
}

start() {
  if external; then
    log "using the external broker at $BOOTSTRAP"
    ensure_libs
    wait_ready
    return
  fi
  with_lock kafka
  if pid_alive "$PIDFILE" kafka.Kafka; then
    log "already running (pid $(cat "$PIDFILE"))"
    wait_ready
    return
  fi
  local p
  for p in "$PORT" "$CONTROLLER_PORT"; do
    port_open "$HOST" "$p" && die "port $p is taken by a process this checkout did not start ($(port_owner "$p")); if it is another checkout's stack, stop it with its own infra/dev/stack.sh down"
  done
  command -v java >/dev/null || die "java not found: run scripts/install-deps.sh"
  ensure_libs
  render_props
  format_storage
  mkdir -p "$KDIR/logs"
  # Keep one previous log; the broker appends to kafka.log.
  if [[ -f "$LOGFILE" ]] && (( $(stat -c %s "$LOGFILE") > 50 * 1024 * 1024 )); then
    mv "$LOGFILE" "$LOGFILE.1"
  fi
  local t0; t0=$(now_ms)
  # Class-data sharing: the first run records the loaded classes into var/kafka/broker.jsa when it
  # exits (that stop takes a few seconds longer); later starts map them and start ~40% faster.
  # Redone when the jars or the JVM change; a stale or unusable archive only costs a JVM warning.
  local jsa="$KDIR/broker.jsa" cds_key cds_opt
  cds_key="$(cat "$LIBS/.pom.sha256") $(java -version 2>&1 | head -1)"
  if [[ -s "$jsa" && "$(cat "$jsa.key" 2>/dev/null)" == "$cds_key" ]]; then
    cds_opt="-XX:SharedArchiveFile=$jsa"
  else
    rm -f "$jsa" "$jsa.key"
    echo "$cds_key" >"$jsa.pending"   # becomes $jsa.key once a clean stop has written the archive
    cds_opt="-XX:ArchiveClassesAtExit=$jsa"
  fi
  # setsid: the broker gets its own session, so a Ctrl-C in the terminal that started it (make run)
  # or a test runner killing its process group does not take it down; only kafka.sh stop does.
  # shellcheck disable=SC2086
  setsid java $HEAP_OPTS -server -XX:+UseG1GC -XX:MaxGCPauseMillis=20 \
    -XX:InitiatingHeapOccupancyPercent=35 -XX:+ExplicitGCInvokesConcurrent -XX:MaxInlineLevel=15 \
    "$cds_opt" -Xlog:cds=off,cds+dynamic=off -Djava.awt.headless=true -Dkafka.logs.dir="$KDIR/logs" \
    -Dlog4j.configuration="file:$CONF/log4j.properties" \
    -cp "$LIBS/*" kafka.Kafka "$PROPS" >>"$LOGFILE" 2>&1 </dev/null 9>&- &
  echo $! >"$PIDFILE"
  log "started pid $(cat "$PIDFILE"), log $LOGFILE"
  wait_ready
  log "start took $(( $(now_ms) - t0 )) ms"
}

stop() {
  if external; then
    log "external broker at $BOOTSTRAP is not ours to stop"
    return 0
  fi
  with_lock kafka
  if ! pid_alive "$PIDFILE" kafka.Kafka; then
    log "not running"
    rm -f "$PIDFILE"
    return 0
  fi
  local pid t0 clean=1; pid="$(cat "$PIDFILE")"; t0=$(now_ms)
  kill -TERM "$pid" 2>/dev/null || true
  local deadline=$((SECONDS + STOP_TIMEOUT))
  while kill -0 "$pid" 2>/dev/null; do
    if (( SECONDS >= deadline )); then
      log "no clean exit after ${STOP_TIMEOUT}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      clean=0
      sleep 0.2
      break
    fi
    sleep 0.1
  done
  local jsa="$KDIR/broker.jsa"
  if [[ -f "$jsa.pending" ]]; then
    if ((clean)) && [[ -s "$jsa" ]]; then mv "$jsa.pending" "$jsa.key"; else rm -f "$jsa" "$jsa.pending"; fi
  fi
  deadline=$((SECONDS + 10))
  while port_open "$HOST" "$PORT" && (( SECONDS < deadline )); do sleep 0.1; done
  rm -f "$PIDFILE"
  log "stopped pid $pid in $(( $(now_ms) - t0 )) ms (data kept in $DATA)"
}

status() {
  if external; then
    metadata_ok && { echo "external broker $BOOTSTRAP: up"; return 0; }
    echo "external broker $BOOTSTRAP: down"; return 3
  fi
  if pid_alive "$PIDFILE" kafka.Kafka; then
    local pid; pid="$(cat "$PIDFILE")"
    echo "kafka: running pid $pid, $BOOTSTRAP, rss $(($(awk '/VmRSS/{print $2}' "/proc/$pid/status") / 1024)) MiB, data $DATA"
    return 0
  fi
  echo "kafka: stopped"
  return 3
}

# partition_count TOPIC: prints the partition count, or nothing when the topic does not exist.
partition_count() {
  local n
  if command -v node >/dev/null; then
    n="$(node "$ROOT/infra/dev/kafka_metadata.mjs" "${BOOTSTRAP%%,*}" "$1" 2>/dev/null | sed -n 's/^partitions=//p')"
    [[ -n "$n" && "$n" != 0 ]] && echo "$n"
    return 0
  fi
  tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --describe --topic "$1" 2>/dev/null \
    | sed -n 's/.*PartitionCount: *\([0-9]*\).*/\1/p' | head -1
  true
}

create_topic() {
  local topic="${1:-$TOPIC}" parts="${2:-$PARTITIONS}" have
  ensure_libs
  have="$(partition_count "$topic")"
  if [[ -z "$have" ]]; then
    # Infinite retention: the topic is the source of truth (docs/design.md).
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --create --if-not-exists \
      --topic "$topic" --partitions "$parts" --replication-factor 1 --config retention.ms=-1 >/dev/null
    local i
    for i in 1 2 3 4 5 6 7 8 9 10; do
      have="$(partition_count "$topic")"
      [[ -n "$have" ]] && break
      sleep 0.3
    done
    [[ -n "$have" ]] || die "topic $topic was not created"
    log "created topic $topic with $have partitions"
  else
    log "topic $topic exists with $have partitions"
  fi
  [[ "$have" == "$parts" ]] || log "warning: $topic has $have partitions, DUEPAY_TOPIC_PARTITIONS=$parts (not changed)"
}

cmd="${1:-}"; shift || true
case "$cmd" in
  libs) ensure_libs ;;
  start) start ;;
  stop) stop ;;
  status) status ;;
  create-topic) create_topic "$@" ;;
  topics) tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOTSTRAP" --list ;;
  run-class) ensure_libs; tool "$@" ;;
  *) echo "usage: $0 libs|start|stop|status|create-topic [topic [partitions]]|topics|run-class CLASS ARGS..." >&2; exit 2 ;;
esac
