// The dashboard's webhooks pages in real Chromium (docs/dashboard.md "Webhooks"), against the dev
// stack from var/dev.env. A merchant signs in (a fresh wallet behind the test EIP-1193 provider of
// tests/support/dashboard_browser.mjs), makes a project with a verified payout wallet and a test
// key, and runs a receiver on loopback that answers 500 at first. The suite starts its own
// `duepay dashboard`, its own `duepay webhooks` role (retries after 2 s and 2 s, then not for
// 5 minutes; an endpoint failing for 8 s is disabled), `duepay chainwatch` for the test chain,
// and `duepay dev` when no API answers. A charge created over REST and paid with
// `duepay admin simulate-payment` makes an invoice.paid event. Then, in the browser: the failing
// attempts in the log (500, latency, the escaped start of the body), the automatic disable and
// the re-enable, a redelivery answered 200, a secret rotation (the next delivery verifies with the
// new secret, by the npm standardwebhooks package, and with the old one during the overlap), the
// charge page's deliveries, and a viewer who gets 403 on redeliver and rotate while nothing
// changes. axe-core on every page; screenshots in build/e2e-screenshots/dashboard-webhook*.png.
// Every wait is bounded.
import {Wallet} from "ethers";
import assert from "node:assert/strict";
import {existsSync} from "node:fs";
import http from "node:http";
import {createRequire} from "node:module";
import {after, before, test} from "node:test";

import {
  CHAIN, CHROMIUM, axe, clickAndWait, createCharge, grave, launchBrowser, openPage, path, shot,
  signIn, startDashboard, text, up, waitUp
} from "../support/dashboard_browser.mjs";
import {
  BIN, env, run, sleep, stackSkip, start, startChainwatch, stopChildren, waitUntil as waitFor
} from "../support/stack.mjs";

const {Webhook} = createRequire(import.meta.url)("standardwebhooks");

const skip = stackSkip([
  "DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE",
  "DUEPAY_SIGNER_KEY", "DUEPAY_SERVER_SECRET", "DUEPAY_DEV_BUYER_KEYS", `DUEPAY_RPC_URL_${CHAIN}`
]) || (!existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : false);
const DISABLE_AFTER_SECONDS = 8;
// The receiver's failing answer: markup that must be shown as text, and a control character
// (ESC) that the delivery log drops.
const FAILING_BODY = '{"error":"<b>db down</b>"}\u001b[31m\n';

let browser;
let origin;
let context;
let page;
let projectId;
let testKey;
let endpointId;
let secret;
let paidEventId;
let invoiceId;
const owner = {wallet: Wallet.createRandom(), signed: []};
const viewer = {wallet: Wallet.createRandom(), signed: []};
const receiver = {status: 500, got: []};
let webhooksRole;

const waitUntil = (pred, what, timeoutMs = 60000) =>
    waitFor(pred, what, timeoutMs, () => `webhooks role:\n${webhooksRole?.logs.slice(-3000)}`);

async function psql(sql) {
  const {stdout} = await run("psql", [env.DATABASE_URL, "-Atc", sql], {env});
  return stdout.trim();
}

// The rows of the endpoint's delivery log as the page shows them (after a reload).
async function logRows() {
  await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
  return page.$$eval("table[data-test=delivery-log] tbody tr", (trs) => trs.map((tr) => ({
    eventId: tr.dataset.eventId,
    status: tr.querySelector("[data-test=attempt-status]").textContent.trim(),
    latency: tr.querySelector("[data-test=attempt-latency]").textContent.trim(),
    body: tr.querySelector("[data-test=attempt-body]").textContent,
    bodyHtml: tr.querySelector("[data-test=attempt-body]").innerHTML
  })));
}

// axe-core on the page's URL opened again (a GET) and its screenshot, unless `shoot` is false.
async function axeClean(name, {shoot: take = true} = {}) {
  // A second page of the same session that bypasses the CSP, only so that axe can be injected.
  const checked = await openPage(context, null, {bypassCsp: true});
  await checked.goto(page.url(), {waitUntil: "load"});
  if (take) await shot(checked, name);
  const v = await axe(checked);
  await checked.close();
  assert.deepEqual(grave(v), [], `${name}: ${JSON.stringify(grave(v), null, 1)}`);
}

before(async () => {
  if (skip) return;
  receiver.server = http.createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      receiver.got.push({raw: Buffer.concat(chunks).toString("utf8"), headers: req.headers});
      res.writeHead(receiver.status, {"content-type": "application/json"});
      res.end(receiver.status < 300 ? '{"ok":true}' : FAILING_BODY);
    });
  });
  await new Promise((r) => receiver.server.listen(0, "127.0.0.1", r));
  receiver.url = `http://127.0.0.1:${receiver.server.address().port}/hooks`;
  if (!(await up(env.DUEPAY_BASE_URL + "/healthz"))) {
    const dev = start(["dev"], "dev");
    await waitUp(env.DUEPAY_BASE_URL + "/healthz", "the API", dev);
  }
  webhooksRole = start(["webhooks"], "webhooks", {
    DUEPAY_WEBHOOK_ALLOW_INSECURE: "1",
    DUEPAY_WEBHOOK_RETRY_SCHEDULE: "2s,2s,300s/10m",
    DUEPAY_WEBHOOK_DISABLE_AFTER_SECONDS: String(DISABLE_AFTER_SECONDS),
    DUEPAY_WEBHOOK_HOUSEKEEPING_SECONDS: "1"
  });
  await startChainwatch(CHAIN);
  origin = (await startDashboard("dashboard-webhooks", {DUEPAY_WEBHOOK_ALLOW_INSECURE: "1"})).url;
  browser = await launchBrowser();
  context = await browser.createBrowserContext();
  page = await openPage(context, owner);
});

after(async () => {
  if (browser) await browser.close();
  receiver.server?.close();
  if (projectId) {
    await psql(`delete from webhook_endpoints where project_id = '${projectId}'`).catch(() => {});
  }
  await stopChildren();
});

test("a merchant sets up a project, a payout wallet and a test key", {skip}, async () => {
  await signIn(page, origin);
  await page.type("[data-test=project-name]", "Webhook shop");
  await clickAndWait(page, "[data-test=create-project]");
  projectId = /^\/p\/([^/]+)$/.exec(path(page))[1];
  await page.goto(`${origin}/p/${projectId}/wallet`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=verify-wallet]", "[data-test=wallet-status]");
  await page.goto(`${origin}/p/${projectId}/keys`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=create-key]");
  testKey = await text(page, "[data-test=new-key]");
  assert.match(testKey, /^dp_test_/);
});

test("create an endpoint: refused input says why; the secret is shown once", {skip}, async () => {
  await page.goto(`${origin}/p/${projectId}`, {waitUntil: "load"});
  await clickAndWait(page, "nav.project-nav a[href$='/webhooks']");
  assert.equal(path(page), `/p/${projectId}/webhooks`);
  assert.ok(await page.$("[data-test=no-endpoints]"));

  // The REST route's URL rule, word for word.
  await page.type("[data-test=webhook-url]", "ftp://example.com/hooks");
  let resp = await clickAndWait(page, "[data-test=create-webhook]");
  assert.equal(resp.status(), 400);
  assert.match(await text(page, "[data-test=error]"), /https/);
  // No event ticked: the REST rule again.
  await page.$eval("[data-test=webhook-url]", (el) => { el.value = ""; });
  await page.type("[data-test=webhook-url]", receiver.url);
  await page.$$eval("input[name=events]", (boxes) => boxes.forEach((b) => { b.checked = false; }));
  resp = await clickAndWait(page, "[data-test=create-webhook]");
  assert.equal(resp.status(), 400);
  assert.match(await text(page, "[data-test=error]"), /events must be a non-empty array/);

  // Bytes that are not UTF-8, or a NUL, in any field: refused, nothing stored.
  const hostile = await page.evaluate(async (url) => {
    const token = document.querySelector("meta[name=csrf-token]").content;
    const post = (extra) => fetch(location.pathname, {
      method: "POST",
      headers: {"content-type": "application/x-www-form-urlencoded", "x-csrf-token": token},
      body: `url=${encodeURIComponent(url)}&events=invoice.paid&${extra}`
    }).then((r) => r.status);
    return [await post("description=%FF%FE"), await post("description=a%00b"),
            await post("events=%C0%AF")];
  }, receiver.url);
  assert.deepEqual(hostile, [400, 400, 400]);
  assert.equal(await psql(`select count(*) from webhook_endpoints where project_id = '${projectId}'`),
               "0");

  await page.$$eval("input[name=events]", (boxes) => boxes.forEach((b) => {
    b.checked = b.value === "invoice.paid" || b.value === "webhook.test";
  }));
  await page.type("[data-test=webhook-description]", "orders <service>");
  resp = await clickAndWait(page, "[data-test=create-webhook]");
  assert.equal(resp.status(), 201);
  secret = await text(page, "[data-test=new-secret]");
  assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
  endpointId = await page.$eval("table[data-test=webhook-endpoints] tbody tr",
                                (tr) => tr.dataset.endpointId);
  assert.match(endpointId, /^we_[0-9a-f]{24}$/);
  await shot(page, "webhooks");
  await axeClean("webhooks", {shoot: false});

  // Gone when the page is opened again, and on the endpoint's own page.
  await page.goto(`${origin}/p/${projectId}/webhooks`, {waitUntil: "load"});
  assert.equal(await page.$("[data-test=new-secret]"), null);
  assert.doesNotMatch(await page.content(), new RegExp(secret.replace(/[+/]/g, "\\$&")));
  await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
  assert.doesNotMatch(await page.content(), new RegExp(secret.replace(/[+/]/g, "\\$&")));
  assert.equal(await text(page, "[data-test=endpoint-url]"), receiver.url);
  assert.match(await page.content(), /orders &lt;service&gt;/);
  // Edit: the same rules as create; an empty description clears it.
  await page.$eval("[data-test=edit-url]", (el) => { el.value = "ftp://x"; });
  let edit = await clickAndWait(page, "[data-test=save-endpoint]");
  assert.equal(edit.status(), 400);
  assert.match(await text(page, "[data-test=error]"), /https/);
  await page.$eval("[data-test=edit-url]", (el, url) => { el.value = url; }, receiver.url);
  await page.$eval("[data-test=edit-description]", (el) => { el.value = "orders v2"; });
  edit = await clickAndWait(page, "[data-test=save-endpoint]");
  assert.equal(edit.status(), 200);
  assert.equal(path(page), `/p/${projectId}/webhooks/${endpointId}`);
  assert.equal(await text(page, "[data-test=flash]"), "Endpoint saved.");
  assert.match(await page.content(), /orders v2/);
  const audit = await psql(`select action from account_audit where project_id = '${projectId}'
    and action like 'webhook%' order by id`);
  assert.equal(audit, "webhook_endpoint.created\nwebhook_endpoint.updated");
});

test("failing deliveries show in the log; the endpoint is disabled for failing, then enabled again",
     {skip}, async () => {
       const charge = await createCharge(testKey);
       assert.equal(charge.status, 201, JSON.stringify(charge.body));
       invoiceId = charge.body.data.invoiceId;
       const {stdout} = await run(
           BIN, ["admin", "simulate-payment", "--invoice", invoiceId, "--rail", "wallet"],
           {env, timeout: 60000});
       assert.equal(JSON.parse(stdout).status, "success");
       // Three attempts (now, +2 s, +4 s), each answered 500.
       const rows = await waitUntil(async () => {
         const r = await logRows();
         return r.length >= 3 ? r : null;
       }, "three failing attempts", 120000);
       paidEventId = rows[0].eventId;
       assert.match(paidEventId, /^evt_[0-9a-f]{48}$/);
       for (const row of rows) {
         assert.equal(row.status, "500");
         assert.match(row.latency, /^\d+ ms$/);
         // The start of the body as text: markup escaped, the ESC character dropped.
         assert.equal(row.body, '{"error":"<b>db down</b>"}[31m ');
         assert.match(row.bodyHtml, /&lt;b&gt;db down&lt;\/b&gt;/);
       }
       assert.ok(receiver.got.length >= 3);
       // Signed with the endpoint's secret.
       new Webhook(secret).verify(receiver.got[0].raw, receiver.got[0].headers);

       // No success for DISABLE_AFTER_SECONDS: the dispatcher disables it and the page says so.
       await waitUntil(async () => {
         await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
         return page.$("[data-test=auto-disabled]");
       }, "the automatic disable", 60000);
       assert.equal(await page.$eval("[data-test=health]", (el) => el.dataset.health),
                    "disabled_failing");
       assert.equal(await text(page, "[data-test=success-rate]"), "0 %");
       await axeClean("webhook-endpoint-failing");

       receiver.status = 200;
       await clickAndWait(page, "[data-test=reenable-endpoint]");
       assert.equal(await text(page, "[data-test=flash]"), "Endpoint enabled.");
       assert.equal(await page.$("[data-test=auto-disabled]"), null);
       assert.equal(await text(page, "[data-test=endpoint-status]"), "Enabled");
       // The flash is shown once.
       await page.reload({waitUntil: "load"});
       assert.equal(await page.$("[data-test=flash]"), null);
     });

test("redeliver: the same event answered 200 shows in the log", {skip}, async () => {
  const before = receiver.got.length;
  await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
  await clickAndWait(page, `tr[data-event-id="${paidEventId}"] [data-test=redeliver]`);
  assert.equal(await text(page, "[data-test=flash]"),
               "Redelivery queued: it shows in the log within seconds.");
  const rows = await waitUntil(async () => {
    const r = await logRows();
    return r[0]?.status === "200" ? r : null;
  }, "the redelivery's 200", 60000);
  assert.equal(rows[0].eventId, paidEventId);
  assert.equal(rows[0].body, '{"ok":true}');
  assert.equal(JSON.parse(receiver.got.at(-1).raw).id, paidEventId);
  assert.ok(receiver.got.length > before);
  const health = await page.$eval("[data-test=health]", (el) => el.dataset.health);
  assert.equal(health, "degraded");  // 1 of 4 delivered in 24 h
  assert.equal(await text(page, "[data-test=success-rate]"), "25 %");
  await axeClean("webhook-endpoint");

  // The charge page lists the delivery, linked to the log.
  await page.goto(`${origin}/p/${projectId}/charges/${invoiceId}`, {waitUntil: "load"});
  const deliveries = await page.$$eval("table[data-test=charge-deliveries] tbody tr",
                                       (trs) => trs.map((tr) => ({
                                         endpoint: tr.dataset.endpointId,
                                         event: tr.dataset.eventId,
                                         state: tr.querySelector("[data-test=delivery-state]")
                                                    .textContent.trim()
                                       })));
  assert.deepEqual(deliveries, [{endpoint: endpointId, event: paidEventId, state: "Delivered"}]);
  await clickAndWait(page, "[data-test=endpoint-log]");
  assert.equal(path(page), `/p/${projectId}/webhooks/${endpointId}`);
  await page.goto(`${origin}/p/${projectId}/charges/${invoiceId}`, {waitUntil: "load"});
  await axeClean("charge-webhooks");
});

test("rotate the secret: the next delivery verifies with the new one, and the old one during the overlap",
     {skip}, async () => {
       await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
       const resp = await clickAndWait(page, "[data-test=rotate-secret]");
       assert.equal(resp.status(), 200);
       const fresh = await text(page, "[data-test=new-secret]");
       assert.match(fresh, /^whsec_/);
       assert.notEqual(fresh, secret);
       await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
       assert.equal(await page.$("[data-test=new-secret]"), null, "shown once");

       const before = receiver.got.length;
       await clickAndWait(page, "[data-test=send-test]");
       const got = await waitUntil(
           () => receiver.got.slice(before).find((g) => JSON.parse(g.raw).type === "webhook.test"),
           "the test event", 60000);
       const event = new Webhook(fresh).verify(got.raw, got.headers);
       assert.equal(event.type, "webhook.test");
       new Webhook(secret).verify(got.raw, got.headers);  // the previous secret still signs
       assert.throws(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`)
                               .verify(got.raw, got.headers));
       secret = fresh;
     });

test("a viewer reads every page but gets 403 on redeliver and rotate, and nothing changes",
     {skip}, async () => {
       await page.goto(`${origin}/p/${projectId}/members`, {waitUntil: "load"});
       await page.type("[data-test=member-address]", viewer.wallet.address);
       await page.select("[data-test=member-role]", "viewer");
       await clickAndWait(page, "[data-test=add-member]");

       const viewerContext = await browser.createBrowserContext();
       const vpage = await openPage(viewerContext, viewer);
       await signIn(vpage, origin);
       let resp = await vpage.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`,
                                   {waitUntil: "load"});
       assert.equal(resp.status(), 200);
       assert.ok(await vpage.$("table[data-test=delivery-log]"));
       for (const sel of ["redeliver", "rotate-secret", "send-test", "disable-endpoint",
                          "delete-endpoint", "save-endpoint"]) {
         assert.equal(await vpage.$(`[data-test=${sel}]`), null, `${sel} is not offered`);
       }
       resp = await vpage.goto(`${origin}/p/${projectId}/webhooks`, {waitUntil: "load"});
       assert.equal(resp.status(), 200);
       assert.equal(await vpage.$("[data-test=create-webhook]"), null);

       const state = () => psql(`select e.secret, e.status, (select count(*) from webhook_attempts a
         where a.endpoint_id = e.id), (select string_agg(d.state || d.attempts, ',') from
         webhook_deliveries d where d.endpoint_id = e.id), (select count(*) from account_audit
         where project_id = e.project_id) from webhook_endpoints e where e.id = '${endpointId}'`);
       const before = await state();
       const statuses = await vpage.evaluate(async (base, eventId) => {
         const token = document.querySelector("meta[name=csrf-token]").content;
         const post = (suffix, body) => fetch(base + suffix, {
                                          method: "POST",
                                          headers: {
                                            "content-type": "application/x-www-form-urlencoded",
                                            "x-csrf-token": token
                                          },
                                          body,
                                          redirect: "manual"
                                        }).then((r) => r.status);
         return [
           await post("/redeliver", `event_id=${eventId}`), await post("/rotate", ""),
           await post("/test", ""), await post("/disable", ""), await post("/delete", ""),
           await post("", "url=https%3A%2F%2Fexample.com%2Fx&events=invoice.paid")
         ];
       }, `/p/${projectId}/webhooks/${endpointId}`, paidEventId);
       assert.deepEqual(statuses, [403, 403, 403, 403, 403, 403]);
       await sleep(1500);
       assert.equal(await state(), before, "nothing changed");
       await viewerContext.close();
     });

test("delete asks first; every change is in the audit log", {skip}, async () => {
  await page.goto(`${origin}/p/${projectId}/webhooks/${endpointId}`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=delete-endpoint]");
  assert.equal(path(page), `/p/${projectId}/webhooks/${endpointId}/delete`);
  await axeClean("webhook-delete");
  await clickAndWait(page, "[data-test=confirm-delete]");
  assert.equal(path(page), `/p/${projectId}/webhooks`);
  assert.equal(await text(page, "[data-test=flash]"), "Endpoint deleted.");
  assert.ok(await page.$("[data-test=no-endpoints]"));
  const audit = await psql(`select action || ' ' || actor_kind || ' ' || actor || ' ' ||
    (session_id is not null)::text from account_audit where project_id = '${projectId}'
    and action like 'webhook%' order by id`);
  const who = `wallet ${owner.wallet.address} true`;
  assert.deepEqual(audit.split("\n"), [
    `webhook_endpoint.created ${who}`, `webhook_endpoint.updated ${who}`,
    `webhook_endpoint.updated ${who}`, `webhook_delivery.redelivered ${who}`, `webhook_endpoint.secret_rotated ${who}`,
    `webhook_endpoint.test_sent ${who}`, `webhook_endpoint.deleted ${who}`
  ]);
  // No secret in any audit row.
  assert.equal(await psql(`select count(*) from account_audit where project_id = '${projectId}'
    and changes::text like '%whsec_%'`), "0");
  // The refused forms and the viewer's 403s are the only failed loads.
  assert.deepEqual(page.consoleErrors.filter((m) => !/status of 400/.test(m)), []);
});
