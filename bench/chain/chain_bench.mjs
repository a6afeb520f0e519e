// Chain benchmarks against the real dev stack (var/dev.env sourced, an API answering at
// DUEPAY_BASE_URL, no other chainwatch leader for chain 80002). Starts its own
// `duepay chainwatch --chain 80002` (DUEPAY_BIN, default build/duepay).
//
//   node bench/chain/chain_bench.mjs latency [N=50]
//     N transfer-rail payments one after another; for each, the time from the moment the block at
//     confirmation depth exists (eth_blockNumber polled every 5 ms) to status "paid" on
//     GET /v1/charges/{id}/status (polled every 5 ms). Prints p50/p90/p99/max.
//   node bench/chain/chain_bench.mjs throughput [ADDRESSES=10000] [TRANSFERS=1000]
//     creates ADDRESSES open transfer charges, stops chainwatch, sends TRANSFERS ERC-20 transfers to
//     the first TRANSFERS deposit addresses in a few blocks (interval mining paused), mines past
//     the confirmation depth, restarts chainwatch and measures (a) its own report of the range step
//     (getLogs + match + decide + Kafka acks + checkpoint) and (b) restart-to-all-paid in the journal.
import { spawn, execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { ethers } from "ethers";

const run = promisify(execFile);
const env = process.env;
const CHAIN = 80002;
const BIN = env.DUEPAY_BIN || "build/duepay";
const RPC = env[`DUEPAY_RPC_URL_${CHAIN}`];
const chainInfo = JSON.parse(readFileSync(env.DUEPAY_CHAINS_FILE, "utf8")).chains.find((c) => c.chainId === CHAIN);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let key;

async function rpc(method, params = []) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function api(method, path, body) {
  const res = await fetch(env.DUEPAY_BASE_URL + path, { method,
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: body ? JSON.stringify(body) : undefined });
  return res.json();
}

function startChainwatch() {
  const child = spawn(BIN, ["chainwatch", "--chain", String(CHAIN)], { env, stdio: ["ignore", "ignore", "pipe"] });
  child.logs = "";
  child.stderr.on("data", (d) => { child.logs += d.toString(); });
  return child;
}

async function waitLog(child, re, ms = 120000) {
  const until = Date.now() + ms;
  while (!re.test(child.logs)) {
    if (Date.now() > until) throw new Error(`timeout waiting for ${re}: ${child.logs.slice(-2000)}`);
    if (child.exitCode !== null) throw new Error(`chainwatch exited: ${child.logs}`);
    await sleep(20);
  }
}

async function stop(child) {
  child.kill("SIGTERM");
  while (child.exitCode === null) await sleep(50);
}

function wallets(provider) {
  return env.DUEPAY_DEV_BUYER_KEYS.split(",").map((k) => new ethers.Wallet(k, provider));
}

const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount)"]);

async function signedTransfer(wallet, nonce, to, amount, gasPrice) {
  return wallet.signTransaction({ type: 0, chainId: CHAIN, nonce, gasPrice, gasLimit: 80000n,
    to: chainInfo.tokens.find((t) => t.symbol === chainInfo.defaultToken).address,
    data: erc20.encodeFunctionData("transfer", [to, amount]) });
}

function pct(sorted, p) { return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]; }

async function latency(n) {
  const cw = startChainwatch();
  await waitLog(cw, /caught up/);
  const provider = new ethers.JsonRpcProvider(RPC, CHAIN, { staticNetwork: true });
  const [buyer] = wallets(provider);
  const gasPrice = BigInt(await rpc("eth_gasPrice")) * 2n;
  const out = [];
  try {
    for (let i = 0; i < n; i++) {
      const c = (await api("POST", "/v1/invoices", { chainId: CHAIN, amount: String(1000 + i), paymentMode: "transfer" })).data;
      const nonce = Number(await rpc("eth_getTransactionCount", [buyer.address, "pending"]));
      const hash = await rpc("eth_sendRawTransaction", [await signedTransfer(buyer, nonce, c.depositAddress, 1000 + i, gasPrice)]);
      let receipt = null;
      while (!(receipt = await rpc("eth_getTransactionReceipt", [hash]))) await sleep(5);
      const depth = Number(receipt.blockNumber) + chainInfo.confirmations - 1;
      let t0 = null;
      const until = Date.now() + 30000;
      for (;;) {
        if (Date.now() > until) throw new Error(`payment ${i} not paid in 30 s`);
        if (t0 === null && Number(await rpc("eth_blockNumber")) >= depth) t0 = performance.now();
        if (t0 !== null) {
          const s = await api("GET", `/v1/charges/${c.invoiceId}/status`);
          if (s.data?.status === "paid") { out.push(performance.now() - t0); break; }
        }
        await sleep(5);
      }
    }
  } finally {
    await stop(cw);
  }
  out.sort((a, b) => a - b);
  const f = (x) => x.toFixed(1);
  console.log(JSON.stringify({ payments: n, confirmations: chainInfo.confirmations, blockTimeSeconds: chainInfo.blockTimeSeconds,
    p50_ms: f(pct(out, 50)), p90_ms: f(pct(out, 90)), p99_ms: f(pct(out, 99)), max_ms: f(out.at(-1)), min_ms: f(out[0]) }));
}

async function throughput(addresses, transfers) {
  let cw = startChainwatch();
  await waitLog(cw, /caught up/);
  // Open charges: created through the API, concurrently.
  const t0 = performance.now();
  const charges = [];
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < addresses) {
      const i = next++;
      const r = await api("POST", "/v1/invoices", { chainId: CHAIN, amount: "1000", paymentMode: "transfer", expiresInSeconds: 3600 });
      if (!r.data) throw new Error(JSON.stringify(r));
      charges[i] = r.data;
    }
  }));
  const createSeconds = (performance.now() - t0) / 1000;
  await sleep(2000);  // let chainwatch learn them
  await stop(cw);
  // The transfers: signed raw transactions from the dev buyers, mined while nobody watches.
  const provider = new ethers.JsonRpcProvider(RPC, CHAIN, { staticNetwork: true });
  const buyers = wallets(provider);
  const gasPrice = BigInt(await rpc("eth_gasPrice")) * 2n;
  const nonces = await Promise.all(buyers.map(async (w) => Number(await rpc("eth_getTransactionCount", [w.address, "pending"]))));
  await rpc("evm_setIntervalMining", [0]);
  let firstBlock, lastBlock;
  try {
    const hashes = [];
    for (let i = 0; i < transfers; i++) {
      const b = i % buyers.length;
      hashes.push(await rpc("eth_sendRawTransaction", [await signedTransfer(buyers[b], nonces[b]++, charges[i].depositAddress, 1000, gasPrice)]));
    }
    for (let pending = transfers; pending > 0;) {
      await rpc("evm_mine");
      const status = await rpc("txpool_status");
      pending = Number(status.pending) + Number(status.queued);
    }
    for (let i = 0; i < chainInfo.confirmations; i++) await rpc("evm_mine");
    const first = await rpc("eth_getTransactionReceipt", [hashes[0]]);
    const last = await rpc("eth_getTransactionReceipt", [hashes.at(-1)]);
    firstBlock = Number(first.blockNumber);
    lastBlock = Number(last.blockNumber);
  } finally {
    await rpc("evm_setIntervalMining", [chainInfo.blockTimeSeconds]);
  }
  const paidBefore = Number((await run("psql", [env.DATABASE_URL, "-Atc", "select count(*) from charge_events where type = 'charge.paid'"])).stdout);
  cw = startChainwatch();
  await waitLog(cw, /caught up/);
  const tCaught = performance.now();
  const until = Date.now() + 300000;
  for (;;) {
    const paid = Number((await run("psql", [env.DATABASE_URL, "-Atc", "select count(*) from charge_events where type = 'charge.paid'"])).stdout);
    if (paid - paidBefore >= transfers) break;
    if (Date.now() > until) throw new Error(`only ${paid - paidBefore} of ${transfers} paid`);
    await sleep(50);
  }
  const allPaidMs = performance.now() - tCaught;
  await stop(cw);
  const steps = cw.logs.split("\n").filter((l) => /blocks \d+\.\.\d+/.test(l));
  const caught = cw.logs.split("\n").find((l) => /caught up/.test(l));
  console.log(JSON.stringify({ addresses, transfers, createSeconds: createSeconds.toFixed(1), transferBlocks: `${firstBlock}..${lastBlock}`,
    catchUp: caught, rangeSteps: steps, restartToAllPaidMs: allPaidMs.toFixed(0) }, null, 1));
}

key = env.DUEPAY_DEMO_TEST_KEY || JSON.parse((await run(BIN, ["admin", "demo"], { env })).stdout).key;
const [mode, a, b] = process.argv.slice(2);
if (mode === "latency") await latency(Number(a || 50));
else if (mode === "throughput") await throughput(Number(a || 10000), Number(b || 1000));
else { console.error("usage: chain_bench.mjs latency [N] | throughput [ADDRESSES] [TRANSFERS]"); process.exit(2); }
