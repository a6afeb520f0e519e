// The failover test's load (failover_test.sh; also ops/api_kill_test.sh): N clients creating
// charges in a loop against the API, each create with its own Idempotency-Key, retried with the
// same key after a broken connection, a timeout or a 503 (after its Retry-After), until it gets
// its 201.
//
//   node clients.mjs API_URL[,API_URL...] KEY OUT_DIR CLIENTS
//
// With several API URLs (api processes of one deployment) each attempt goes to one at random, so
// a retry may reach another process than the attempt before it.
// Runs until OUT_DIR/stop exists (then finishes the creates in flight and exits). Writes one JSON
// line per attempt to OUT_DIR/attempts.jsonl ({client, key, t, ms, outcome, status, code,
// retryAfter, invoiceId}) and one per 201 to OUT_DIR/created.jsonl ({key, invoiceId, amount}).
import { appendFileSync, existsSync } from "node:fs";

const [apiArg, testKey, out, clientsArg] = process.argv.slice(2);
const apis = apiArg.split(",");
const clients = Number(clientsArg || 8);
// Amounts unique to this run (a random prefix, then client and sequence): the test finds each
// key's charges in the read model by amount.
const run = 1 + Math.floor(Math.random() * 899_999);
const TIMEOUT_MS = 10_000; // the client's timeout: an attempt that takes longer is a hang
const attempts = `${out}/attempts.jsonl`;
const created = `${out}/created.jsonl`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const stopping = () => existsSync(`${out}/stop`);

async function attempt(client, key, body) {
  const t0 = Date.now();
  const rec = { client, key, t: t0 };
  try {
    const api = apis[Math.floor(Math.random() * apis.length)];
    const res = await fetch(`${api}/v1/invoices`, {
      method: "POST",
      headers: { "x-api-key": testKey, "content-type": "application/json", "idempotency-key": key },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    const text = await res.text();
    rec.status = res.status;
    rec.retryAfter = res.headers.get("retry-after");
    try {
      const j = JSON.parse(text);
      rec.code = j?.meta?.code ?? null;
      rec.envelope = typeof j?.success === "boolean" && "meta" in j;
      if (res.status === 201) rec.invoiceId = j?.data?.invoiceId;
    } catch {
      rec.envelope = false;
    }
    rec.outcome = res.status === 201 ? "created" : "http";
  } catch (e) {
    rec.outcome = e?.name === "TimeoutError" ? "timeout" : "connection";
    rec.error = String(e?.cause?.code || e?.message || e);
  }
  rec.ms = Date.now() - t0;
  appendFileSync(attempts, JSON.stringify(rec) + "\n");
  return rec;
}

async function client(id) {
  for (let i = 0; !stopping(); i++) {
    const key = `ha-${process.pid}-${id}-${i}`;
    const amount = `${run}${String(id).padStart(2, "0")}${String(i).padStart(6, "0")}`;
    const body = JSON.stringify({ chainId: 80002, amount });
    for (let tries = 0; ; tries++) {
      const r = await attempt(id, key, body);
      if (r.outcome === "created") {
        appendFileSync(created, JSON.stringify({ key, invoiceId: r.invoiceId, amount }) + "\n");
        break;
      }
      if (tries > 600) throw new Error(`client ${id}: ${key} never succeeded`);
      // Same key again: after Retry-After for a 503 (or a 409 idempotency_key_in_use: the key's
      // row waits for its lock timeout), 200 ms otherwise.
      const ra = Number(r.retryAfter);
      await sleep(r.status === 503 && ra > 0 ? Math.min(ra * 1000, 2000) : r.status === 409 ? 1000 : 200);
    }
  }
}

await Promise.all(Array.from({ length: clients }, (_, i) => client(i)));
