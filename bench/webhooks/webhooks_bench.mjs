// Webhook benchmarks against the real dev stack (var/dev.env sourced: Postgres and Kafka). Each run
// uses its own topic, consumer group, project and endpoints, starts its own `duepay webhooks`
// (DUEPAY_BIN, default build/duepay) and local receivers (node:http on 127.0.0.1, answering 200),
// and removes its endpoints at the end. Charges are appended by the test helper
// webhooks_paid_events_producer (DUEPAY_WEBHOOKS_PRODUCER, default in build/).
//
//   node bench/webhooks/webhooks_bench.mjs latency [N=500] [RATE=50]
//     N paid charges appended at RATE per second while the role runs; for each, the time from the
//     broker's ack of charge.paid to the receiver getting invoice.paid. Prints p50/p90/p99/max
//     (target p99 <= 200 ms).
//   node bench/webhooks/webhooks_bench.mjs throughput [N=2000] [ENDPOINTS=10]
//     N paid charges appended first (the role stopped), ENDPOINTS endpoints subscribed, then the
//     role starts: deliveries per second from the first to the last of N x ENDPOINTS deliveries
//     (target >= 2,000/s), and the enqueue time.
// Output: one JSON line with the figures (and the command), for bench/RESULTS.md.
import http from "node:http";
import { spawn, execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const env = process.env;
const BIN = env.DUEPAY_BIN || "build/duepay";
const PRODUCER = env.DUEPAY_WEBHOOKS_PRODUCER || "build/tests/integration/webhooks/webhooks_paid_events_producer";
const SECRET = "whsec_MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

for (const k of ["DATABASE_URL", "KAFKA_BOOTSTRAP"]) {
  if (!env[k]) {
    console.error(`${k} is not set: source var/dev.env (set -a; . var/dev.env; set +a)`);
    process.exit(2);
  }
}

async function psql(sql) {
  const { stdout } = await run("psql", [env.DATABASE_URL, "-Atc", sql], { env });
  return stdout.trim();
}

async function receiver(onEvent) {
  const server = http.createServer({ keepAlive: true }, (req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      onEvent(JSON.parse(Buffer.concat(chunks).toString("utf8")), Date.now());
      res.writeHead(200);
      res.end("ok");
    });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { server, url: `http://127.0.0.1:${server.address().port}/hooks` };
}

function startRole(topic, group) {
  const child = spawn(BIN, ["webhooks", "--topic", topic, "--webhooks-group", group], {
    env: { ...env, DUEPAY_WEBHOOK_ALLOW_INSECURE: "1", DUEPAY_WEBHOOK_MAX_IN_FLIGHT: env.DUEPAY_WEBHOOK_MAX_IN_FLIGHT || "512" },
    stdio: ["ignore", "ignore", "pipe"] });
  child.logs = "";
  child.stderr.on("data", (d) => { child.logs = (child.logs + d.toString()).slice(-20000); });
  return child;
}

async function stopRole(child) {
  if (child.exitCode !== null) return;
  child.kill("SIGTERM");
  for (let i = 0; i < 100 && child.exitCode === null; i++) await sleep(100);
  if (child.exitCode === null) child.kill("SIGKILL");
}

async function setup(endpoints) {
  const suffix = `${process.pid}_${Date.now()}`;
  const project = `prj_bench_${suffix}`;
  const topic = `duepay.bench.webhooks.${suffix}`;
  const group = `duepay-bench-webhooks-${suffix}`;
  await run(BIN, ["admin", "topic", "create", "--name", topic, "--partitions", "6"], { env });
  const receivers = [];
  const ids = [];
  for (let i = 0; i < endpoints; i++) {
    const rec = await receiver((event, at) => rec.onEvent(event, at));
    rec.onEvent = () => {};
    const id = `we_${(BigInt(Date.now()) * 1000n + BigInt(i)).toString(16).padStart(24, "0").slice(-24)}`;
    await psql(`insert into webhook_endpoints (id, project_id, mode, url, events, secret) values ('${id}',
      '${project}', 'test', '${rec.url}', '{invoice.paid}', '${SECRET}')`);
    receivers.push(rec);
    ids.push(id);
  }
  const cleanup = async () => {
    for (const r of receivers) r.server.close();
    await psql(`delete from webhook_endpoints where project_id = '${project}'`);
  };
  return { project, topic, group, receivers, cleanup };
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

async function latency(n, rate) {
  const { project, topic, group, receivers, cleanup } = await setup(1);
  const received = new Map();
  receivers[0].onEvent = (event, at) => {
    if (!received.has(event.data.invoiceId)) received.set(event.data.invoiceId, at);
  };
  const role = startRole(topic, group);
  try {
    for (let i = 0; i < 300 && !/webhooks: dispatcher/.test(role.logs); i++) await sleep(100);
    await sleep(3000);  // consumer group join and partition assignment
    const { stdout } = await run(PRODUCER, ["--topic", topic, "--project", project, "--count", String(n),
      "--rate", String(rate)], { env, maxBuffer: 1 << 26, timeout: 600000 });
    const acked = new Map(stdout.trim().split("\n").map((l) => l.split(" ")).map(([id, t]) => [id, Number(t)]));
    const until = Date.now() + 60000;
    while (received.size < acked.size && Date.now() < until) await sleep(50);
    const lat = [...acked].filter(([id]) => received.has(id)).map(([id, t]) => received.get(id) - t)
      .sort((a, b) => a - b);
    return { bench: "webhooks latency: charge.paid acked -> invoice.paid received", events: n, rate,
      received: lat.length, p50_ms: percentile(lat, 50), p90_ms: percentile(lat, 90),
      p99_ms: percentile(lat, 99), max_ms: lat.at(-1) };
  } finally {
    await stopRole(role);
    await cleanup();
  }
}

async function throughput(n, endpoints) {
  const { project, topic, group, receivers, cleanup } = await setup(endpoints);
  let count = 0;
  let first = 0;
  let last = 0;
  for (const r of receivers) {
    r.onEvent = (event, at) => {
      count += 1;
      if (!first) first = at;
      last = at;
    };
  }
  await run(PRODUCER, ["--topic", topic, "--project", project, "--count", String(n)],
    { env, maxBuffer: 1 << 26, timeout: 600000 });
  const started = Date.now();
  const role = startRole(topic, group);
  try {
    const total = n * endpoints;
    const until = Date.now() + 600000;
    while (count < total && Date.now() < until && role.exitCode === null) await sleep(100);
    const [queued] = (await psql(`select count(*) from webhook_deliveries d join webhook_endpoints e
      on e.id = d.endpoint_id where e.project_id = '${project}'`)).split("\n");
    return { bench: "webhooks throughput: deliveries/s to local endpoints", events: n, endpoints,
      deliveries: count, expected: total, queued: Number(queued),
      deliveries_per_s: Math.round(count / ((last - first) / 1000)),
      start_to_last_s: (last - started) / 1000 };
  } finally {
    await stopRole(role);
    await cleanup();
  }
}

const [mode, a, b] = process.argv.slice(2);
let result;
if (mode === "latency") {
  result = await latency(Number(a || 500), Number(b || 50));
} else if (mode === "throughput") {
  result = await throughput(Number(a || 2000), Number(b || 10));
} else {
  console.error("usage: node bench/webhooks/webhooks_bench.mjs latency [N] [RATE] | throughput [N] [ENDPOINTS]");
  process.exit(2);
}
result.command = `node bench/webhooks/webhooks_bench.mjs ${process.argv.slice(2).join(" ")}`;
console.log(JSON.stringify(result));
