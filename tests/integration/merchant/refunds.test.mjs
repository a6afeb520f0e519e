// Refunds recorded from the chain (label integration, docs/refunds.md): on the real stack, charges
// paid on anvil, then refunded by real ERC-20 transfers sent from the demo project's payout wallet
// (anvil account #1, unlocked on the dev node); `POST /v1/charges/:id/refunds` records them and
// chainwatch verifies each receipt at confirmation depth. Partial refunds add up to `refunded`;
// a transfer of another token, from another sender, above what was paid, or never mined is
// rejected with its reason; the full read, the refunds list, the events API and the stored
// webhook events agree.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { skip, ctx, env, CHAIN, api, admin, psql, rpc, createCharge, pay, readCharge, startRoles, stop,
  waitUntil } from "./support.mjs";

const PAYOUT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";  // the demo payout wallet (admin demo)
const BUYER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";   // anvil #2, the first dev buyer
const USDT = env[`DUEPAY_TOKEN_USDT_${CHAIN}`];
const USDC = env[`DUEPAY_TOKEN_USDC_${CHAIN}`];
const WAIT_SECONDS = 12;  // DUEPAY_REFUND_WAIT_SECONDS for this suite: the "never mined" bound

const word = (hex) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
// 32 trailing bytes that the token ignores make every transaction hash new, also on a dev chain
// restarted at genesis while the topic keeps the facts of earlier runs.
const salt = () => word(randomBytes(32).toString("hex"));
const call = (selector, to, amount) => `${selector}${word(to)}${word(BigInt(amount).toString(16))}${salt()}`;

// A mined ERC-20 call from an unlocked dev account; returns the transaction hash.
async function send(from, token, data) {
  const hash = await rpc("eth_sendTransaction", [{ from, to: token, data, gas: "0x30000" }]);
  await waitUntil(async () => (await rpc("eth_getTransactionReceipt", [hash]))?.blockNumber, `receipt of ${hash}`, 30000);
  return hash;
}
const transfer = (from, token, to, amount) => send(from, token, call("0xa9059cbb", to, amount));
const mint = (token, to, amount) => send(BUYER, token, call("0x40c10f19", to, amount));

async function paidCharge(amount) {
  const c = await createCharge({ amount: String(amount), paymentMode: "wallet" });
  await pay(c.invoiceId);
  await waitUntil(async () => (await readCharge(c.invoiceId)).status === "paid", "status paid", 60000);
  return c;
}

async function requestRefund(invoiceId, txHash, headers = {}) {
  return api("POST", `/v1/charges/${invoiceId}/refunds`, { txHash }, ctx.testKey, headers);
}

// Waits until the refund's status is no longer pending; returns it.
async function verdict(invoiceId, refundId, timeoutMs = 60000) {
  return waitUntil(async () => {
    const r = await api("GET", `/v1/charges/${invoiceId}/refunds`);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    const refund = r.body.data.items.find((x) => x.refundId === refundId);
    return refund && refund.status !== "pending" ? refund : null;
  }, `a verdict on ${refundId}`, timeoutMs);
}

before(async () => {
  if (skip) return;
  await startRoles({ DUEPAY_REFUND_WAIT_SECONDS: String(WAIT_SECONDS) });
  // The payout wallet sends the refunds: make sure it holds enough of both tokens.
  await mint(USDT, PAYOUT, 50_000_000);
  await mint(USDC, PAYOUT, 50_000_000);
});

after(async () => { await stop(); });

test("partial refunds add up to refunded; read, list, events and webhook bodies agree", { skip }, async () => {
  const c = await paidCharge(1_000_000);
  const tx1 = await transfer(PAYOUT, c.token, BUYER, 400_000);
  const key = `refund-${Date.now()}`;
  const first = await requestRefund(c.invoiceId, tx1, { "idempotency-key": key });
  assert.equal(first.status, 202, JSON.stringify(first.body));
  assert.match(first.body.data.refundId, /^rf_[0-9a-f]{24}$/);
  assert.equal(first.body.data.status, "pending");
  assert.equal(first.body.data.txHash, tx1.toLowerCase());
  // The same key and body: the stored answer; another key, same tx: the same refund.
  const replay = await requestRefund(c.invoiceId, tx1, { "idempotency-key": key });
  assert.equal(replay.status, 202);
  assert.deepEqual(replay.body, first.body);
  const mismatch = await requestRefund(c.invoiceId, tx1.replace(/.$/, (d) => (d === "0" ? "1" : "0")),
    { "idempotency-key": key });
  assert.equal(mismatch.status, 422);
  assert.equal(mismatch.body.meta.code, "idempotency_key_reused");
  const again = await requestRefund(c.invoiceId, tx1);
  assert.equal(again.status, 202);
  assert.equal(again.body.data.refundId, first.body.data.refundId);

  const r1 = await verdict(c.invoiceId, first.body.data.refundId);
  assert.deepEqual(r1, { refundId: first.body.data.refundId, status: "succeeded", txHash: tx1.toLowerCase(),
    amount: "400000", to: BUYER, reason: null },
  `receipt: ${JSON.stringify(await rpc("eth_getTransactionReceipt", [tx1]))}\n` +
  `chainwatch log:\n${ctx.chainwatch.logs.slice(-4000)}`);
  let read = await readCharge(c.invoiceId);
  assert.equal(read.status, "paid");
  assert.equal(read.amountRefunded, "400000");
  assert.deepEqual(read.refunds, [r1]);

  const tx2 = await transfer(PAYOUT, c.token, BUYER, 600_000);
  const second = await requestRefund(c.invoiceId, tx2);
  assert.equal(second.status, 202, JSON.stringify(second.body));
  const r2 = await verdict(c.invoiceId, second.body.data.refundId);
  assert.equal(r2.status, "succeeded");
  assert.equal(r2.amount, "600000");
  read = await readCharge(c.invoiceId);
  assert.equal(read.status, "refunded");
  assert.equal(read.amountRefunded, "1000000");
  assert.deepEqual(read.refunds.map((x) => x.refundId), [first.body.data.refundId, second.body.data.refundId]);
  assert.equal(read.timeline.at(-1).status, "refunded");
  assert.equal(read.timeline.at(-1).txHash, tx2.toLowerCase());

  // Refunded in full: nothing left to refund.
  const tx3 = await transfer(PAYOUT, c.token, BUYER, 1);
  const more = await requestRefund(c.invoiceId, tx3);
  assert.equal(more.status, 409);
  assert.equal(more.body.meta.code, "charge_not_refundable");

  // invoice.refunded twice (partial with status paid, then refunded), in the events API and as
  // stored for the webhooks, with the refund's details.
  const events = await waitUntil(async () => {
    const r = await api("GET", "/v1/events?type=invoice.refunded&limit=100");
    const mine = r.body.data.items.filter((e) => e.data.invoiceId === c.invoiceId);
    return mine.length === 2 ? mine : null;
  }, "two invoice.refunded events", 60000);
  const [full, partial] = events;  // newest first
  assert.equal(partial.data.status, "paid");
  assert.equal(partial.data.amountRefunded, "400000");
  assert.deepEqual(partial.data.refund, { refundId: r1.refundId, txHash: r1.txHash, amount: "400000", to: BUYER });
  assert.equal(full.data.status, "refunded");
  assert.equal(full.data.amountRefunded, "1000000");
  for (const e of events) {
    const [body] = await psql(`select body from webhook_events where id = '${e.id}'`);
    assert.deepEqual(JSON.parse(body), e);
  }
});

test("rejected: another token, another sender, more than was paid, never mined", { skip }, async () => {
  const c = await paidCharge(1_000_000);
  const cases = [
    ["wrong_token", await transfer(PAYOUT, USDC, BUYER, 1000)],
    ["wrong_sender", await transfer(BUYER, c.token, BUYER, 1000)],
    ["exceeds_paid", await transfer(PAYOUT, c.token, BUYER, 1_000_001)],
    ["not_found", `0x${"ab".repeat(31)}${Date.now().toString(16).slice(-2).padStart(2, "0")}`],
  ];
  const asked = [];
  for (const [reason, tx] of cases) {
    const r = await requestRefund(c.invoiceId, tx);
    assert.equal(r.status, 202, `${reason}: ${JSON.stringify(r.body)}`);
    asked.push([reason, r.body.data.refundId]);
  }
  for (const [reason, refundId] of asked) {
    const r = await verdict(c.invoiceId, refundId, (WAIT_SECONDS + 60) * 1000);
    assert.equal(r.status, "rejected", reason);
    assert.equal(r.reason, reason);
    assert.equal(r.amount, null);
    assert.equal(r.to, null);
  }
  const read = await readCharge(c.invoiceId);
  assert.equal(read.status, "paid");
  assert.equal(read.amountRefunded, "0");
  assert.equal(read.refunds.length, 4);
  // The rejections are on the topic as charge.refund_rejected (the projector's journal).
  const rows = await psql(`select payload->'data'->>'reason' from charge_events
    where invoice_id = '${c.invoiceId}' and type = 'charge.refund_rejected' order by 1`);
  assert.deepEqual(rows, ["exceeds_paid", "not_found", "wrong_sender", "wrong_token"]);
});

test("409 without funds, 404 across projects and modes, 400 for a bad txHash", { skip }, async () => {
  const pending = await createCharge({ amount: "1000000", paymentMode: "wallet" });
  const tx = await transfer(PAYOUT, pending.token, BUYER, 1);
  const r = await requestRefund(pending.invoiceId, tx);
  assert.equal(r.status, 409);
  assert.equal(r.body.meta.code, "charge_not_refundable");
  const listed = await api("GET", `/v1/charges/${pending.invoiceId}/refunds`);
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.body.data.items, []);
  for (const bad of ["", "0x1234", tx.slice(2), `0x${"g".repeat(64)}`, 42]) {
    const b = await api("POST", `/v1/charges/${pending.invoiceId}/refunds`, { txHash: bad });
    assert.equal(b.status, 400, String(bad));
    assert.equal(b.body.meta.code, "invalid_tx_hash");
  }
  const liveKey = (await admin("key", "create", "--project", "prj_demo", "--mode", "live")).key;
  const other = await admin("project", "create", "--name", `refunds-other-${Date.now()}`);
  const otherKey = (await admin("key", "create", "--project", other.projectId, "--mode", "test")).key;
  for (const key of [liveKey, otherKey]) {
    const p = await api("POST", `/v1/charges/${pending.invoiceId}/refunds`, { txHash: tx }, key);
    assert.equal(p.status, 404);
    assert.equal(p.body.meta.code, "charge_not_found");
    const g = await api("GET", `/v1/charges/${pending.invoiceId}/refunds`, undefined, key);
    assert.equal(g.status, 404);
  }
  const del = await api("DELETE", `/v1/charges/${pending.invoiceId}/refunds`);
  assert.equal(del.status, 405);
  assert.equal(del.body.meta.code, "method_not_allowed");
});
