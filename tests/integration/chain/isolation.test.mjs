// chainwatch in `duepay dev` (label integration): real anvil, Kafka and Postgres from var/dev.env.
// One process runs the api, the projector and a chainwatch per chain, with a registry whose chain
// 137 names an RPC URL that is no node (the api itself, which answers JSON-RPC with an error
// object): that chainwatch must stop alone while the api keeps serving and chain 80002 keeps
// being followed. With DUEPAY_CHAINWATCH_RETAIN_SECONDS=0 a charge that expired is pruned from
// chainwatch's memory and log filters.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const run = promisify(execFile);
const env = process.env;
const required = ["DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE", "DUEPAY_SIGNER_KEY",
  "DUEPAY_SERVER_SECRET", "DUEPAY_RPC_URL_80002"];
const missing = required.filter((k) => !env[k]);
const skip = missing.length ? `dev stack environment absent (${missing.join(", ")}): source var/dev.env` : false;
const BIN = env.DUEPAY_BIN || "build/duepay";
const LISTEN = "127.0.0.1:18090";
const BASE = `http://${LISTEN}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

let dev;
let key;

async function until(what, predicate, timeoutMs) {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    if (await predicate()) return;
    if (dev.exitCode !== null) throw new Error(`duepay dev exited (${dev.exitCode}) waiting for ${what}:\n${dev.logs.slice(-3000)}`);
    await sleep(200);
  }
  throw new Error(`no ${what} within ${timeoutMs} ms:\n${dev.logs.slice(-3000)}`);
}

async function healthz() {
  try {
    const res = await fetch(`${BASE}/healthz`, { signal: AbortSignal.timeout(2000) });
    return res.status === 200;
  } catch { return false; }
}

async function api(method, path, body) {
  const res = await fetch(BASE + path, { method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() };
}

before(async () => {
  if (skip) return;
  key = env.DUEPAY_DEMO_TEST_KEY || JSON.parse((await run(BIN, ["admin", "demo"], { env })).stdout).key;
  const registry = JSON.parse(readFileSync(env.DUEPAY_CHAINS_FILE, "utf8"));
  const broken = registry.chains.find((c) => c.chainId === 137);
  assert.ok(broken, "chain 137 in the registry");
  broken.rpcUrl = BASE + "/";  // a server that answers JSON, but no node
  const file = join(mkdtempSync(join(tmpdir(), "duepay-isolation-")), "chains.json");
  writeFileSync(file, JSON.stringify(registry));
  dev = spawn(BIN, ["dev", "--with-chainwatch", "--listen", LISTEN], {
    env: { ...env, DUEPAY_CHAINS_FILE: file, DUEPAY_CHAIN_IDS: "137,80002",
      DUEPAY_CHAINWATCH_RETAIN_SECONDS: "0", DUEPAY_ACCESS_LOG: "0" },
    stdio: ["ignore", "ignore", "pipe"] });
  dev.logs = "";
  dev.stderr.on("data", (d) => { dev.logs += d.toString(); });
  await until("the api", healthz, 30000);
});

after(async () => {
  if (dev && dev.exitCode === null) {
    dev.kill("SIGKILL");
    await sleep(300);
  }
});

test("an RPC error no retry can fix stops that chainwatch alone; the api keeps serving", { skip }, async () => {
  await until("chainwatch 137 stopping on the rpc error",
    () => /chainwatch 137: rpc error that a retry cannot fix/.test(dev.logs), 60000);
  await until("the dev log noting the others keep running",
    () => /chainwatch 137 ended \(exit code 3\); the other roles keep running/.test(dev.logs), 10000);
  await sleep(1000);
  assert.equal(dev.exitCode, null, "duepay dev is still running");
  assert.ok(await healthz(), "the api still answers /healthz");
  const missing = await api("GET", "/v1/charges/0x" + "ab".repeat(32));
  assert.equal(missing.status, 404, JSON.stringify(missing.body));
});

test("a done charge is pruned from chainwatch (retain 0): expired wallet charge", { skip }, async () => {
  await until("chainwatch 80002 caught up", () => /chainwatch 80002: caught up/.test(dev.logs), 60000);
  await sleep(4000);  // the first rounds prune what earlier tests left done
  const before = dev.logs.length;
  const created = await api("POST", "/v1/invoices",
    { chainId: 80002, amount: "1000000", paymentMode: "wallet", expiresInSeconds: 1 });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.invoiceId;
  await until("the charge expired by chain time", async () => {
    const r = await api("GET", `/v1/charges/${id}`);
    return r.status === 200 && r.body.data.status === "expired";
  }, 60000);
  await until("chainwatch 80002 pruning it",
    () => /chainwatch 80002: pruned \d+ done charges/.test(dev.logs.slice(before)), 30000);
});

test("SIGTERM stops duepay dev cleanly although one chainwatch ended", { skip }, async () => {
  const exited = new Promise((resolve) => dev.once("exit", (code) => resolve(code)));
  dev.kill("SIGTERM");
  const code = await Promise.race([exited, sleep(20000).then(() => "timeout")]);
  assert.equal(code, 0, dev.logs.slice(-2000));
});
