// The merchant dashboard in real Chromium (Debian's /usr/bin/chromium driven by puppeteer-core;
// nothing downloads a browser), against the dev stack from var/dev.env. The suite starts its own
// `duepay dashboard` on a free loopback port (and a second one with a 4-second idle timeout) and
// uses the API at DUEPAY_BASE_URL (`duepay dev` is started here unless an API answers). Each
// merchant is a fresh random ethers Wallet behind a test EIP-1193 provider that the page finds as
// the dashboard finds real wallets (an EIP-6963 announcement, and window.ethereum); every
// signature is made in node. Each user has a browser context of its own (cookies are per host, not
// per port). axe-core checks every page; screenshots land in build/e2e-screenshots/dashboard-*.png
// (docs/dashboard.md). Every wait is bounded.
import {Wallet} from "ethers";
import assert from "node:assert/strict";
import {existsSync} from "node:fs";
import http from "node:http";
import {after, before, test} from "node:test";
import {SiweMessage} from "siwe";

import {
  CHAIN, CHROMIUM, axe, clickAndWait, createCharge, grave, launchBrowser, openPage, path,
  projectNames, sessionCookie, shot, signIn, startDashboard, text, up, waitUp
} from "../support/dashboard_browser.mjs";
import {
  BIN, env, run, sleep, stackSkip, start, startChainwatch, stopChildren
} from "../support/stack.mjs";

const skip = stackSkip([
  "DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE",
  "DUEPAY_SIGNER_KEY", "DUEPAY_SERVER_SECRET"
]) || (!existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : false);
const IDLE_SECONDS = 4;
const FIRST_HOUR_BUDGET_MS = 120000;

let browser;
let origin;      // the dashboard under test
let idleOrigin;  // the same, with DUEPAY_DASHBOARD_IDLE_SECONDS=4
let dashboard;
const owner = {wallet: Wallet.createRandom(), signed: []};
let ownerContext;
let ownerPage;
let projectId;
let testKey;

before(async () => {
  if (skip) return;
  if (!(await up(env.DUEPAY_BASE_URL + "/healthz"))) {
    const dev = start(["dev"], "dev");
    await waitUp(env.DUEPAY_BASE_URL + "/healthz", "the API", dev);
  }
  dashboard = await startDashboard("dashboard");
  origin = dashboard.url;
  idleOrigin = (await startDashboard("dashboard-idle", {
                 DUEPAY_DASHBOARD_IDLE_SECONDS: String(IDLE_SECONDS)
               })).url;
  browser = await launchBrowser();
  ownerContext = await browser.createBrowserContext();
});

after(async () => {
  if (browser) await browser.close();
  await stopChildren();
});

test("first hour: sign in, project, payout wallet, test key, a charge over REST", {skip},
     async (t) => {
       const started = Date.now();
       ownerPage = await openPage(ownerContext, owner);
       const page = ownerPage;
       await signIn(page, origin);
       assert.equal(
           await text(page, "[data-test=signed-in-address]"),
           owner.wallet.address.slice(0, 6) + "…" + owner.wallet.address.slice(-4));
       assert.ok(await page.$("[data-test=no-projects]"), "a new wallet has no project yet");

       await page.type("[data-test=project-name]", "First shop");
       await clickAndWait(page, "[data-test=create-project]");
       const m = /^\/p\/([^/]+)$/.exec(path(page));
       assert.ok(m, `created project's page: ${page.url()}`);
       projectId = m[1];
       assert.equal(await text(page, "[data-test=current-project]"), "First shop");
       assert.equal(await text(page, "[data-test=my-role]"), "Owner");

       // The payout wallet: the same wallet signs the project's challenge.
       await page.goto(`${origin}/p/${projectId}/wallet`, {waitUntil: "load"});
       assert.ok(await page.$("[data-test=no-payout]"));
       await clickAndWait(page, "[data-test=verify-wallet]", "[data-test=wallet-status]");
       assert.equal(await text(page, "[data-test=payout-address]"), owner.wallet.address);
       assert.match(owner.signed.at(-1), new RegExp(owner.wallet.address, "i"));

       // A test key, shown once at creation and again on request.
       await page.goto(`${origin}/p/${projectId}/keys`, {waitUntil: "load"});
       const created = await clickAndWait(page, "[data-test=create-key]");
       assert.equal(created.status(), 201);
       testKey = await text(page, "[data-test=new-key]");
       assert.match(testKey, /^dp_test_/);
       await page.goto(`${origin}/p/${projectId}/keys`, {waitUntil: "load"});
       assert.equal(await page.$("[data-test=new-key]"), null, "a key is shown once");
       await clickAndWait(page, "[data-test=reveal-key]");
       assert.equal(await text(page, "[data-test=revealed-key]"), testKey);

       // The key works against the API.
       const charge = await createCharge(testKey);
       assert.equal(charge.status, 201, JSON.stringify(charge.body));
       assert.equal(charge.body.success, true);
       assert.match(charge.body.data.invoiceId, /^0x[0-9a-f]{64}$/);
       const ms = Date.now() - started;
       t.diagnostic(`first hour path: ${ms} ms (budget ${FIRST_HOUR_BUDGET_MS} ms)`);
       console.log(`dashboard first-hour path: ${(ms / 1000).toFixed(1)} s`);
       assert.ok(ms < FIRST_HOUR_BUDGET_MS, `first hour took ${ms} ms`);
       assert.deepEqual(page.consoleErrors, []);
     });

// The list updates itself (server-sent events): a charge created over REST appears, and paid on
// the dev chain (`duepay admin simulate-payment`, seen by a chainwatch of this suite) it turns
// paid, both without a reload of the page (a marker on window survives only if none happens).
test("the charges list shows a new charge and its payment without a reload", {skip}, async () => {
  const page = ownerPage;
  assert.ok(projectId && testKey, "the first-hour test made the project and its test key");
  const chainwatch = await startChainwatch(CHAIN);
  await page.goto(`${origin}/p/${projectId}/charges`, {waitUntil: "load"});
  await page.waitForSelector("#charges-list[data-live] [data-test=live-status]", {timeout: 5000});
  await page.evaluate(() => { window.__sameDocument = true; });

  const charge = await createCharge(testKey);
  assert.equal(charge.status, 201, JSON.stringify(charge.body));
  const id = charge.body.data.invoiceId;
  const row = `#charges-list tr[data-invoice="${id}"]`;
  await page.waitForSelector(row, {timeout: 20000}).catch((e) => {
    throw new Error(`the new charge did not appear: ${e.message}; chainwatch: ${
        chainwatch.logs.slice(-1000)}; console: ${page.consoleErrors.join(" | ")}`);
  });
  assert.equal(await page.$eval(row, (tr) => tr.dataset.status), "pending");

  const {stdout} = await run(BIN, ["admin", "simulate-payment", "--invoice", id],
                             {env, timeout: 60000});
  assert.equal(JSON.parse(stdout).status, "success", stdout);
  await page.waitForSelector(`${row}[data-status="paid"]`, {timeout: 45000}).catch(async (e) => {
    const status = await page.$eval(row, (tr) => tr.dataset.status).catch(() => "?");
    throw new Error(`the row did not turn paid (it says ${status}): ${e.message}; chainwatch: ${
        chainwatch.logs.slice(-1500)}`);
  });
  assert.equal(await page.evaluate(() => window.__sameDocument), true, "no reload happened");
  assert.match(await text(page, "[data-test=live-status]"), /^Updated /);
  assert.deepEqual(page.consoleErrors, []);
  chainwatch.kill("SIGTERM");
});

test("the session cookie as the browser holds it", {skip}, async () => {
  const c = await sessionCookie(ownerPage, origin);
  assert.ok(c, "duepay_session is set");
  assert.match(c.value, /^[0-9a-f]{64}$/);
  assert.equal(c.httpOnly, true);
  assert.equal(c.sameSite, "Lax");
  assert.equal(c.path, "/");
  assert.equal(c.secure, false, "not Secure on plain http loopback");
  assert.equal(c.domain, "127.0.0.1");
  assert.equal(c.session, false, "expires with the session's absolute limit");
  // Scripts cannot read it.
  assert.equal(await ownerPage.evaluate(() => document.cookie.includes("duepay_session")), false);
});

test("CSRF: cross-site forms and token-less posts are refused and change nothing", {skip},
     async () => {
       const page = ownerPage;
       const before = await projectNames(page, origin);
       assert.deepEqual(before, ["First shop"]);
       const csrf = await page.$eval("meta[name=csrf-token]", (m) => m.content);
       assert.match(csrf, /^[0-9a-f]{64}$/);

       // Another origin (same host, another port: same site, so the Lax cookie is sent) whose page
       // auto-submits a form to /projects, once without a token and once with the real one.
       const evil = http.createServer((req, res) => {
         const token = req.url.includes("with-token") ? csrf : "";
         res.writeHead(200, {"content-type": "text/html"});
         res.end(`<!doctype html><title>evil</title><form method="post" action="${
             origin}/projects"><input name="name" value="evil ${req.url}"><input name="csrf" value="${
             token}"></form><script>document.forms[0].submit()</script>`);
       });
       await new Promise((r) => evil.listen(0, "127.0.0.1", r));
       const evilOrigin = `http://127.0.0.1:${evil.address().port}`;
       try {
         for (const which of ["/no-token", "/with-token"]) {
           const attacked = await openPage(ownerContext);
           const [resp] = await Promise.all([
             attacked.waitForResponse(
                 (r) => r.url() === `${origin}/projects` && r.request().method() === "POST",
                 {timeout: 15000}),
             attacked.goto(evilOrigin + which)
           ]);
           assert.equal(resp.status(), 403, which);
           // Not 401 session_required: the cookie went along (same site) and the session was
           // found; the origin check refused the request.
           assert.equal((await resp.json()).meta.code, "cross_site_request");
           await attacked.close();
         }
       } finally {
         evil.close();
       }

       // Our own page, our own origin, no token or a wrong one.
       const statuses = await page.evaluate(async (token) => {
         const post = (headers) => fetch("/projects", {
                                     method: "POST",
                                     credentials: "same-origin",
                                     headers: {
                                       "content-type": "application/x-www-form-urlencoded",
                                       ...headers
                                     },
                                     body: "name=no+token",
                                     redirect: "manual"
                                   }).then(async (r) => [r.status, (await r.json()).meta.code]);
         return [
           await post({}), await post({"x-csrf-token": token.replace(/^./, (c) => c === "0" ? "1" : "0")})
         ];
       }, csrf);
       assert.deepEqual(statuses, [[403, "invalid_csrf_token"], [403, "invalid_csrf_token"]]);
       assert.deepEqual(await projectNames(page, origin), before);
     });

test("sign-out ends the session; an idle session expires", {skip}, async () => {
  const user = {wallet: Wallet.createRandom(), signed: []};
  const context = await browser.createBrowserContext();
  const page = await openPage(context, user);
  await signIn(page, origin);
  const old = await sessionCookie(page, origin);
  assert.ok(old);
  await clickAndWait(page, "[data-test=sign-out]");
  assert.equal(path(page), "/sign-in");
  assert.equal(await sessionCookie(page, origin), undefined, "the cookie is removed");
  // The old token, set back by hand, opens nothing.
  await page.setCookie(old);
  await page.goto(`${origin}/projects`, {waitUntil: "load"});
  assert.equal(path(page), "/sign-in");
  const res = await fetch(`${origin}/projects`,
                          {headers: {cookie: `duepay_session=${old.value}`}, redirect: "manual"});
  assert.equal(res.status, 303);
  assert.equal(res.headers.get("location"), "/sign-in");
  await context.close();

  // Idle expiry: a dashboard whose sessions end after 4 s without a request.
  const idleContext = await browser.createBrowserContext();
  const idlePage = await openPage(idleContext, user);
  await signIn(idlePage, idleOrigin);
  await sleep(1500);
  await idlePage.goto(`${idleOrigin}/projects`, {waitUntil: "load"});
  assert.equal(path(idlePage), "/projects", "a request within the idle time keeps the session");
  await sleep((IDLE_SECONDS + 1.5) * 1000);
  await idlePage.goto(`${idleOrigin}/projects`, {waitUntil: "load"});
  assert.equal(path(idlePage), "/sign-in", "idle too long: signed out");
  await idleContext.close();
});

test("a wallet that is not a member gets 404 on the project's pages", {skip}, async () => {
  assert.ok(projectId, "the first test made a project");
  const stranger = {wallet: Wallet.createRandom(), signed: []};
  const context = await browser.createBrowserContext();
  const page = await openPage(context, stranger);
  await signIn(page, origin);
  for (const suffix of ["", "/keys", "/members", "/wallet", "/settings", "/audit"]) {
    const resp = await page.goto(`${origin}/p/${projectId}${suffix}`, {waitUntil: "load"});
    assert.equal(resp.status(), 404, suffix);
    assert.equal(await page.$("[data-test=current-project]"), null, "nothing of the project");
    assert.doesNotMatch(await page.content(), /First shop/);
  }
  // Its own valid CSRF token does not help either.
  const statuses = await page.evaluate(async (id) => {
    const token = document.querySelector("meta[name=csrf-token]").content;
    const form = await fetch(`/p/${id}/keys`, {
      method: "POST",
      headers: {"content-type": "application/x-www-form-urlencoded", "x-csrf-token": token},
      body: "mode=test"
    });
    const json = await fetch(`/p/${id}/wallet/challenge`, {
      method: "POST",
      headers: {"content-type": "application/json", "x-csrf-token": token},
      body: JSON.stringify({address: "0x" + "11".repeat(20)})
    });
    return [form.status, json.status];
  }, projectId);
  assert.deepEqual(statuses, [404, 404]);
  await context.close();
});

test("the message the page signed is a valid EIP-4361 message for this dashboard", {skip},
     async () => {
       const text = owner.signed[0];
       assert.ok(text, "the sign-in signed a message");
       const msg = new SiweMessage(text);
       assert.equal(msg.domain, new URL(origin).host);
       assert.equal(msg.uri, origin);
       assert.equal(msg.address, owner.wallet.address);
       assert.equal(msg.version, "1");
       assert.equal(msg.chainId, CHAIN);
       assert.match(msg.nonce, /^[0-9a-zA-Z]{8,}$/);
       assert.equal(msg.statement, "Sign in to the duepay dashboard.");
       const issued = Date.parse(msg.issuedAt);
       const expires = Date.parse(msg.expirationTime);
       assert.ok(Math.abs(Date.now() - issued) < 10 * 60 * 1000, msg.issuedAt);
       assert.equal(expires - issued, 300 * 1000, "the nonce's five minutes");
       // The signature the wallet made verifies with the siwe package too.
       const signature = await owner.wallet.signMessage(text);
       const verified = await msg.verify(
           {signature, domain: msg.domain, nonce: msg.nonce, time: msg.issuedAt},
           {suppressExceptions: true});
       assert.equal(verified.success, true, JSON.stringify(verified.error));
     });

test("axe: no serious or critical violation on any page; screenshots", {skip}, async (t) => {
  assert.ok(projectId && testKey, "the first test made a project and a key");
  // Its own context, so that the Thai cookie at the end changes no other test's pages. The page
  // bypasses the CSP only so that axe can be injected.
  const context = await browser.createBrowserContext();
  const signedOut = await openPage(context, owner, {bypassCsp: true});
  const report = {};
  const check = async (page, name, opts) => {
    await shot(page, name, opts);
    const v = await axe(page);
    report[name] = v.map((x) => `${x.impact} ${x.id}`);
    assert.deepEqual(grave(v), [], `${name}: ${JSON.stringify(grave(v), null, 1)}`);
  };
  await signedOut.goto(`${origin}/sign-in`, {waitUntil: "load"});
  await check(signedOut, "sign-in", {mobile: true});
  await clickAndWait(signedOut, "[data-test=sign-in]", "[data-test=sign-in-status]");
  const page = signedOut;
  await check(page, "projects");
  const base = `${origin}/p/${projectId}`;
  for (const [suffix, name] of [["", "project"], ["/members", "members"], ["/wallet", "wallet"],
                                ["/settings", "settings"], ["/audit", "audit"]]) {
    const resp = await page.goto(base + suffix, {waitUntil: "load"});
    assert.equal(resp.status(), 200, name);
    await check(page, name);
  }
  await page.goto(`${base}/keys`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=create-key]");
  assert.ok(await page.$("[data-test=new-key]"));
  await check(page, "keys", {mobile: true});
  await page.goto(`${origin}/lang/th?next=/p/${projectId}/keys`, {waitUntil: "load"});
  assert.equal(path(page), `/p/${projectId}/keys`);
  assert.equal(await page.$eval("html", (h) => h.lang), "th");
  await check(page, "keys-th");
  await page.goto(`${origin}/lang/en?next=/sign-in`, {waitUntil: "load"});
  t.diagnostic(`axe (every impact): ${JSON.stringify(report)}`);
  console.log(`dashboard axe violations by page: ${JSON.stringify(report)}`);
  await context.close();
});
