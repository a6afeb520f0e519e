// The project overview in real Chromium (docs/dashboard.md "Overview", ADR 0245), against the dev
// stack from var/dev.env: a fresh merchant signs in with a test wallet, makes a project, verifies
// its payout wallet and creates a test key in the browser; three charges are created over REST,
// two are paid on anvil (`duepay admin simulate-payment`, wallet and transfer rails) and seen by
// a real chainwatch. The overview then shows 3 created, 2 paid, 66.7 % conversion, the counts by
// status and the paid volume (chart and table), in the last 30 and the last 90 days; axe-core
// finds no serious or critical violation on either; screenshots land in
// build/e2e-screenshots/dashboard-overview-*.png. Every wait is bounded.
import {Wallet} from "ethers";
import assert from "node:assert/strict";
import {existsSync} from "node:fs";
import {after, before, test} from "node:test";

import {
  CHAIN, CHROMIUM, axe, clickAndWait, grave, launchBrowser, openPage, shot, signIn, startDashboard,
  text, up, waitUp
} from "../support/dashboard_browser.mjs";
import {BIN, env, run, sleep, stackSkip, start, startChainwatch, stopChildren} from "../support/stack.mjs";

const skip = stackSkip([
  "DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE", "DUEPAY_SIGNER_KEY",
  "DUEPAY_SERVER_SECRET", "DUEPAY_DEV_BUYER_KEYS", `DUEPAY_RPC_URL_${CHAIN}`
]) || (!existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : false);

let browser;
let origin;
const owner = {wallet: Wallet.createRandom(), signed: []};
let page;
let projectId;
let testKey;

before(async () => {
  if (skip) return;
  if (!(await up(env.DUEPAY_BASE_URL + "/healthz"))) {
    const dev = start(["dev"], "dev");
    await waitUp(env.DUEPAY_BASE_URL + "/healthz", "the API", dev);
  }
  await startChainwatch(CHAIN);
  origin = (await startDashboard("dashboard-overview")).url;
  browser = await launchBrowser();
  page = await openPage(await browser.createBrowserContext(), owner, {bypassCsp: true});
});

after(async () => {
  if (browser) await browser.close();
  await stopChildren();
});

async function api(method, path, body) {
  const res = await fetch(env.DUEPAY_BASE_URL + path, {
    method,
    headers: {"x-api-key": testKey, "content-type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  return {status: res.status, body: await res.json()};
}

async function waitFor(pred, what, timeoutMs = 90000) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await pred()) return;
    await sleep(300);
  }
  throw new Error(`no ${what} within ${timeoutMs} ms`);
}

test("a merchant with paid charges sees counts, volume and conversion", {skip}, async () => {
  await signIn(page, origin);
  await page.type("[data-test=project-name]", "Overview shop");
  await clickAndWait(page, "[data-test=create-project]");
  projectId = /^\/p\/([^/]+)$/.exec(new URL(page.url()).pathname)[1];
  // A new project: the first-charge guidance, nothing paid yet.
  assert.ok(await page.$("[data-test=first-charge]"));
  assert.ok(await page.$("[data-test=no-volume]"));
  assert.equal(await text(page, "[data-test=created]"), "0");
  assert.equal(await text(page, "[data-test=conversion]"), "—");

  await page.goto(`${origin}/p/${projectId}/wallet`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=verify-wallet]", "[data-test=wallet-status]");
  await page.goto(`${origin}/p/${projectId}/keys`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=create-key]");
  testKey = await text(page, "[data-test=new-key]");

  const ids = [];
  for (const amount of ["1500000", "2500000", "4000000"]) {
    const r = await api("POST", "/v1/invoices", {chainId: CHAIN, amount, token: "USDT"});
    assert.equal(r.status, 201, JSON.stringify(r.body));
    ids.push(r.body.data.invoiceId);
  }
  for (const [id, rail] of [[ids[0], "wallet"], [ids[1], "transfer"]]) {
    const {stdout} = await run(BIN, ["admin", "simulate-payment", "--invoice", id, "--rail", rail],
                               {env, timeout: 60000});
    assert.equal(JSON.parse(stdout).status, "success", stdout);
  }
  await waitFor(async () => {
    const s = await Promise.all(ids.slice(0, 2).map((id) => api("GET", `/v1/charges/${id}`)));
    return s.every((r) => r.body.data?.status === "paid");
  }, "two paid charges");

  for (const days of [30, 90]) {
    const resp = await page.goto(`${origin}/p/${projectId}?days=${days}`, {waitUntil: "load"});
    assert.equal(resp.status(), 200);
    assert.equal(await page.$eval(`[data-test=period-${days}]`, (a) => a.getAttribute("aria-current")),
                 "page");
    assert.equal(await text(page, "[data-test=created]"), "3");
    assert.equal(await text(page, "[data-test=paid]"), "2");
    assert.equal(await text(page, "[data-test=conversion]"), "66.7 %");
    assert.match(await text(page, "[data-test=median]"), /^(≈ )?\d+ (s|min)/);
    assert.equal(await text(page, "[data-test=status-paid]"), "2");
    assert.equal(await text(page, "[data-test=status-pending]"), "1");
    assert.equal(await page.$("[data-test=first-charge]"), null, "guidance only before charges");
    // The volume: 1.5 + 2.5 USDT, in the table and as one bar today.
    const row = await page.$eval("table[data-test=volume] tbody tr", (tr) =>
        [...tr.cells].map((td) => td.textContent.trim()));
    assert.match(row[0], /^USDT /);
    assert.equal(row[1], "4");
    assert.equal(row[2], "2");
    const bars = await page.$$eval("svg.chart-svg rect.bar", (rs) => rs.map((r) => r.getAttribute("data-day")));
    assert.deepEqual(bars, [new Date().toISOString().slice(0, 10)]);
    assert.match(await page.$eval("svg.chart-svg title", (t) => t.textContent), /USDT/);
    await shot(page, `overview-${days}`, {mobile: days === 30});
    const v = await axe(page);
    assert.deepEqual(grave(v), [], JSON.stringify(grave(v), null, 1));
  }
  assert.deepEqual(page.consoleErrors, []);
});

test("a period other than 30 or 90 days is refused", {skip}, async () => {
  assert.ok(projectId, "the first test made a project");
  const resp = await page.goto(`${origin}/p/${projectId}?days=365`, {waitUntil: "load"});
  assert.equal(resp.status(), 400);
  assert.match(await page.content(), /days must be 30 or 90/);
});
