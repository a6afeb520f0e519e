// Chain integration tests (label integration): real anvil (chain 80002), Kafka and Postgres from
// var/dev.env, the API (started here as `duepay dev` unless one answers at DUEPAY_BASE_URL) and
// `duepay chainwatch --chain 80002` as subprocesses. Payments are made with
// `duepay admin simulate-payment` (signed raw transactions from the dev buyer keys). Every wait is
// bounded. The tests that move chain time (evm_increaseTime) or stop interval mining run last.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { BIN, children, env, run, sleep, start, startChainwatch } from "../../support/stack.mjs";

const CHAIN = 80002;
const required = ["DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE", "DUEPAY_DEV_BUYER_KEYS",
  "DUEPAY_SIGNER_KEY", "DUEPAY_SERVER_SECRET", `DUEPAY_RPC_URL_${CHAIN}`];
const missing = required.filter((k) => !env[k]);
const skip = missing.length ? `dev stack environment absent (${missing.join(", ")}): source var/dev.env` : false;
const RPC = env[`DUEPAY_RPC_URL_${CHAIN}`];

let key;
let chainwatch;

async function rpc(method, params = []) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function api(method, path, body) {
  const res = await fetch(env.DUEPAY_BASE_URL + path, { method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined });
  return { status: res.status, body: await res.json() };
}

async function createCharge(body) {
  const r = await api("POST", "/v1/invoices", { chainId: CHAIN, ...body });
  assert.equal(r.status, 201, JSON.stringify(r.body));
  return r.body.data;
}

async function readCharge(id) {
  const r = await api("GET", `/v1/charges/${id}`);
  assert.equal(r.status, 200, JSON.stringify(r.body));
  return r.body.data;
}

async function waitFor(id, pred, what, timeoutMs = 30000) {
  const until = Date.now() + timeoutMs;
  let last;
  while (Date.now() < until) {
    last = await readCharge(id);
    if (pred(last)) return last;
    await sleep(200);
  }
  throw new Error(`${id}: no ${what} within ${timeoutMs} ms; last status ${last?.status}\nchainwatch log:\n${chainwatch?.logs.slice(-2000)}`);
}
const waitStatus = (id, status, ms) => waitFor(id, (c) => c.status === status, `status ${status}`, ms);

async function simulate(id, ...args) {
  try {
    const { stdout } = await run(BIN, ["admin", "simulate-payment", "--invoice", id, ...args], { env, timeout: 60000 });
    return { code: 0, ...JSON.parse(stdout) };
  } catch (e) {
    if (e.stdout) return { code: e.code, ...JSON.parse(e.stdout) };
    throw e;
  }
}

async function psql(sql) {
  const { stdout } = await run("psql", [env.DATABASE_URL, "-Atc", sql], { env });
  return stdout.trim().split("\n").filter(Boolean);
}

async function eventTypes(id) {
  return psql(`select type from charge_events where invoice_id = '${id}' order by partition, "offset"`);
}

function countOf(types, t) { return types.filter((x) => x === t).length; }

async function apiUp() {
  try {
    const res = await fetch(env.DUEPAY_BASE_URL + "/v1/charges/0x00", { signal: AbortSignal.timeout(1000) });
    return res.status > 0;
  } catch { return false; }
}

before(async () => {
  if (skip) return;
  key = env.DUEPAY_DEMO_TEST_KEY;
  if (!key) key = JSON.parse((await run(BIN, ["admin", "demo"], { env })).stdout).key;
  if (!(await apiUp())) {
    start(["dev"], "dev");
    const until = Date.now() + 30000;
    while (!(await apiUp())) {
      if (Date.now() > until) throw new Error("the API did not come up");
      await sleep(200);
    }
  }
  // The whole log: the takeover test looks for the "leader" line it wrote at start.
  chainwatch = await startChainwatch(CHAIN, { keepAll: true });
});

after(async () => {
  await rpc("evm_setIntervalMining", [1]).catch(() => {});
  for (const c of children) if (c.exitCode === null) c.kill("SIGTERM");
  await sleep(500);
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

test("wallet rail: router payment with the API's intent -> confirming -> paid", { skip }, async () => {
  const c = await createCharge({ amount: "1250000", paymentMode: "wallet" });
  assert.ok(c.signature && c.intent);
  const tx = await simulate(c.invoiceId, "--rail", "wallet");
  assert.equal(tx.status, "success");
  const paid = await waitStatus(c.invoiceId, "paid");
  assert.equal(paid.amountConfirmed, "1250000");
  const statuses = paid.timeline.map((e) => e.status);
  assert.equal(statuses.at(-1), "paid");
  // payment_detected is there unless chainwatch first saw the block already at depth.
  const types = (await eventTypes(c.invoiceId)).filter((t) => t !== "charge.payment_detected");
  assert.deepEqual(types, ["charge.created", "charge.paid"]);
});

test("transfer rail: exact amount -> paid", { skip }, async () => {
  const c = await createCharge({ amount: "2000000", paymentMode: "transfer" });
  assert.ok(c.depositAddress);
  assert.equal((await simulate(c.invoiceId, "--rail", "transfer")).status, "success");
  const paid = await waitStatus(c.invoiceId, "paid");
  assert.equal(paid.amountConfirmed, "2000000");
  assert.ok(paid.exception === null || paid.exception === "none", String(paid.exception));
});

test("transfer rail: under then topped up -> underpaid -> paid", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer" });
  await simulate(c.invoiceId, "--rail", "transfer", "--amount", "300000");
  const under = await waitStatus(c.invoiceId, "underpaid");
  assert.equal(under.amountConfirmed, "300000");
  await simulate(c.invoiceId, "--rail", "transfer", "--amount", "700000");
  const paid = await waitStatus(c.invoiceId, "paid");
  assert.equal(paid.amountConfirmed, "1000000");
  const types = (await eventTypes(c.invoiceId)).filter((t) => t !== "charge.payment_detected");
  assert.deepEqual(types, ["charge.created", "charge.deposit_seen", "charge.underpaid", "charge.deposit_seen", "charge.paid"]);
});

test("transfer rail: overpaid -> paid with exception overpaid", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer" });
  await simulate(c.invoiceId, "--rail", "transfer", "--amount", "1500000");
  const paid = await waitFor(c.invoiceId, (x) => x.status === "paid" && x.exception === "overpaid", "paid+overpaid");
  assert.equal(paid.amountConfirmed, "1500000");
  // A second deposit after paid is recorded (deposit_seen) without a second decision.
  await simulate(c.invoiceId, "--rail", "transfer", "--amount", "1");
  await waitFor(c.invoiceId, (x) => x.amountConfirmed === "1500001", "amountConfirmed 1500001");
  const types = (await eventTypes(c.invoiceId)).filter((t) => t !== "charge.payment_detected");
  assert.deepEqual(types, ["charge.created", "charge.deposit_seen", "charge.paid", "charge.deposit_seen"]);
});

test("transfer rail: wrong token -> failed (wrong_token)", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer", token: "USDT" });
  await simulate(c.invoiceId, "--rail", "transfer", "--token", "USDC");
  const failed = await waitStatus(c.invoiceId, "failed");
  assert.equal(failed.exception, "wrong_token");
  assert.equal(failed.amountConfirmed, "0");
  assert.deepEqual(await eventTypes(c.invoiceId), ["charge.created", "charge.failed"]);
});

test("settle: Settled of the factory becomes charge.settled", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer" });
  await simulate(c.invoiceId, "--rail", "transfer");
  await waitStatus(c.invoiceId, "paid");
  const printed = JSON.parse((await run(BIN, ["settle", c.invoiceId], { env })).stdout);
  assert.match(printed.data, /^0x2eb37326/);
  const sent = JSON.parse((await run(BIN, ["settle", c.invoiceId, "--send"], { env })).stdout);
  assert.equal(sent.status, "success");
  const until = Date.now() + 30000;
  while (Date.now() < until && !(await eventTypes(c.invoiceId)).includes("charge.settled")) await sleep(300);
  assert.ok((await eventTypes(c.invoiceId)).includes("charge.settled"));
  assert.equal((await readCharge(c.invoiceId)).status, "paid");
});

test("simulate-payment refuses unknown invoices and live/mainnet charges", { skip }, async () => {
  const bogus = "0x" + "ee".repeat(32);
  await assert.rejects(run(BIN, ["admin", "simulate-payment", "--invoice", bogus], { env }), /unknown invoice/);
  // A test key cannot create a mainnet charge, so a live row on chain 137 is put in the read model
  // for the duration of this check only.
  const id = "0x" + "ed".repeat(32);
  await psql(`insert into charges (invoice_id, project_id, mode, chain_id, status, amount, token, payment_mode, merchant,
    fee_bps, deadline, event_count, last_event_id, created_at, updated_at) values ('${id}', 'prj_demo', 'live', 137,
    'pending', 1, '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'wallet', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    100, 9999999999, 1, 'x', now(), now())`);
  try {
    await assert.rejects(run(BIN, ["admin", "simulate-payment", "--invoice", id], { env }),
      (e) => e.code === 3 && /refused: only test-mode charges on a testnet/.test(e.stderr));
  } finally {
    await psql(`delete from charges where invoice_id = '${id}'`);
  }
});

test("wallet expiry by chain time; a router payment after the deadline reverts", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "wallet", expiresInSeconds: 3 });
  const expired = await waitStatus(c.invoiceId, "expired", 40000);
  assert.ok(expired);
  const tx = await simulate(c.invoiceId, "--rail", "wallet");
  assert.equal(tx.status, "reverted");
  await sleep(3000);
  const types = await eventTypes(c.invoiceId);
  assert.deepEqual(types, ["charge.created", "charge.expired"]);
});

test("kill -9 of chainwatch mid-stream: nothing lost, nothing duplicated", { skip }, async () => {
  const charges = [];
  for (let i = 0; i < 6; i++) charges.push(await createCharge({ amount: String(100000 + i), paymentMode: "transfer" }));
  const pays = charges.map((c, i) => simulate(c.invoiceId, "--rail", "transfer", "--buyer", String(i % 6)));
  await sleep(1500);
  chainwatch.kill("SIGKILL");
  await Promise.all(pays);
  await sleep(2000);  // blocks go by while nobody watches
  // The whole log: the takeover test looks for the "leader" line it wrote at start.
  chainwatch = await startChainwatch(CHAIN, { keepAll: true });
  for (const c of charges) await waitStatus(c.invoiceId, "paid", 60000);
  for (const c of charges) {
    const types = await eventTypes(c.invoiceId);
    assert.equal(countOf(types, "charge.created"), 1);
    assert.equal(countOf(types, "charge.paid"), 1, types.join(","));
    assert.ok(countOf(types, "charge.payment_detected") <= 1, types.join(","));
    assert.equal(countOf(types, "charge.deposit_seen"), 1, types.join(","));
    assert.equal(types.length, 3 + countOf(types, "charge.payment_detected"), types.join(","));
  }
});

// The bound docs/chainwatch.md and docs/operations.md give for a standby's takeover.
const TAKEOVER_BOUND_MS = 3000;

test("a standby chainwatch takes over within the documented bound when the leader is killed -9", { skip }, async () => {
  const leader = chainwatch;
  assert.match(leader.logs, new RegExp(`chainwatch ${CHAIN}: leader`));
  const standby = start(["chainwatch", "--chain", String(CHAIN)], "chainwatch-standby", {}, { keepAll: true });
  const until = Date.now() + 30000;
  while (!/standby \(another leader holds the lock\)/.test(standby.logs)) {
    if (standby.exitCode !== null || Date.now() > until) throw new Error(`no standby: ${standby.logs}`);
    await sleep(50);
  }
  const leaderLine = new RegExp(`chainwatch ${CHAIN}: leader`);
  assert.doesNotMatch(standby.logs, leaderLine);
  const killedAt = Date.now();
  leader.kill("SIGKILL");
  while (!leaderLine.test(standby.logs)) {
    if (standby.exitCode !== null) throw new Error(`the standby exited: ${standby.logs}`);
    if (Date.now() - killedAt > 30000) throw new Error(`the standby never took over: ${standby.logs}`);
    await sleep(20);
  }
  const tookMs = Date.now() - killedAt;
  console.log(`standby became leader ${tookMs} ms after kill -9 of the leader`);
  assert.ok(tookMs <= TAKEOVER_BOUND_MS, `takeover took ${tookMs} ms (bound ${TAKEOVER_BOUND_MS} ms)`);
  chainwatch = standby;
  // The new leader works: a payment made now is paid, once.
  const c = await createCharge({ amount: "3100000", paymentMode: "transfer" });
  assert.equal((await simulate(c.invoiceId, "--rail", "transfer")).status, "success");
  await waitStatus(c.invoiceId, "paid", 60000);
  const types = await eventTypes(c.invoiceId);
  assert.equal(countOf(types, "charge.paid"), 1, types.join(","));
});

test("reorg before depth takes a confirming payment back", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer" });
  await rpc("evm_setIntervalMining", [0]);
  try {
    const pay = simulate(c.invoiceId, "--rail", "transfer");
    await sleep(1000);
    await rpc("evm_mine");  // the payment's block: depth 1 of 2
    await pay;
    await waitStatus(c.invoiceId, "confirming", 20000);
    await rpc("anvil_reorg", [1, []]);  // the payment's block is replaced by an empty one
    await rpc("evm_mine");
    await waitStatus(c.invoiceId, "pending", 20000);
    for (let i = 0; i < 3; i++) await rpc("evm_mine");
    await sleep(1500);
    const types = await eventTypes(c.invoiceId);
    assert.ok(types.includes("charge.payment_reorged"), types.join(","));
    assert.equal((await readCharge(c.invoiceId)).status, "pending");
  } finally {
    await rpc("evm_setIntervalMining", [1]);
  }
});

test("transfer expiry after deadline + grace, then a late deposit", { skip }, async () => {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer", expiresInSeconds: 2 });
  const chains = JSON.parse(await (await import("node:fs/promises")).readFile(env.DUEPAY_CHAINS_FILE, "utf8"));
  const grace = chains.chains.find((x) => x.chainId === CHAIN).graceSeconds;
  await rpc("evm_increaseTime", [grace + 5]);  // moves this dev chain's clock ahead for good
  await waitStatus(c.invoiceId, "expired", 30000);
  await simulate(c.invoiceId, "--rail", "transfer");
  const late = await waitFor(c.invoiceId, (x) => x.exception === "paid_late", "exception paid_late");
  assert.equal(late.status, "expired");
  const types = await eventTypes(c.invoiceId);
  assert.deepEqual(types, ["charge.created", "charge.expired", "charge.late_deposit"]);
});
