#!/usr/bin/env bash
# ctest kafka_disk_full (docs/operations.md "Full disks", ADR 0220): Kafka's log directory on a
# small volume of its own, filled during creates. The test runs in a network and mount namespace
# of its own (unshare -mn; skips with 77 where it may not) and brings its own stack there: a broker
# (infra/dev/kafka.sh with KAFKA_DIR in the work directory, its data/ a 64 MB tmpfs), a Postgres
# (initdb in a temporary directory, the migrations, a demo key), a topic of 3 partitions, a `duepay
# api` (with its ops listener) and a projector. Creates go one at a time, each with its own
# Idempotency-Key, with a client timeout of DFL_CLIENT_TIMEOUT = 8 s; the api's producer runs with
# a delivery timeout (DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS) of 2 s instead of the default 5 s, so the
# creates that meet the full disk answer sooner and the test sees the setting reach librdkafka.
# Then:
#   1. one create before the fill is a 201;
#   2. a file fills the volume; creates until 3 of them met the full disk (at most 8): every answer
#      is a 201 or a 503 event_log_outcome_unknown / event_log_unavailable in the envelope with
#      meta.retryAfterMs and Retry-After, each within the client timeout, and each
#      event_log_outcome_unknown within 4.5 s (under the default timeout of 5 s); the broker shuts itself
#      down (its only log directory failed) and /readyz on the api's ops listener is 503 naming the
#      producer ("kafka producer <topic>");
#   3. the file is deleted and the broker started again (`kafka.sh start`, as its service manager
#      would): with no duepay role restarted (same pids), each key retried until its 201 (bounded),
#      /readyz is 200 again;
#   4. every key has exactly one charge in the read model, readable by id, and exactly one
#      charge.created record on the topic (read raw with Kafka's ConsoleConsumer, so a record
#      written twice would show).
# Helpers shared with pg_disk_full: disk_full_lib.sh.
#   kafka_disk_full_test.sh DUEPAY_BIN WORK_DIR   (secrets and chains from var/dev.env)
set -uo pipefail
BIN="$1"
WORK="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
DFL_NAME=kafka_disk_full
DFL_CLIENT_TIMEOUT=8
TIMEOUT_MS=2000
# shellcheck source=disk_full_lib.sh
source "$ROOT/tests/integration/ops/disk_full_lib.sh"

dfl_require_env DUEPAY_SIGNER_KEY DUEPAY_SERVER_SECRET DUEPAY_CHAINS_FILE
command -v java >/dev/null || skip "no java (scripts/install-deps.sh)"
compgen -G "$ROOT/var/kafka/libs/kafka_2.13-*.jar" >/dev/null \
  || skip "no broker jars in var/kafka/libs (infra/dev/kafka.sh libs)"
# Outside: re-run this script in a network and mount namespace of its own: its broker takes the
# dev ports 19092/19093 there, and its tmpfs is seen by nobody else.
dfl_enter_namespaces -mn "$0" "$@"

rm -rf "$WORK" && mkdir -p "$WORK/kafka/data"
export KAFKA_DIR="$WORK/kafka" KAFKA_BOOTSTRAP=127.0.0.1:19092 KAFKA_STOP_TIMEOUT=10
kafka() { "$ROOT/infra/dev/kafka.sh" "$@"; }
PG_DIR="$(mktemp -d /tmp/duepay-kafka-disk-full.XXXXXX)"
DFL_LOGS=("$KAFKA_DIR/kafka.log")
dfl_extra_cleanup() {
  kafka stop >/dev/null 2>&1
  rm -f "$KAFKA_DIR/data/filler"
  umount "$KAFKA_DIR/data" 2>/dev/null
  rm -rf "$PG_DIR"
}
dfl_arm_cleanup
dfl_mount_tmpfs "$KAFKA_DIR/data" 64m
# The dev broker's class-data archive, when it has one, makes this broker start faster too.
for f in broker.jsa broker.jsa.key; do
  [[ -f "$ROOT/var/kafka/$f" ]] && cp "$ROOT/var/kafka/$f" "$KAFKA_DIR/"
done
kafka start >"$WORK/kafka-start.log" 2>&1 || fail "kafka.sh start: $(tail -n 3 "$WORK/kafka-start.log")"
say "$(grep -o 'start took.*' "$WORK/kafka-start.log")"

read -r pg_port api_port ops_port <<<"$(free_ports 3)"
[[ -n "$ops_port" ]] || fail "no free ports"
chown postgres:postgres "$PG_DIR" && chmod 0700 "$PG_DIR"
dfl_start_postgres "$PG_DIR" "$pg_port"

topic="duepay.test.kafkadiskfull"
"$BIN" admin topic create --name "$topic" --partitions 3 >/dev/null || fail "topic create"
DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS=$TIMEOUT_MS dfl_start_roles "$topic" duepay-test-kafkadiskfull \
  "$api_port" "$ops_port"
pids="$api_pid $projector"

run=$((100000 + RANDOM))
# 1. Before the fill: the stack works.
create "warm-$run" "${run}100" >"$WORK/warm.jsonl"
grep -q '"status": 201' "$WORK/warm.jsonl" || fail "the create before the fill: $(cat "$WORK/warm.jsonl")"

# 2. Full.
dd if=/dev/zero of="$KAFKA_DIR/data/filler" bs=1M 2>/dev/null
sync
say "volume: $(df -h "$KAFKA_DIR/data" | tail -n 1)"
t_full="$(date +%s%3N)"
for i in $(seq 1 8); do
  create "full-$run-$i" "$run$((100 + i))" >>"$WORK/full.jsonl"
  (($(grep -c '"status": 503' "$WORK/full.jsonl") >= 3)) && break
done
# (a create with no answer within the client's timeout is status 0, which dfl_check_full refuses)
dfl_check_full "$WORK/full.jsonl" 3 event_log_outcome_unknown event_log_unavailable
# The unknown outcomes come from the delivery timeout: with the setting applied they answer well
# before the 5 s default could have elapsed.
slow="$(python3 -c 'import json,sys
t=[json.loads(l)["seconds"] for l in open(sys.argv[1]) if "event_log_outcome_unknown" in l]
print(" ".join(f"{x:.1f}" for x in t if x >= 4.5))' "$WORK/full.jsonl")"
[[ -z "$slow" ]] || fail "event_log_outcome_unknown after $slow s with DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS=$TIMEOUT_MS"
for _ in $(seq 300); do kafka status >/dev/null 2>&1 || break; sleep 0.1; done
kafka status >/dev/null 2>&1 && fail "the broker still runs 30 s after its log directory filled"
say "the broker stopped by itself $(($(date +%s%3N) - t_full)) ms after the fill: $(grep -m1 -o 'Shutdown broker because.*' "$KAFKA_DIR/kafka.log" | cut -c1-100)"
ready_full=""
for _ in $(seq 50); do
  ready_full="$(curl -sS -w '\nHTTP %{http_code}' --max-time 5 "$readyz")"
  [[ "$ready_full" == *"HTTP 503"* ]] && break
  sleep 0.2
done
[[ "$ready_full" == *"HTTP 503"* && "$ready_full" == *"kafka producer $topic"* ]] \
  || fail "/readyz while full did not name the producer: $ready_full"
say "/readyz while full: $(grep -o "kafka producer $topic[^\"]*" <<<"$ready_full" | head -n 1 | cut -c1-160)"

# 3. Space back and the broker started again (the service manager's part); no duepay role restarted.
rm -f "$KAFKA_DIR/data/filler"
t_free="$(date +%s%3N)"
kafka start >"$WORK/kafka-restart.log" 2>&1 || fail "kafka.sh start after the fill: $(tail -n 3 "$WORK/kafka-restart.log")"
t_back="$(date +%s%3N)"
say "the broker was back $((t_back - t_free)) ms after the space came back"
dfl_retry_keys "$WORK/full.jsonl" 30
say "$(cat "$WORK/after.txt"); $(($(date +%s%3N) - t_back)) ms after the broker was back"
for p in $pids; do
  [[ "$(ps -o stat= -p "$p")" == [^Z]* ]] || fail "a duepay role (pid $p) exited: $(ps -o stat=,args= -p "$p")"
done
for _ in $(seq 300); do curl -fsS -o /dev/null "$readyz" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "$readyz" || fail "/readyz not 200 within 30 s of the broker's return: $(curl -sS "$readyz")"

# 4. One charge per key in the read model (readable by id) and one charge.created on the topic.
n="$(cat "$WORK/warm.jsonl" "$WORK/full.jsonl" | wc -l)"
dfl_check_charges "$n" "$WORK/warm.jsonl" "$WORK/full.jsonl" "$WORK/after.jsonl"
kafka run-class org.apache.kafka.tools.consumer.ConsoleConsumer --bootstrap-server "$KAFKA_BOOTSTRAP" \
  --topic "$topic" --from-beginning --timeout-ms 5000 --property print.key=true \
  --property key.separator=' ' >"$WORK/topic.txt" 2>"$WORK/consumer.err"
python3 - "$WORK/topic.txt" "$WORK/created.txt" >"$WORK/topic.check" <<'PY' || fail "the topic: $(cat "$WORK/topic.check")"
import collections, json, sys
created = collections.Counter()
for line in open(sys.argv[1]):
    key, _, value = line.rstrip("\n").partition(" ")
    try:
        e = json.loads(value)
    except ValueError:
        continue
    if e.get("type") == "charge.created" and e.get("invoiceId") == key:
        created[key] += 1
want = [l.split()[0] for l in open(sys.argv[2]) if l.strip()]
bad = {k: created[k] for k in want if created[k] != 1}
extra = set(created) - set(want)
msg = f"topic: {sum(created.values())} charge.created records for {len(want)} keys"
for k, c in list(bad.items())[:5]: msg += f"; {k}: {c} records"
if extra: msg += f"; {len(extra)} charges no key created"
print(msg)
sys.exit(1 if bad or extra else 0)
PY
say "$(cat "$WORK/topic.check")"
say "PASS: $n keys ($(wc -l <"$WORK/full.jsonl") while full), one charge each in the read model and on the topic; /readyz named the producer and is ready again"
