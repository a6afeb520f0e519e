// The settlement report against the real stack (label integration, docs/reports.md): charges paid
// on anvil on the wallet and transfer rails (one priced in THB, one underpaid with --amount), one
// partly refunded by a real ERC-20 transfer from the payout wallet; the CSV downloaded over REST
// (streamed, RFC 4180) is loaded in DuckDB, and its per-token sums equal the charges read model's
// (amount_confirmed + amount_late for payments, amount_refunded for refunds) and the JSON
// report's totals; bad parameters get the envelope.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { skip, ctx, env, CHAIN, api, createCharge, pay, readCharge, rpc, run, psql, startRoles, stop,
  waitUntil } from "./support.mjs";

const PAYOUT = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";  // the demo payout wallet
const BUYER = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";   // anvil #2, the first dev buyer
const USDT = env[`DUEPAY_TOKEN_USDT_${CHAIN}`];
const PYTHON = "var/venv/bin/python";

const word = (hex) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const salt = () => word(randomBytes(32).toString("hex"));
const call = (selector, to, amount) => `${selector}${word(to)}${word(BigInt(amount).toString(16))}${salt()}`;
async function send(from, token, data) {
  const hash = await rpc("eth_sendTransaction", [{ from, to: token, data, gas: "0x30000" }]);
  await waitUntil(async () => (await rpc("eth_getTransactionReceipt", [hash]))?.blockNumber, `receipt of ${hash}`, 30000);
  return hash;
}

async function report(query) {
  const res = await fetch(`${ctx.base}/v1/reports/settlements?${query}`,
    { headers: { authorization: `Bearer ${ctx.testKey}` } });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

// DuckDB over the CSV: per token and kind, rows and the sum of amount_units, fee_units, net_units,
// restricted to `invoices` when given.
async function duck(csvPath, invoices = null) {
  const where = invoices ? `where invoice_id in (${invoices.map((i) => `'${i}'`).join(",")})` : "";
  const sql = `select lower(token) as token, kind, count(*) as n,
      cast(sum(cast(amount_units as hugeint)) as varchar) as amount,
      cast(sum(cast(fee_units as hugeint)) as varchar) as fee,
      cast(sum(cast(net_units as hugeint)) as varchar) as net
    from read_csv('${csvPath}', header = true, all_varchar = true) ${where}
    group by all order by all`;
  const script = `import duckdb, json, sys\ncon = duckdb.connect()\ncur = con.execute(sys.argv[1])\n` +
    `cols = [d[0] for d in cur.description]\nprint(json.dumps([dict(zip(cols, r)) for r in cur.fetchall()]))`;
  const { stdout } = await run(PYTHON, ["-c", script, sql], { env, timeout: 60000 });
  return JSON.parse(stdout);
}

before(async () => {
  if (skip) return;
  await startRoles();
  await send(BUYER, USDT, call("0x40c10f19", PAYOUT, 10_000_000));  // the payout wallet refunds
});
after(async () => { await stop(); });

test("the CSV in DuckDB adds up to the charges and to the JSON totals", { skip }, async () => {
  const from = new Date(Date.now() - 60_000).toISOString();
  const wallet = await createCharge({ amount: "1250000", paymentMode: "wallet", token: "USDT",
    reference: 'order, "17"', metadata: { order_id: "A-17" } });
  const fiat = await createCharge({ fiat: { currency: "THB", amount: "350.00" }, paymentMode: "transfer",
    token: "USDT" });
  const under = await createCharge({ amount: "2000000", paymentMode: "transfer", token: "USDT" });
  await pay(wallet.invoiceId, "wallet");
  await pay(fiat.invoiceId, "transfer");
  await pay(under.invoiceId, "transfer", "--amount", "500000");
  await waitUntil(async () => (await readCharge(wallet.invoiceId)).status === "paid", "wallet paid", 90000);
  await waitUntil(async () => (await readCharge(fiat.invoiceId)).status === "paid", "transfer paid", 90000);
  await waitUntil(async () => (await readCharge(under.invoiceId)).status === "underpaid", "underpaid", 90000);
  const tx = await send(PAYOUT, USDT, call("0xa9059cbb", BUYER, 400_000));
  const asked = await api("POST", `/v1/charges/${wallet.invoiceId}/refunds`, { txHash: tx });
  assert.equal(asked.status, 202, JSON.stringify(asked.body));
  await waitUntil(async () => (await readCharge(wallet.invoiceId)).amountRefunded === "400000", "refund", 90000);
  const ids = [wallet.invoiceId, fiat.invoiceId, under.invoiceId];
  await waitUntil(async () => Number((await psql(`select count(*) from settlement_lines where invoice_id in (${
    ids.map((i) => `'${i}'`).join(",")})`))[0]) === 4, "4 settlement rows", 30000);
  const to = new Date(Date.now() + 60_000).toISOString();

  const csv = await report(`from=${from}&to=${to}&format=csv`);
  assert.equal(csv.status, 200, csv.text);
  assert.equal(csv.headers.get("content-type"), "text/csv; charset=utf-8");
  assert.match(csv.headers.get("content-disposition"), /^attachment; filename="duepay-settlements-prj_demo-test-.*\.csv"$/);
  assert.equal(csv.headers.get("transfer-encoding"), "chunked");
  assert.ok(csv.text.startsWith("kind,invoice_id,reference,metadata,chain_id,token,"), csv.text.slice(0, 200));
  assert.ok(csv.text.endsWith("\r\n"));
  assert.ok(csv.text.includes(`payment,${wallet.invoiceId},"order, ""17""","{""order_id"":""A-17""}",${CHAIN},`), csv.text);
  assert.match(csv.text, new RegExp(`\\r\\nrefund,${wallet.invoiceId},.*,-0\\.400000,-400000,0\\.000000,0,-0\\.400000,-400000,,,,,,rf_`));
  assert.match(csv.text, new RegExp(`\\r\\npayment,${fiat.invoiceId},.*,THB,[0-9]+/[0-9]+,35[0-9]\\.[0-9]{2},`));
  const file = join(tmpdir(), `duepay-report-${process.pid}.csv`);
  writeFileSync(file, csv.text);

  // Ours, per token: payments = confirmed + late, refunds = -refunded, as the charges say.
  const mine = await duck(file, ids);
  const charges = await psql(`select lower(token), sum(amount_confirmed + amount_late), sum(amount_refunded),
    sum(floor((amount_confirmed + amount_late) * fee_bps / 10000)) from charges where invoice_id in (${
    ids.map((i) => `'${i}'`).join(",")}) group by 1`);
  assert.equal(charges.length, 1);
  const [token, paid, refunded, fees] = charges[0].split("|");
  assert.deepEqual(mine.map((r) => [r.token, r.kind, r.n, r.amount]),
    [[token, "payment", 3, paid], [token, "refund", 1, `-${refunded}`]]);
  assert.equal(mine[0].fee, fees);  // one payment per charge here: the per-row floor is the charge's
  assert.equal(paid, String(1250000n + 500000n + BigInt((await readCharge(fiat.invoiceId)).amountConfirmed)));

  // The JSON report's totals are the CSV's sums, token by token.
  const json = await report(`from=${from}&to=${to}`);
  assert.equal(json.status, 200);
  const body = JSON.parse(json.text);
  const all = await duck(file);
  const rows = all.reduce((n, r) => n + r.n, 0);
  assert.equal(body.data.length, rows);
  assert.equal(body.totals.rows, rows);
  for (const t of body.totals.tokens) {
    const of = (kind) => all.find((r) => r.token === t.token.toLowerCase() && r.kind === kind);
    assert.equal(t.paidUnits, of("payment")?.amount ?? "0");
    assert.equal(t.refundedUnits, of("refund") ? of("refund").amount.replace(/^-/, "") : "0");
    assert.equal(t.feeUnits, String(BigInt(of("payment")?.fee ?? 0) + BigInt(of("refund")?.fee ?? 0)));
    assert.equal(t.netUnits, String(BigInt(of("payment")?.net ?? 0) + BigInt(of("refund")?.net ?? 0)));
  }
  assert.ok(body.totals.fiat.some((f) => f.currency === "THB"), JSON.stringify(body.totals));
});

test("bad parameters get the envelope", { skip }, async () => {
  for (const [query, code] of [["to=2026-12-01", "invalid_from"], ["from=2026-11-01", "invalid_to"],
    ["from=2026-12-01&to=2026-11-01", "invalid_period"], ["from=2026-11-01&to=2026-12-01&format=xls", "invalid_format"],
    ["from=2026-11-01&to=2026-12-01&page=2", "unknown_field"]]) {
    const r = await report(query);
    assert.equal(r.status, 400, query);
    assert.equal(JSON.parse(r.text).meta.code, code, query);
  }
});
