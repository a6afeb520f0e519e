// Shared set-up of the merchant API suites (events.test.mjs, refunds.test.mjs): the real stack from
// var/dev.env, `duepay dev --with-webhooks` on a free loopback port (api, projector, webhooks role)
// and `duepay chainwatch --chain 80002` as subprocesses (tests/support/stack.mjs); keys from
// `duepay admin`. Every wait is bounded and every child is stopped by stop().
import assert from "node:assert/strict";
import { BIN, env, freePort, run, sleep, stackSkip, start, stopChildren } from "../../support/stack.mjs";

export { BIN, env, run, sleep, start };
export const CHAIN = 80002;
export const skip = stackSkip(["DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE",
  "DUEPAY_DEV_BUYER_KEYS", "DUEPAY_SIGNER_KEY", "DUEPAY_SERVER_SECRET", `DUEPAY_RPC_URL_${CHAIN}`]);
export const RPC = env[`DUEPAY_RPC_URL_${CHAIN}`];

export const ctx = { base: "", testKey: "", dev: null, chainwatch: null };

export async function waitUntil(pred, what, timeoutMs = 30000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    const v = await pred();
    if (v) return v;
    await sleep(200);
  }
  throw new Error(`no ${what} within ${timeoutMs} ms\ndev log:\n${ctx.dev?.logs.slice(-3000)}\n` +
    `chainwatch log:\n${ctx.chainwatch?.logs.slice(-3000)}`);
}

export async function api(method, path, body, key = ctx.testKey, headers = {}) {
  const res = await fetch(ctx.base + path, { method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json() };
}

export async function admin(...args) {
  return JSON.parse((await run(BIN, ["admin", ...args], { env, timeout: 60000 })).stdout);
}

export async function psql(sql) {
  const { stdout } = await run("psql", [env.DATABASE_URL, "-Atc", sql], { env });
  return stdout.trim().split("\n").filter(Boolean);
}

export async function rpc(method, params = []) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

export async function createCharge(body, key = ctx.testKey) {
  const r = await api("POST", "/v1/invoices", { chainId: CHAIN, ...body }, key);
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

export async function pay(invoiceId, rail = "wallet", ...args) {
  const { stdout } = await run(BIN, ["admin", "simulate-payment", "--invoice", invoiceId, "--rail", rail, ...args],
    { env, timeout: 60000 });
  const receipt = JSON.parse(stdout);
  assert.equal(receipt.status, "success", stdout);
  return receipt;
}

export async function readCharge(id, key = ctx.testKey) {
  const r = await api("GET", `/v1/charges/${id}`, undefined, key);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

// Starts the roles; `extraEnv` goes to `duepay dev` and chainwatch.
export async function startRoles(extraEnv = {}) {
  ctx.testKey = env.DUEPAY_DEMO_TEST_KEY || (await admin("demo")).key;
  const port = await freePort();
  ctx.base = `http://127.0.0.1:${port}`;
  ctx.dev = start(["dev", "--with-webhooks"], "dev", { DUEPAY_LISTEN: `127.0.0.1:${port}`,
    DUEPAY_BASE_URL: ctx.base, DUEPAY_CHECKOUT_URL: ctx.base, ...extraEnv });
  await waitUntil(async () => {
    if (ctx.dev.exitCode !== null) throw new Error(`duepay dev exited: ${ctx.dev.logs}`);
    try { return (await fetch(ctx.base + "/healthz")).ok; } catch { return false; }
  }, "API", 30000);
  ctx.chainwatch = start(["chainwatch", "--chain", String(CHAIN)], "chainwatch", extraEnv);
  await waitUntil(() => {
    if (ctx.chainwatch.exitCode !== null) throw new Error(`chainwatch exited: ${ctx.chainwatch.logs}`);
    return /caught up/.test(ctx.chainwatch.logs);
  }, "chainwatch", 60000);
}

export async function stop() {
  await stopChildren(5000);
}
