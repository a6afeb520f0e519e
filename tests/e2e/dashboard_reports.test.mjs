// The dashboard's Reports page in real Chromium (docs/reports.md): a fresh wallet, made a viewer
// of the demo project, opens /p/prj_demo/reports, chooses two dates, sees the period's totals, and
// downloads the CSV through the page's form (its Download CSV button's formaction, fetched in the
// page with the session's cookie); the file equals the REST report's for the same days. The rows
// are read-model rows seeded by SQL on a day of 2001 that no charge of the stack falls on (the
// page reads their per-day sums, which the seed recomputes as the projector would have added them,
// and REST the rows; what a row is, is tested in the domain and reports_js).
// axe-core on the page; screenshots in build/e2e-screenshots/dashboard-reports-*.png.
import {Wallet} from "ethers";
import assert from "node:assert/strict";
import {existsSync} from "node:fs";
import {after, before, test} from "node:test";

import {
  CHROMIUM, axe, clickAndWait, grave, launchBrowser, openPage, shot, signIn, startDashboard, text,
  up, waitUp
} from "../support/dashboard_browser.mjs";
import {env, run, stackSkip, start, stopChildren} from "../support/stack.mjs";

const skip = stackSkip([
  "DUEPAY_BASE_URL", "DATABASE_URL", "KAFKA_BOOTSTRAP", "DUEPAY_CHAINS_FILE",
  "DUEPAY_SIGNER_KEY", "DUEPAY_SERVER_SECRET", "DUEPAY_DEMO_TEST_KEY"
]) || (!existsSync(CHROMIUM) ? `no browser at ${CHROMIUM}` : false);

const DAY = "2001-02-03";
let browser;
let origin;
const viewer = {wallet: Wallet.createRandom(), signed: []};

async function psql(sql) {
  return (await run("psql", [env.DATABASE_URL, "-v", "ON_ERROR_STOP=1", "-Atc", sql], {env})).stdout;
}

// Three rows of prj_demo (test mode) on DAY: a payment priced in THB whose reference needs CSV
// quoting and is Thai, a refund of it, and a payment of another token.
const SEED = `
delete from settlement_lines where project_id = 'prj_demo' and confirmed_at >= '${DAY}' and confirmed_at < '${DAY}'::date + 1;
insert into settlement_lines (invoice_id, kind, tx_hash, log_index, project_id, mode, chain_id, token,
  token_symbol, token_decimals, block_number, confirmed_at, reference, metadata, amount, fee, net,
  fiat_currency, fiat_rate, fiat_amount, fiat_fee, fiat_net, refund_id) values
('0x${"e1".repeat(32)}', 'payment', '0x${"a1".repeat(32)}', 2, 'prj_demo', 'test', 80002,
 '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'USDT', 6, 41, '${DAY}T10:00:00.120Z',
 'ร้าน, "17"', '{"order_id":"A-17"}', 12587500, 125875, 12461625, 'THB', '10001/278', 452.83, 4.53, 448.30, null),
('0x${"e1".repeat(32)}', 'refund', '0x${"a2".repeat(32)}', 0, 'prj_demo', 'test', 80002,
 '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'USDT', 6, 57, '${DAY}T12:00:00.002Z',
 'ร้าน, "17"', '{"order_id":"A-17"}', -2000000, 0, -2000000, 'THB', '10001/278', -71.95, 0.00, -71.95, 'rf_e2e'),
('0x${"e2".repeat(32)}', 'payment', '0x${"a3".repeat(32)}', 1, 'prj_demo', 'test', 80002,
 '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512', 'USDC', 6, 60, '${DAY}T23:59:59.999Z',
 null, null, 5000000, 50000, 4950000, null, null, null, null, null, null);
select settlement_daily_refill('prj_demo');
insert into project_members (project_id, address, role) values ('prj_demo', '${viewer.wallet.address}', 'viewer')
 on conflict do nothing;`;

before(async () => {
  if (skip) return;
  if (!(await up(env.DUEPAY_BASE_URL + "/healthz"))) {
    const dev = start(["dev"], "dev");
    await waitUp(env.DUEPAY_BASE_URL + "/healthz", "the API", dev);
  }
  await psql(SEED);
  origin = (await startDashboard("dashboard-reports")).url;
  browser = await launchBrowser();
});

after(async () => {
  if (browser) await browser.close();
  await stopChildren();
});

test("a viewer sees the period's totals and downloads the REST report's CSV", {skip}, async () => {
  const context = await browser.createBrowserContext();
  // bypassCsp: axe-core is injected as a script of its own, which the page's CSP would refuse.
  const page = await openPage(context, viewer, {bypassCsp: true});
  await signIn(page, origin);
  await page.goto(`${origin}/p/prj_demo/reports`, {waitUntil: "load"});
  assert.equal(await text(page, "nav.project-nav a[aria-current=page]"), "Reports");
  // The form: two dates, then Show totals.
  for (const sel of ["[data-test=report-from]", "[data-test=report-to]"]) {
    await page.$eval(sel, (el, v) => { el.value = v; }, DAY);
  }
  await clickAndWait(page, "[data-test=show-totals]");
  assert.equal(new URL(page.url()).search, `?from=${DAY}&to=${DAY}`);
  const usdt = "table[data-test=token-totals] tr[data-token='0x5FbDB2315678afecb367f032d93F642f64180aa3']";
  assert.equal(await text(page, `${usdt} [data-test=payments]`), "1");
  assert.equal(await text(page, `${usdt} [data-test=paid]`), "12.587500");
  assert.equal(await text(page, `${usdt} [data-test=refunded]`), "2.000000");
  assert.equal(await text(page, `${usdt} [data-test=fees]`), "0.125875");
  assert.equal(await text(page, `${usdt} [data-test=net]`), "10.461625");
  assert.equal(await text(page, "table[data-test=fiat-totals] tr[data-currency=THB] [data-test=amount]"), "380.88");
  assert.deepEqual(grave(await axe(page)), []);
  await shot(page, "reports", {mobile: true});

  // Download CSV: the form's values to the button's formaction, in the page (its cookie).
  const csv = await page.evaluate(async () => {
    const form = document.querySelector("form.filters");
    const button = document.querySelector("[data-test=download-csv]");
    const query = new URLSearchParams(new FormData(form)).toString();
    const res = await fetch(`${button.formAction}?${query}`);
    return {status: res.status, type: res.headers.get("content-type"),
            disposition: res.headers.get("content-disposition"), body: await res.text()};
  });
  assert.equal(csv.status, 200);
  assert.equal(csv.type, "text/csv; charset=utf-8");
  assert.equal(csv.disposition, `attachment; filename="duepay-settlements-prj_demo-test-${DAY}-2001-02-04.csv"`);
  const rest = await fetch(`${env.DUEPAY_BASE_URL}/v1/reports/settlements?from=${DAY}&to=2001-02-04&format=csv`,
    {headers: {"x-api-key": env.DUEPAY_DEMO_TEST_KEY}});
  assert.equal(rest.status, 200);
  assert.equal(csv.body, await rest.text());
  assert.equal(csv.body.split("\r\n").length, 5);  // header, 3 rows, the empty end
  assert.ok(csv.body.includes(`,"ร้าน, ""17""","{""order_id"":""A-17""}",80002,`), csv.body);

  // Refused dates: the page says why.
  await page.goto(`${origin}/p/prj_demo/reports?from=${DAY}&to=2001-01-01`, {waitUntil: "load"});
  assert.ok(await page.$("[data-test=error]"));
  await context.close();
});
