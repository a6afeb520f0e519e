// Exceptions resolved over REST (label integration, ADR 0230): on the real stack, a transfer-rail
// charge paid short by a real deposit on anvil becomes underpaid; `POST /v1/charges/:id/resolve`
// appends charge.exception_resolved named by the key. The event is on the topic (the projector's
// journal), the read model and the full read carry the resolution while the status stays, an
// endpoint subscribed to invoice.exception_resolved gets a delivery queued, and `duepay replay`
// rebuilds the same row. Bad notes, unknown fields, other projects' and modes' keys and charges
// with nothing (left) to resolve are refused with nothing appended.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { BIN, env, run, skip, ctx, api, admin, psql, createCharge, pay, readCharge, startRoles,
  stop, waitUntil } from "./support.mjs";

async function underpaidCharge() {
  const c = await createCharge({ amount: "1000000", paymentMode: "transfer" });
  await pay(c.invoiceId, "transfer", "--amount", "400000");
  await waitUntil(async () => (await readCharge(c.invoiceId)).status === "underpaid", "status underpaid", 60000);
  return c;
}

const resolve = (invoiceId, body, key = ctx.testKey, headers = {}) =>
  api("POST", `/v1/charges/${invoiceId}/resolve`, body, key, headers);

const resolvedEvents = (invoiceId) => psql(`select payload::text from charge_events
  where invoice_id = '${invoiceId}' and type = 'charge.exception_resolved'`);

before(async () => { if (!skip) await startRoles(); });
after(async () => { await stop(); });

test("resolve an underpaid charge: topic, read model, webhook delivery, replay", { skip }, async () => {
  const hook = await api("POST", "/v1/webhook-endpoints",
    { url: "http://127.0.0.1:9/resolved", events: ["invoice.exception_resolved"] });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  const c = await underpaidCharge();
  const key = `resolve-${Date.now()}`;
  const r = await resolve(c.invoiceId, { note: "  Buyer pays the rest by bank transfer.\r\nTicket 7 \n" },
    ctx.testKey, { "idempotency-key": key });
  assert.equal(r.status, 200, JSON.stringify(r.body));
  const resolution = r.body.data;
  assert.equal(resolution.exception, "partial");
  assert.equal(resolution.refundId, null);
  assert.equal(resolution.note, "Buyer pays the rest by bank transfer.\nTicket 7");
  assert.equal(resolution.resolvedBy.kind, "key");
  assert.match(resolution.resolvedBy.id, /^key_/);
  // The same key and body: the stored answer. Without the key: already resolved.
  const replayed = await resolve(c.invoiceId, { note: "  Buyer pays the rest by bank transfer.\r\nTicket 7 \n" },
    ctx.testKey, { "idempotency-key": key });
  assert.deepEqual(replayed.body, r.body);
  const again = await resolve(c.invoiceId, { note: "twice" });
  assert.equal(again.status, 409, JSON.stringify(again.body));
  assert.equal(again.body.meta.code, "exception_already_resolved");

  // On the topic: one event, as the API answered it.
  const events = await waitUntil(async () => {
    const rows = await resolvedEvents(c.invoiceId);
    return rows.length ? rows : null;
  }, "charge.exception_resolved in the journal", 30000);
  assert.equal(events.length, 1);
  const event = JSON.parse(events[0]);
  assert.match(event.id, /^xr_[0-9a-f]{24}$/);
  assert.deepEqual(event.data, { exception: "partial", refundId: null, actorKind: "key",
    actor: resolution.resolvedBy.id, sessionId: null, note: resolution.note });

  // The read model: the status stays, the resolution and its timeline entry are there.
  const read = await waitUntil(async () => {
    const x = await readCharge(c.invoiceId);
    return x.exceptionResolution ? x : null;
  }, "exceptionResolution on the full read", 30000);
  assert.equal(read.status, "underpaid");
  assert.deepEqual(read.exceptionResolution, resolution);
  assert.deepEqual(read.timeline.at(-1), { status: "underpaid", at: resolution.resolvedAt, txHash: null, resolution });
  const [row] = await psql(`select coalesce(open_exception, '-') || ' ' || (exception_resolved_at is not null)
    from charges where invoice_id = '${c.invoiceId}'`);
  assert.equal(row, "- true");

  // The webhooks role queued invoice.exception_resolved for the subscribed endpoint.
  const queued = await waitUntil(async () => {
    const rows = await psql(`select e.body from webhook_events e join webhook_deliveries d on d.event_id = e.id
      where e.invoice_id = '${c.invoiceId}' and e.type = 'invoice.exception_resolved'
        and d.endpoint_id = '${hook.body.data.id}'`);
    return rows.length ? rows : null;
  }, "an invoice.exception_resolved delivery", 30000);
  const body = JSON.parse(queued[0]);
  assert.equal(body.data.status, "underpaid");
  assert.deepEqual(body.data.resolution, resolution);

  // duepay replay rebuilds the same row from the topic.
  const schema = `replay_resolve_${Date.now()}`;
  await run(BIN, ["replay", "--schema", schema, "--fresh"], { env, timeout: 120000 });
  const columns = "status, open_exception, exception_resolution::text, exception_resolved_at, timeline::text";
  const live = await psql(`select ${columns} from charges where invoice_id = '${c.invoiceId}'`);
  const rebuilt = await psql(`select ${columns} from ${schema}.charges where invoice_id = '${c.invoiceId}'`);
  assert.deepEqual(rebuilt, live);
  await psql(`drop schema ${schema} cascade`);
});

test("bad notes 400, other keys 404, nothing to resolve 409; nothing appended", { skip }, async () => {
  const c = await underpaidCharge();
  for (const body of [{}, { note: "" }, { note: " \n\t " }, { note: 7 }, { note: null },
    { note: "x".repeat(501) }, { note: "bell\u0007" }]) {
    const r = await resolve(c.invoiceId, body);
    assert.equal(r.status, 400, JSON.stringify(body));
    assert.equal(r.body.meta.code, "invalid_note", JSON.stringify(r.body));
  }
  const typo = await resolve(c.invoiceId, { note: "n", reason: "x" });
  assert.equal(typo.status, 400);
  assert.equal(typo.body.meta.code, "unknown_field");
  const liveKey = (await admin("key", "create", "--project", "prj_demo", "--mode", "live")).key;
  const other = await admin("project", "create", "--name", `resolve-other-${Date.now()}`);
  const otherKey = (await admin("key", "create", "--project", other.projectId, "--mode", "test")).key;
  for (const key of [liveKey, otherKey]) {
    const r = await resolve(c.invoiceId, { note: "n" }, key);
    assert.equal(r.status, 404);
    assert.equal(r.body.meta.code, "charge_not_found");
  }
  const pending = await createCharge({ amount: "1000000", paymentMode: "wallet" });
  const nothing = await resolve(pending.invoiceId, { note: "n" });
  assert.equal(nothing.status, 409);
  assert.equal(nothing.body.meta.code, "nothing_to_resolve");
  assert.deepEqual(await resolvedEvents(c.invoiceId), []);
  assert.deepEqual(await resolvedEvents(pending.invoiceId), []);
  assert.equal((await readCharge(c.invoiceId)).exceptionResolution, null);
});
