// The block part of bench/chain/at_rest.sh (var/dev.env sourced, a chainwatch of chain 80002
// running on the topic open_charges_producer filled): TRANSFERS ERC-20 transfers of the chain's
// default token, from the dev buyers, to the deposit addresses of the first TRANSFERS seeded
// charges (0xd0 <tag> 00*7 <i>), all mined in ONE block (interval mining paused, block gas limit
// raised, one evm_mine), then interval mining resumed. Before it, one payment to charge WARM in a
// block of its own, awaited until paid: chainwatch's first appends to a fresh topic wait for the
// producer's metadata and id, which is not what the block is about. Prints one JSON line: the
// block, its transaction count, the wall-clock ms at which evm_mine returned, the ms from then
// until the read model (DATABASE_URL: charge_events) holds TRANSFERS more `charge.paid`, and how
// long the node itself takes to answer the Transfer eth_getLogs of that block afterwards (the
// best of three; chainwatch asks it the same once per round).
//
//   node bench/chain/at_rest_block.mjs TAG TRANSFERS AMOUNT FIRST WARM
// FIRST: the index of the first seeded charge paid; WARM: the index of the warm-up's charge
// (outside FIRST..FIRST+TRANSFERS-1, and another one for each run).
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { readFileSync } from "node:fs";
import { ethers } from "ethers";

const run = promisify(execFile);
const env = process.env;
const CHAIN = 80002;
const RPC = env[`DUEPAY_RPC_URL_${CHAIN}`];
const chainInfo = JSON.parse(readFileSync(env.DUEPAY_CHAINS_FILE, "utf8")).chains.find((c) => c.chainId === CHAIN);
const token = chainInfo.tokens.find((t) => t.symbol === chainInfo.defaultToken).address;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const erc20 = new ethers.Interface(["function transfer(address to, uint256 amount)"]);

async function rpc(method, params = []) {
  const res = await fetch(RPC, { method: "POST", headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

async function count(type) {
  const { stdout } = await run("psql", [env.DATABASE_URL, "-XAtc",
    `select count(*) from charge_events where type = '${type}'`]);
  return Number(stdout.trim());
}

const [tag, transfersText, amountText, firstText, warmText] = process.argv.slice(2);
if (!/^[0-9a-f]{8}$/.test(tag || "")) {
  console.error("usage: at_rest_block.mjs TAG(8 hex) TRANSFERS AMOUNT FIRST WARM");
  process.exit(2);
}
const transfers = Number(transfersText || 1000);
const amount = BigInt(amountText || 1000);
const first = Number(firstText || 0);
const warm = Number(warmText);
const deposit = (i) => ethers.getAddress(`0xd0${tag}${"0".repeat(14)}${i.toString(16).padStart(16, "0")}`);

const provider = new ethers.JsonRpcProvider(RPC, CHAIN, { staticNetwork: true });
const buyers = env.DUEPAY_DEV_BUYER_KEYS.split(",").map((k) => new ethers.Wallet(k, provider));
const gasPrice = BigInt(await rpc("eth_gasPrice")) * 2n;
const nonces = await Promise.all(buyers.map(async (w) => Number(await rpc("eth_getTransactionCount", [w.address, "pending"]))));

// The warm-up payment (interval mining takes it in).
const warmBefore = await count("charge.paid");
await rpc("eth_sendRawTransaction", [await buyers[0].signTransaction({ type: 0, chainId: CHAIN, nonce: nonces[0]++, gasPrice,
  gasLimit: 80000n, to: token, data: erc20.encodeFunctionData("transfer", [deposit(warm), amount]) })]);
for (const end = Date.now() + 60000; (await count("charge.paid")) <= warmBefore;) {
  if (Date.now() > end) throw new Error("the warm-up payment was not paid within 60 s");
  await sleep(100);
}
await sleep(2000);
const paidBefore = await count("charge.paid");

// Signed first (ethers signing is slow), sent while mining is paused, mined in one block.
const raw = [];
for (let i = 0; i < transfers; i++) {
  const b = i % buyers.length;
  raw.push(await buyers[b].signTransaction({ type: 0, chainId: CHAIN, nonce: nonces[b]++, gasPrice, gasLimit: 80000n,
    to: token, data: erc20.encodeFunctionData("transfer", [deposit(first + i), amount]) }));
}
let block;
let minedAt;
await rpc("evm_setIntervalMining", [0]);
try {
  await rpc("evm_setBlockGasLimit", ["0x" + (BigInt(transfers) * 80000n + 1000000n).toString(16)]);
  for (const r of raw) await rpc("eth_sendRawTransaction", [r]);
  await rpc("evm_mine");
  minedAt = Date.now();
  block = await rpc("eth_getBlockByNumber", ["latest", false]);
} finally {
  await rpc("evm_setIntervalMining", [chainInfo.blockTimeSeconds]);
}
const txs = block.transactions.length;
const until = Date.now() + 300000;
let paidMs = null;
while (paidMs === null && Date.now() < until) {
  if ((await count("charge.paid")) - paidBefore >= transfers) paidMs = Date.now() - minedAt;
  await sleep(50);
}
let nodeGetLogsMs = Infinity;
let logs = 0;
for (let i = 0; i < 3; i++) {
  const t = performance.now();
  logs = (await rpc("eth_getLogs", [{ fromBlock: block.number, toBlock: block.number, address: [token],
    topics: [ethers.id("Transfer(address,address,uint256)")] }])).length;
  nodeGetLogsMs = Math.min(nodeGetLogsMs, performance.now() - t);
}
console.log(JSON.stringify({ block: Number(block.number), txs, minedAtMs: minedAt, confirmations: chainInfo.confirmations,
  blockTimeSeconds: chainInfo.blockTimeSeconds, minedToAllPaidInReadModelMs: paidMs,
  nodeGetLogsMs: Number(nodeGetLogsMs.toFixed(1)), nodeGetLogsLogs: logs }));
