// The project overview in real Chromium (docs/dashboard.md "Overview", ADR 0245), against the dev
// stack from var/dev.env: a fresh merchant signs in with a test wallet, makes a project, verifies
// its payout wallet and creates a test key in the browser; three charges are created over REST,
// two are paid on anvil (`duepay admin simulate-payment`, wallet and transfer rails) and seen by
// a real chainwatch. The overview then shows 3 created, 2 paid, 66.7 % conversion, the counts by
// status and the paid volume (chart and table), in the last 30 and the last 90 days; axe-core
// finds no serious or critical violation on either; screenshots land in
// build/e2e-screenshots/dashboard-overview-*.png. Then the owner sends a real ERC-20 refund from
// the payout wallet, records it on the charge page (its Payments table links the payment to the
// chain's explorer) and sees chainwatch verify it there; and the settlement report's CSV, summed
// per token in DuckDB, equals the overview's paid volume and refunded amount for the same days.
// Every wait is bounded.
import {Contract, JsonRpcProvider, Wallet, parseUnits} from "ethers";
import assert from "node:assert/strict";
import {existsSync, readFileSync, writeFileSync} from "node:fs";
import {tmpdir} from "node:os";
import {join} from "node:path";
import {after, before, test} from "node:test";

import {
  CHAIN, CHROMIUM, axe, clickAndWait, grave, launchBrowser, openPage, shot, signIn, startDashboard,
  text, up, waitUp
} from "../support/dashboard_browser.mjs";
import {BIN, env, run, sleep, stackSkip, start, startChainwatch, stopChildren} from "../support/stack.mjs";

const skip = stackSkip([
  "DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE", "DUEPAY_SIGNER_KEY",
  "DUEPAY_SERVER_SECRET", "DUEPAY_DEV_BUYER_KEYS", `DUEPAY_RPC_URL_${CHAIN}`,
  `DUEPAY_TOKEN_USDT_${CHAIN}`
]) || (!existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : false);

let browser;
let origin;
const owner = {wallet: Wallet.createRandom(), signed: []};
let page;
let projectId;
let testKey;
const ids = [];  // the three charges, the first two paid

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

// The chain's explorer as the chain registry has it (the dev chains file), "" when none.
function explorerOf(chain) {
  const file = JSON.parse(readFileSync(env.DUEPAY_CHAINS_FILE, "utf8"));
  const c = file.chains.find((x) => x.chainId === chain);
  return (c?.explorerUrl || "").replace(/\/+$/, "");
}

const cells = (sel) => page.$$eval(sel, (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent.trim())));

test("the charge page lists the payment and records a refund that chainwatch verifies", {skip}, async () => {
  assert.equal(ids.length, 3, "the first test made the charges");
  const id = ids[0];  // 1.5 USDT, paid on the wallet rail
  const errorsBefore = page.consoleErrors.length;  // the refused period's 400 came before
  const paidTx = (await api("GET", `/v1/charges/${id}`)).body.data.timeline.find((t) => t.status === "paid").txHash;
  await page.goto(`${origin}/p/${projectId}/charges/${id}`, {waitUntil: "load"});
  const payments = await cells("table[data-test=payments] tbody tr");
  assert.equal(payments.length, 1, JSON.stringify(payments));
  assert.deepEqual(payments[0].slice(0, 4), [paidTx, "1.5 USDT", "confirmed", String(CHAIN)]);
  assert.match(payments[0][4], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  // The chain's explorer link (the dev Amoy has one in the chains file), or plain text without.
  const link = await page.$$eval("table[data-test=payments] a[data-test=tx-link]",
                                 (as) => as.map((a) => ({href: a.getAttribute("href"), rel: a.getAttribute("rel")})));
  const explorer = explorerOf(CHAIN);
  assert.deepEqual(link, explorer ? [{href: `${explorer}/tx/${paidTx}`, rel: "noopener noreferrer"}] : []);
  assert.ok(await page.$("[data-test=no-refunds]"));

  // The payout wallet (this browser's wallet) sends 0.4 USDT back to the payer, on anvil.
  const provider = new JsonRpcProvider(env[`DUEPAY_RPC_URL_${CHAIN}`]);
  await provider.send("anvil_setBalance", [owner.wallet.address, "0xDE0B6B3A7640000"]);
  const payer = owner.wallet.connect(provider);
  const usdt = new Contract(env[`DUEPAY_TOKEN_USDT_${CHAIN}`],
    ["function mint(address,uint256)", "function transfer(address,uint256) returns (bool)"], payer);
  await (await usdt.mint(owner.wallet.address, 400000n)).wait();
  const sent = await (await usdt.transfer(Wallet.createRandom().address, 400000n)).wait();

  await page.type("[data-test=tx-hash]", sent.hash);
  await clickAndWait(page, "[data-test=record-refund]");
  // Back on the charge page, its URL clean: the notice came in a one-shot flash cookie that the
  // page cleared, so a reload (or the URL shared) does not say it again.
  assert.equal(new URL(page.url()).pathname + new URL(page.url()).search, `/p/${projectId}/charges/${id}`);
  assert.equal(await text(page, "[data-test=notice]"), "Refund recorded; the chain watcher verifies it.");
  await page.reload({waitUntil: "load"});
  assert.ok(await page.$("[data-test=charge]"), await page.content());
  assert.equal(await page.$("[data-test=notice]"), null);
  // The request is in the event log; the page lists it once the projector has it (pending until
  // chainwatch's verdict, which may come first), then verified.
  await waitFor(async () => {
    await page.goto(`${origin}/p/${projectId}/charges/${id}`, {waitUntil: "load"});
    const rows = await cells("table[data-test=refunds] tbody tr");
    return rows.length === 1 && rows[0][0] === sent.hash && ["pending", "succeeded"].includes(rows[0][2]);
  }, "the refund on the charge page");
  await waitFor(async () => {
    await page.goto(`${origin}/p/${projectId}/charges/${id}`, {waitUntil: "load"});
    return (await page.$("table[data-test=refunds] tr[data-status=succeeded]")) !== null;
  }, "the refund verified");
  assert.deepEqual(await cells("table[data-test=refunds] tbody tr"), [[sent.hash, "0.4 USDT", "succeeded"]]);
  // Refunded 0.4 of 1.5: the form stays for the rest.
  assert.ok(await page.$("[data-test=record-refund]"));
  await shot(page, "charge");
  const v = await axe(page);
  assert.deepEqual(grave(v), [], JSON.stringify(grave(v), null, 1));
  assert.deepEqual(page.consoleErrors.slice(errorsBefore), []);
});

test("the settlement report's CSV sums to the overview's volume and refunds", {skip}, async () => {
  // Both count a payment on the day it was confirmed (the occurredAt of the event that confirmed
  // it) and a refund on the day chainwatch verified it, gross of duepay's fee (docs/reports.md).
  const day = (offset) => new Date(Date.now() + offset * 86400000).toISOString().slice(0, 10);
  let row;
  await waitFor(async () => {
    await page.goto(`${origin}/p/${projectId}?days=30`, {waitUntil: "load"});
    row = (await cells("table[data-test=volume] tbody tr")).find((r) => r[0].startsWith("USDT "));
    return row && row[3].endsWith("(1)");
  }, "the refund in the overview's stats");
  const [, paidText, payments, refundedText] = row;
  const res = await fetch(`${env.DUEPAY_BASE_URL}/v1/reports/settlements?from=${day(-29)}&to=${day(1)}&format=csv`,
                          {headers: {"x-api-key": testKey}});
  assert.equal(res.status, 200);
  const file = join(tmpdir(), `duepay-overview-${process.pid}.csv`);
  writeFileSync(file, await res.text());
  const sql = `select token_symbol, kind, cast(max(token_decimals) as int) as decimals, count(*) as n,
      cast(sum(cast(amount_units as hugeint)) as varchar) as units
    from read_csv('${file}', header = true, all_varchar = true) group by all order by all`;
  const script = "import duckdb, json, sys\ncon = duckdb.connect()\ncur = con.execute(sys.argv[1])\n" +
    "cols = [d[0] for d in cur.description]\nprint(json.dumps([dict(zip(cols, r)) for r in cur.fetchall()]))";
  const {stdout} = await run("var/venv/bin/python", ["-c", script, sql], {env, timeout: 60000});
  const sums = JSON.parse(stdout);
  const paid = sums.find((s) => s.token_symbol === "USDT" && s.kind === "payment");
  const refund = sums.find((s) => s.token_symbol === "USDT" && s.kind === "refund");
  assert.ok(paid && refund, stdout);
  // The overview's cells, in the token's units, against the rows (refund rows are negative).
  assert.equal(parseUnits(paidText, paid.decimals), BigInt(paid.units));
  assert.equal(Number(payments), paid.n);
  assert.equal(parseUnits(refundedText.replace(/ \(\d+\)$/, ""), refund.decimals), -BigInt(refund.units));
  assert.ok(refundedText.endsWith(` (${refund.n})`), refundedText);
  // And what this test made: 1.5 + 2.5 paid, 0.4 refunded.
  assert.equal(BigInt(paid.units), 4000000n);
  assert.equal(BigInt(refund.units), -400000n);
});
