// The dashboard's exceptions page in real Chromium (ADR 0230, docs/dashboard.md "Exceptions"),
// against the dev stack from var/dev.env: a merchant (a fresh wallet) signs in, makes a project,
// verifies its payout wallet and a test key, creates a transfer-rail charge over REST and pays
// less than due with `duepay simulate-payment --rail transfer --amount N` (chainwatch of its own
// confirms the deposit). The underpaid charge is on /p/:id/exceptions with the exact difference;
// resolving it with a note takes it off the open list, onto Resolved, and the note onto the
// charge's timeline. A viewer member sees the page, and both actions answer 403 with nothing
// appended. axe-core on the page; screenshots for docs/dashboard.md. Every wait is bounded.
import {Wallet} from "ethers";
import assert from "node:assert/strict";
import {existsSync} from "node:fs";
import {after, before, test} from "node:test";
import {promisify} from "node:util";
import {execFile} from "node:child_process";

import {
  CHAIN, CHROMIUM, axe, clickAndWait, grave, launchBrowser, openPage, path, shot, signIn,
  startDashboard, text, up, waitUp
} from "../support/dashboard_browser.mjs";
import {BIN, env, sleep, stackSkip, start, startChainwatch, stopChildren} from "../support/stack.mjs";

const run = promisify(execFile);
const skip = stackSkip([
  "DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE",
  "DUEPAY_SIGNER_KEY", "DUEPAY_SERVER_SECRET"
]) || (!existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : false);

let browser;
let origin;
const owner = {wallet: Wallet.createRandom(), signed: []};
const viewer = {wallet: Wallet.createRandom(), signed: []};

async function until(pred, what, ms = 60000) {
  const end = Date.now() + ms;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(300);
  }
}

async function api(method, p, key, body) {
  const res = await fetch(env.DUEPAY_BASE_URL + p, {
    method,
    headers: {"x-api-key": key, "content-type": "application/json"},
    body: body === undefined ? undefined : JSON.stringify(body)
  });
  return {status: res.status, body: await res.json()};
}

// A form post from the page itself (its origin and its session's CSRF token).
async function postFromPage(page, url, fields) {
  return page.evaluate(async (u, f) => {
    const csrf = document.querySelector("meta[name=csrf-token]").content;
    const body = new URLSearchParams({...f, csrf});
    const r = await fetch(u, {method: "POST", body, redirect: "manual"});
    return r.status;
  }, url, fields);
}

before(async () => {
  if (skip) return;
  if (!(await up(env.DUEPAY_BASE_URL + "/healthz"))) {
    const dev = start(["dev"], "dev");
    await waitUp(env.DUEPAY_BASE_URL + "/healthz", "the API", dev);
  }
  await startChainwatch(CHAIN);
  origin = (await startDashboard("dashboard-exceptions")).url;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  await stopChildren();
});

test("an underpaid charge is resolved with a note; a viewer gets 403", {skip}, async () => {
  const page = await openPage(await browser.createBrowserContext(), owner, {bypassCsp: true});
  await signIn(page, origin);
  await page.type("[data-test=project-name]", "Exceptions shop");
  await clickAndWait(page, "[data-test=create-project]");
  const projectId = /^\/p\/([^/]+)$/.exec(path(page))[1];
  const base = `${origin}/p/${projectId}`;
  await page.goto(`${base}/wallet`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=verify-wallet]", "[data-test=wallet-status]");
  await page.goto(`${base}/keys`, {waitUntil: "load"});
  await clickAndWait(page, "[data-test=create-key]");
  const key = await text(page, "[data-test=new-key]");

  // 1.5 due, 0.4 paid by a transfer: underpaid by 1.1.
  const created = await api("POST", "/v1/invoices", key,
                            {chainId: CHAIN, amount: "1500000", paymentMode: "transfer"});
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const id = created.body.data.invoiceId;
  const {stdout} = await run(BIN, ["simulate-payment", "--invoice", id, "--rail", "transfer",
                                   "--amount", "400000"], {env, timeout: 60000});
  assert.equal(JSON.parse(stdout).status, "success", stdout);
  await until(async () => (await api("GET", `/v1/charges/${id}`, key)).body.data?.status === "underpaid",
              "the charge to become underpaid");

  await page.goto(`${base}/exceptions`, {waitUntil: "load"});
  const row = `tr[data-invoice="${id}"]`;
  assert.ok(await page.$(row), "the underpaid charge is on the open list");
  assert.equal(await text(page, `${row} [data-test=exception]`), "Underpaid");
  assert.match(await text(page, `${row} [data-test=due]`), /^1\.5 /);
  assert.match(await text(page, `${row} [data-test=received]`), /^0\.4 /);
  assert.match(await text(page, `${row} [data-test=difference]`), /^-1\.1 /);
  assert.deepEqual(grave(await axe(page)), [], "axe on the exceptions page");
  await shot(page, "exceptions");

  // A viewer: sees the page, without the forms; both actions are 403 and append nothing.
  await page.goto(`${base}/members`, {waitUntil: "load"});
  await page.type("[data-test=member-address]", viewer.wallet.address);
  await page.select("[data-test=member-role]", "viewer");
  await clickAndWait(page, "[data-test=add-member]");
  const vpage = await openPage(await browser.createBrowserContext(), viewer);
  await signIn(vpage, origin);
  await vpage.goto(`${base}/exceptions`, {waitUntil: "load"});
  assert.ok(await vpage.$(row), "the viewer sees the row");
  assert.equal(await vpage.$(`${row} [data-test=resolve]`), null, "without the forms");
  assert.equal(await postFromPage(vpage, `${base}/exceptions/${id}/resolve`, {note: "mine"}), 403);
  assert.equal(await postFromPage(vpage, `${base}/exceptions/${id}/refund`,
                                  {tx_hash: "0x" + "e".repeat(64)}), 403);
  const still = (await api("GET", `/v1/charges/${id}`, key)).body.data;
  assert.equal(still.exceptionResolution, null);
  assert.deepEqual(still.refunds, []);

  // The owner resolves it with a note.
  await page.goto(`${base}/exceptions`, {waitUntil: "load"});
  await page.type(`${row} [data-test=note]`, "Buyer pays the remaining 1.1 by bank transfer");
  await clickAndWait(page, `${row} [data-test=resolve]`);
  assert.ok(await page.$("[data-test=notice]"), await page.content());
  await until(async () => {
    await page.goto(`${base}/exceptions`, {waitUntil: "load"});
    return (await page.$(row)) === null;
  }, "the charge to leave the open list", 30000);
  await page.goto(`${base}/exceptions?view=resolved`, {waitUntil: "load"});
  assert.match(await text(page, `${row} [data-test=resolution-note]`), /remaining 1\.1/);
  assert.deepEqual(grave(await axe(page)), [], "axe on the resolved tab");

  await page.goto(`${base}/charges/${id}`, {waitUntil: "load"});
  assert.match(await text(page, "[data-test=timeline]"), /charge\.exception_resolved/);
  assert.match(await text(page, "[data-test=resolution-note]"),
               new RegExp(`remaining 1\\.1 by bank transfer — ${owner.wallet.address}`));
  await shot(page, "exception-resolved");
  const read = (await api("GET", `/v1/charges/${id}`, key)).body.data;
  assert.equal(read.status, "underpaid");
  assert.equal(read.exceptionResolution.note, "Buyer pays the remaining 1.1 by bank transfer");
  assert.deepEqual(page.consoleErrors, []);
});
