#!/usr/bin/env bash
# Runs the C++ EVM benchmarks and their ethers.js peer back to back and prints the ratios.
#   bench/domain/evm/run.sh [build-dir]        (default: build; must be a Release, non-sanitizer build)
# Each rate is a median of 3 repetitions (Google Benchmark aggregates; the peer's 3 one-second runs),
# both per CPU-second (the throughput of one core, robust to other load on the machine) and per
# wall-clock second. Targets are judged per CPU-second. PIN_CPU=<n> pins both to one core.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
bin=$build/bench/domain/evm/evm_benchmark
if [[ ! -x $bin ]]; then
  echo "missing $bin: cmake --build $build --target evm_benchmark" >&2
  exit 2
fi
if ! grep -q '^CMAKE_BUILD_TYPE:STRING=Release$' "$build/CMakeCache.txt" ||
   grep -q '^DUEPAY_SANITIZE:BOOL=ON$' "$build/CMakeCache.txt"; then
  echo "$build is not a Release build without sanitizers; benchmarks would mislead" >&2
  exit 2
fi
pin=()
if [[ -n ${PIN_CPU:-} ]]; then pin=(taskset -c "$PIN_CPU"); fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "# $(date -u +%FT%TZ) $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), node $(node --version)"
"${pin[@]}" "$bin" --benchmark_repetitions=3 --benchmark_report_aggregates_only=true \
  --benchmark_format=json >"$tmp/cpp.json" 2>"$tmp/cpp.err"
(cd "$root" && "${pin[@]}" node bench/domain/evm/ethers_peer.mjs) >"$tmp/js.json"

node - "$tmp/cpp.json" "$tmp/js.json" <<'JS'
const fs = require("fs");
const cpp = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const js = JSON.parse(fs.readFileSync(process.argv[3], "utf8"));
const median = (name) => cpp.benchmarks.find((b) => b.run_name === name && b.aggregate_name === "median");
const perSecond = (b, field) => 1e9 / b[field];  // time_unit is ns
const rows = [
  ["BM_Keccak256_32", "keccak256_32", 32],
  ["BM_Keccak256_136", "keccak256_136", 136],
  ["BM_Keccak256_1024", "keccak256_1024", 1024],
  ["BM_Keccak256_1M", null, 1 << 20],
  ["BM_Eip712_IntentHash", "eip712_intent_hash", 0],
  ["BM_Eip712_IntentHashSign", "eip712_intent_hash_sign", 0],
  ["BM_Eip712_IntentHashSign", "eip712_intent_hash_sign_cached", 0],
  ["BM_Secp256k1_Recover", "secp256k1_recover", 0],
];
const fmt = (x) => (x >= 1e6 ? (x / 1e6).toFixed(2) + "M" : x >= 1e3 ? (x / 1e3).toFixed(1) + "k" : x.toFixed(0));
const rate = (x, bytes) => (bytes ? `${fmt(x)} (${(x * bytes / 1e6).toFixed(1)} MB/s)` : fmt(x));
console.log("| C++ benchmark | duepay /CPU-s | duepay /wall-s | ethers.js peer | ethers /CPU-s | ethers /wall-s | ratio CPU | ratio wall |");
console.log("|---|---:|---:|---|---:|---:|---:|---:|");
const out = {};
for (const [name, peer, bytes] of rows) {
  const b = median(name);
  if (!b) { console.log(`| ${name} | missing | | | | | | |`); continue; }
  const wall = perSecond(b, "real_time");
  const cpu = perSecond(b, "cpu_time");
  out[name] = { wall, cpu };
  const p = peer && js[peer];
  console.log(`| ${name} | ${rate(cpu, bytes)} | ${rate(wall, bytes)} | ${peer ?? "-"} | ` +
    (p ? `${rate(p.ops_per_cpu_s, bytes)} | ${rate(p.ops_per_s, bytes)} | ${(cpu / p.ops_per_cpu_s).toFixed(1)}x | ${(wall / p.ops_per_s).toFixed(1)}x |`
       : "- | - | - | - |"));
}
const sign = out.BM_Eip712_IntentHashSign;
const k = out.BM_Keccak256_1M;
if (sign && k) {
  const verdict = (ok) => (ok ? "met" : "MISSED");
  const ratio = sign.cpu / js.eip712_intent_hash_sign.ops_per_cpu_s;
  const mbs = (k.cpu * (1 << 20)) / 1e6;
  console.log(`\ntargets (per CPU-second, i.e. one core): intent hash+sign ${fmt(sign.cpu)}/s (>= 20k: ${verdict(sign.cpu >= 20000)}), ` +
    `${ratio.toFixed(1)}x ethers.js (>= 20x: ${verdict(ratio >= 20)}), keccak-256 ${mbs.toFixed(0)} MB/s on 1 MiB (>= 300: ${verdict(mbs >= 300)})`);
  console.log(`wall-clock: intent hash+sign ${fmt(sign.wall)}/s, keccak-256 ${((k.wall * (1 << 20)) / 1e6).toFixed(0)} MB/s ` +
    `(wall/CPU ${(sign.cpu / sign.wall).toFixed(2)}: how much the other load on the machine slowed the run)`);
}
JS
