// Events API integration test (label integration, docs/events-api.md): on the real stack, charges
// paid on anvil through `duepay dev --with-webhooks` and chainwatch; GET /v1/events lists the same
// ids and bodies that the webhooks role stores for delivery, with no endpoint registered, keyset
// pages stay exact while new events arrive, and keys see only their project and mode.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { skip, ctx, api, admin, psql, createCharge, pay, startRoles, stop, waitUntil } from "./support.mjs";

let liveKey;
let otherKey;
const paid = [];  // invoice ids paid by this suite

async function all(query = "", key = ctx.testKey, limit = 100) {
  const items = [];
  let cursor = null;
  for (let pages = 0; pages < 10000; ++pages) {
    const q = new URLSearchParams(query);
    q.set("limit", String(limit));
    if (cursor) q.set("cursor", cursor);
    const r = await api("GET", `/v1/events?${q}`, undefined, key);
    assert.equal(r.status, 200, JSON.stringify(r.body));
    items.push(...r.body.data.items);
    assert.equal(r.body.data.hasMore, r.body.data.nextCursor !== null);
    if (!r.body.data.hasMore) return items;
    cursor = r.body.data.nextCursor;
  }
  throw new Error("too many pages");
}

const paidEventOf = async (invoiceId) =>
  (await all("type=invoice.paid")).find((e) => e.data.invoiceId === invoiceId);

before(async () => {
  if (skip) return;
  await startRoles();
  liveKey = (await admin("key", "create", "--project", "prj_demo", "--mode", "live")).key;
  const other = await admin("project", "create", "--name", `events-other-${Date.now()}`);
  otherKey = (await admin("key", "create", "--project", other.projectId, "--mode", "test")).key;
  // No endpoint anywhere in the project: the events exist anyway.
  await psql("delete from webhook_endpoints where project_id = 'prj_demo'");
  for (let i = 0; i < 3; ++i) {
    const c = await createCharge({ amount: String(1000000 + i), paymentMode: "wallet", reference: `events-${i}` });
    await pay(c.invoiceId);
    paid.push(c.invoiceId);
  }
  // The webhooks role may first read every earlier suite's events from the topic.
  await waitUntil(async () => {
    for (const id of paid) if (!(await paidEventOf(id))) return false;
    return true;
  }, "invoice.paid of the three charges in GET /v1/events", 180000);
});

after(async () => { await stop(); });

test("events are the stored webhook bodies, newest first, with no endpoint registered", { skip }, async () => {
  assert.equal((await psql("select count(*) from webhook_endpoints where project_id = 'prj_demo'"))[0], "0");
  const items = await all();
  const ids = items.map((e) => e.id);
  assert.equal(new Set(ids).size, ids.length, "no event twice");
  for (let i = 1; i < items.length; ++i) {
    assert.ok(items[i - 1].createdAt > items[i].createdAt ||
      (items[i - 1].createdAt === items[i].createdAt && items[i - 1].id > items[i].id), "newest first");
  }
  for (const e of items) {
    assert.match(e.id, /^evt_[0-9a-f]{48}$/);
    assert.match(e.type, /^invoice\./);
    assert.equal(e.mode, "test");
    assert.deepEqual(Object.keys(e), ["id", "type", "createdAt", "mode", "data"]);
  }
  for (const [i, invoiceId] of paid.entries()) {
    const event = await paidEventOf(invoiceId);
    assert.equal(event.data.status, "paid");
    assert.equal(event.data.reference, `events-${i}`);
    assert.equal(event.data.amount, String(1000000 + i));
    // The same id and the same bytes the webhooks role signs and sends.
    const [body] = await psql(`select body from webhook_events where id = '${event.id}'`);
    assert.deepEqual(JSON.parse(body), event);
    const one = await api("GET", `/v1/events/${event.id}`);
    assert.equal(one.status, 200);
    assert.deepEqual(one.body.data, event);
  }
});

test("filters: type and createdGte", { skip }, async () => {
  const paidOnly = await all("type=invoice.paid");
  assert.ok(paidOnly.length >= 3);
  assert.ok(paidOnly.every((e) => e.type === "invoice.paid"));
  const everything = await all();
  assert.equal(paidOnly.length, everything.filter((e) => e.type === "invoice.paid").length);
  const newest = await paidEventOf(paid[2]);
  const since = await all(`createdGte=${encodeURIComponent(newest.createdAt)}`);
  assert.ok(since.some((e) => e.id === newest.id));
  assert.ok(since.every((e) => e.createdAt >= newest.createdAt));
  assert.equal(since.length, everything.filter((e) => e.createdAt >= newest.createdAt).length);
  // The same instant in another offset; one millisecond later excludes it.
  const ms = Date.parse(newest.createdAt);
  const plus7 = new Date(ms + 7 * 3600000).toISOString().replace("Z", "+07:00");
  assert.deepEqual((await all(`createdGte=${encodeURIComponent(plus7)}`)).map((e) => e.id), since.map((e) => e.id));
  const later = await all(`createdGte=${new Date(ms + 1).toISOString()}`);
  assert.ok(!later.some((e) => e.id === newest.id));
});

test("keyset pages: none twice, none skipped while new events arrive", { skip }, async () => {
  const before = await all();
  const seen = [];
  let cursor = null;
  let injected = false;
  for (;;) {
    const q = new URLSearchParams({ limit: "2" });
    if (cursor) q.set("cursor", cursor);
    const r = await api("GET", `/v1/events?${q}`);
    assert.equal(r.status, 200);
    assert.ok(r.body.data.items.length <= 2);
    seen.push(...r.body.data.items.map((e) => e.id));
    if (!injected) {
      // A new charge paid between the first and the second page.
      injected = true;
      const c = await createCharge({ amount: "1000100", paymentMode: "wallet" });
      await pay(c.invoiceId);
      await waitUntil(() => paidEventOf(c.invoiceId), "the injected invoice.paid", 60000);
    }
    if (!r.body.data.hasMore) break;
    cursor = r.body.data.nextCursor;
  }
  assert.equal(new Set(seen).size, seen.length, "an event appeared twice");
  const seenSet = new Set(seen);
  const skipped = before.filter((e) => !seenSet.has(e.id));
  assert.deepEqual(skipped, [], "events that existed before paging were skipped");
});

test("scoped by project and mode", { skip }, async () => {
  const mine = await paidEventOf(paid[0]);
  const live = await all("", liveKey);
  assert.ok(live.every((e) => e.mode === "live"));
  assert.ok(!live.some((e) => e.id === mine.id));
  assert.deepEqual(await all("", otherKey), []);
  for (const key of [liveKey, otherKey]) {
    const r = await api("GET", `/v1/events/${mine.id}`, undefined, key);
    assert.equal(r.status, 404);
    assert.equal(r.body.meta.code, "event_not_found");
  }
  const unknown = await api("GET", `/v1/events/evt_${"0".repeat(48)}`);
  assert.equal(unknown.status, 404);
  assert.equal(unknown.body.meta.code, "event_not_found");
  const nokey = await fetch(`${ctx.base}/v1/events`);
  assert.equal(nokey.status, 401);
});

test("bad inputs are 400s with a meta.code", { skip }, async () => {
  const cases = [
    ["limit=0", "invalid_limit"], ["limit=101", "invalid_limit"], ["limit=x", "invalid_limit"],
    ["cursor=zz", "invalid_cursor"], ["cursor=", "invalid_cursor"],
    ["type=invoice.nope", "invalid_event_type"], ["type=webhook.test", "invalid_event_type"],
    ["createdGte=yesterday", "invalid_created_gte"], ["createdGte=2026-02-30T00:00:00Z", "invalid_created_gte"],
    ["created_gte=2026-01-01T00:00:00Z", "unknown_field"], ["limit=5&typ=invoice.paid", "unknown_field"],
  ];
  for (const [query, code] of cases) {
    const r = await api("GET", `/v1/events?${query}`);
    assert.equal(r.status, 400, query);
    assert.equal(r.body.success, false);
    assert.equal(r.body.meta.code, code, query);
  }
  const post = await api("POST", "/v1/events", {});
  assert.equal(post.status, 405);
  assert.equal(post.body.meta.code, "method_not_allowed");
});
