#!/usr/bin/env node
// Deploys duepay's contracts to the dev chains and writes the chain registry.
//
//   node infra/chain/deploy.mjs [--var-dir DIR] [--chain ID=RPC_URL]... [--force]
//
// Default: both dev anvils (137 on :18545 "mainnet", 80002 on :18546 "testnet") and
// --var-dir <repo>/var. Needs DUEPAY_SIGNER_KEY (0x + 64 hex) in the environment: that key's
// address becomes an authorised signer on each Router. Per chain it deploys TestToken USDT and
// USDC (6 decimals), Router, DepositFactory and the THB/USD, USDT/USD, USDC/USD PriceFeeds
// (8 decimals) from anvil account #0, authorises the signer, mints tokens to accounts #2..#9,
// then writes DIR/chains.json, DIR/chains.env and DIR/chains/deployments.json (what was deployed
// with which compile, used to reuse a deployment that is still live on a running chain).
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { Contract, ContractFactory, Wallet, getAddress, getCreateAddress } from 'ethers';
import { loadArtifacts, outDir } from './compile.mjs';
import { devAccounts, devProvider, repoRoot, waitForRpc } from './anvil.mjs';

/** Per-chain dev settings (documented in docs/contracts.md). */
export const DEV_CHAINS = {
  80002: { name: 'Polygon Amoy (duepay dev anvil)', network: 'testnet', rpcUrl: 'http://127.0.0.1:18546', graceSeconds: 120,
    explorerUrl: 'https://amoy.polygonscan.com' },
  137: { name: 'Polygon PoS (duepay dev anvil)', network: 'mainnet', rpcUrl: 'http://127.0.0.1:18545', graceSeconds: 3600,
    explorerUrl: 'https://polygonscan.com' },
};
const COMMON = { blockTimeSeconds: 1, confirmations: 2, transferRail: true, feeBps: 100, defaultToken: 'USDT' };
const TOKENS = [
  { symbol: 'USDT', name: 'Tether USD (duepay dev)', decimals: 6 },
  { symbol: 'USDC', name: 'USD Coin (duepay dev)', decimals: 6 },
];
// Answers with 8 decimals, as Chainlink's fiat and stablecoin USD feeds have.
const PRICE_FEEDS = [
  { pair: 'THB/USD', description: 'THB / USD', decimals: 8, answer: 2_780_000n },  // 1 THB = 0.0278 USD
  { pair: 'USDT/USD', description: 'USDT / USD', decimals: 8, answer: 100_010_000n },  // 1.0001
  { pair: 'USDC/USD', description: 'USDC / USD', decimals: 8, answer: 99_990_000n },  // 0.9999
];
const BUYER_MINT = 1_000_000n * 10n ** 6n;  // 1,000,000 tokens of 6 decimals per buyer

export function devRoles() {
  const accounts = devAccounts();
  return { deployer: accounts[0], feeRecipient: accounts[1], buyers: accounts.slice(2) };
}

/** Address of a 0x-prefixed (or bare) 32-byte hex private key; throws a clear error if invalid. */
export function signerAddressFromKey(key) {
  if (!key) throw new Error('DUEPAY_SIGNER_KEY is not set: export it (infra/dev writes it to var/secrets.env)');
  const hex = key.startsWith('0x') ? key : `0x${key}`;
  if (!/^0x[0-9a-fA-F]{64}$/.test(hex)) throw new Error('DUEPAY_SIGNER_KEY must be 0x followed by 64 hex digits');
  return new Wallet(hex).address;
}

async function waitAll(sent, what) {
  const receipts = await Promise.all(sent.map((tx) => tx.wait()));
  for (const r of receipts) if (r.status !== 1) throw new Error(`${what}: transaction ${r.hash} reverted`);
  return receipts;
}

/**
 * Deploy everything to one chain. spec: { chainId, rpcUrl, name, network, graceSeconds,
 * blockTimeSeconds? }. Returns { entry (chains.json shape), startBlock }.
 */
export async function deployChain(spec, { signerAddress, artifacts, log = () => {} }) {
  const p = devProvider(spec.rpcUrl, spec.chainId);
  const { deployer: deployerAccount, feeRecipient, buyers } = devRoles();
  const deployer = new Wallet(deployerAccount.privateKey, p);
  let nonce = await p.getTransactionCount(deployer.address, 'pending');
  // Every transaction is sent at once with explicit nonces and fees (calls also with a fixed gas
  // limit, as their target is not deployed yet when they are sent), then awaited together: on a
  // chain with 1 s blocks the whole set-up takes a block or two, not one block per transaction.
  const { maxFeePerGas, maxPriorityFeePerGas } = await p.getFeeData();
  const fees = { type: 2, chainId: spec.chainId, maxFeePerGas: maxFeePerGas * 2n, maxPriorityFeePerGas };
  const sent = [];
  const deploy = async (name, args) => {
    const a = artifacts[name];
    const tx = await new ContractFactory(a.abi, a.bytecode, deployer).getDeployTransaction(...args);
    const address = getCreateAddress({ from: deployer.address, nonce });
    sent.push(await deployer.sendTransaction({ ...tx, ...fees, nonce: nonce++ }));
    return new Contract(address, a.abi, deployer);
  };
  const call = async (contract, method, args) => {
    const tx = await contract[method].populateTransaction(...args);
    sent.push(await deployer.sendTransaction({ ...tx, ...fees, gasLimit: 200_000n, nonce: nonce++ }));
  };

  const tokens = [];
  for (const t of TOKENS) tokens.push({ ...t, contract: await deploy('TestToken', [t.name, t.symbol, t.decimals]) });
  const router = await deploy('Router', [feeRecipient.address]);
  const factory = await deploy('DepositFactory', [feeRecipient.address]);
  const feeds = [];
  for (const f of PRICE_FEEDS) feeds.push({ ...f, contract: await deploy('PriceFeed', [f.decimals, f.description, f.answer]) });
  // Authorise the service signer and fund the buyers.
  await call(router, 'setSigner', [signerAddress, true]);
  for (const t of tokens) for (const b of buyers) await call(t.contract, 'mint', [b.address, BUYER_MINT]);
  const receipts = await waitAll(sent, `deploy on chain ${spec.chainId}`);
  const startBlock = Math.min(...receipts.map((r) => r.blockNumber));

  const initCodeHash = await factory.forwarderInitCodeHash();
  if (initCodeHash !== artifacts.Forwarder.initCodeHash) {
    throw new Error(`chain ${spec.chainId}: factory reports init-code hash ${initCodeHash}, compile gave ${artifacts.Forwarder.initCodeHash}`);
  }
  log(`chain ${spec.chainId}: deployed router ${router.target}, factory ${factory.target} from block ${startBlock}`);

  const entry = {
    chainId: spec.chainId,
    name: spec.name,
    network: spec.network,
    rpcUrl: spec.rpcUrl,
    publicRpcUrl: spec.rpcUrl,  // dev: the buyer's browser reaches the same anvil
    explorerUrl: spec.explorerUrl,
    blockTimeSeconds: spec.blockTimeSeconds ?? COMMON.blockTimeSeconds,
    confirmations: COMMON.confirmations,
    graceSeconds: spec.graceSeconds,
    transferRail: COMMON.transferRail,
    feeBps: COMMON.feeBps,
    feeRecipient: getAddress(feeRecipient.address),
    router: getAddress(router.target),
    depositFactory: getAddress(factory.target),
    forwarderInitCodeHash: initCodeHash,
    defaultToken: COMMON.defaultToken,
    tokens: tokens.map((t) => ({ symbol: t.symbol, name: t.name, address: getAddress(t.contract.target), decimals: t.decimals })),
    priceFeeds: feeds.map((f) => ({ pair: f.pair, address: getAddress(f.contract.target), decimals: f.decimals })),
  };
  return { entry, startBlock };
}

/**
 * Is `previous` (a deployments.json record) still live on the chain at spec.rpcUrl, from the same
 * compile? A restarted anvil has a new genesis block and no code at the old addresses.
 */
async function stillDeployed(spec, previous, inputHash) {
  if (!previous || previous.inputHash !== inputHash || previous.entry.rpcUrl !== spec.rpcUrl) return false;
  const p = devProvider(spec.rpcUrl, spec.chainId);
  const genesis = await p.getBlock(0);
  if (genesis.hash !== previous.genesisHash) return false;
  const e = previous.entry;
  const addresses = [e.router, e.depositFactory, ...e.tokens.map((t) => t.address), ...e.priceFeeds.map((f) => f.address)];
  const codes = await Promise.all(addresses.map((a) => p.getCode(a)));
  return codes.every((c) => c !== '0x');
}

/** Make `signerAddress` the router's authorised signer; revoke the one this script set before. */
async function ensureSigner(spec, record, signerAddress, artifacts, log) {
  const p = devProvider(spec.rpcUrl, spec.chainId);
  const deployer = new Wallet(devRoles().deployer.privateKey, p);
  const router = new Contract(record.entry.router, artifacts.Router.abi, deployer);
  if (!(await router.isSigner(signerAddress))) {
    await (await router.setSigner(signerAddress, true)).wait();
    log(`chain ${spec.chainId}: authorised signer ${signerAddress}`);
  }
  if (record.signer && record.signer !== signerAddress && (await router.isSigner(record.signer))) {
    await (await router.setSigner(record.signer, false)).wait();
    log(`chain ${spec.chainId}: revoked previous signer ${record.signer}`);
  }
}

function writeAtomic(path, text) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

function readJson(path, fallback) {
  try { return JSON.parse(readFileSync(path, 'utf8')); } catch { return fallback; }
}

/** The shell lines of chains.env for the given chains.json entries. */
export function chainsEnv(records) {
  const lines = ['# Written by infra/chain/deploy.mjs; sourced into var/dev.env by the stack script.'];
  lines.push(`DUEPAY_CHAIN_IDS=${records.map((r) => r.entry.chainId).join(',')}`);
  for (const { entry: e, startBlock } of records) {
    const id = e.chainId;
    lines.push(`DUEPAY_RPC_URL_${id}=${e.rpcUrl}`);
    lines.push(`DUEPAY_ROUTER_${id}=${e.router}`);
    lines.push(`DUEPAY_DEPOSIT_FACTORY_${id}=${e.depositFactory}`);
    lines.push(`DUEPAY_FORWARDER_INIT_CODE_HASH_${id}=${e.forwarderInitCodeHash}`);
    lines.push(`DUEPAY_FEE_RECIPIENT_${id}=${e.feeRecipient}`);
    lines.push(`DUEPAY_START_BLOCK_${id}=${startBlock}`);
    for (const t of e.tokens) lines.push(`DUEPAY_TOKEN_${t.symbol}_${id}=${t.address}`);
    for (const f of e.priceFeeds) lines.push(`DUEPAY_PRICE_FEED_${f.pair.replace('/', '_')}_${id}=${f.address}`);
  }
  // anvil's public default keys (accounts #2..#9), funded with both tokens: dev and tests only.
  lines.push(`DUEPAY_DEV_BUYER_KEYS=${devRoles().buyers.map((b) => b.privateKey).join(',')}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Deploy (or reuse) on every chain in `specs` and write varDir/chains.json, chains.env and
 * chains/deployments.json. Returns the records in `specs` order.
 */
export async function deployAll({ specs, varDir, signerKey, force = false, log = () => {} }) {
  const signerAddress = signerAddressFromKey(signerKey);
  const artifacts = await loadArtifacts();
  const { inputHash } = readJson(join(outDir, 'manifest.json'), {});
  mkdirSync(join(varDir, 'chains'), { recursive: true });
  const statePath = join(varDir, 'chains', 'deployments.json');
  const state = readJson(statePath, {});

  const records = await Promise.all(specs.map(async (spec) => {
    const ready = await waitForRpc(spec.rpcUrl, 30_000);
    if (ready !== spec.chainId) throw new Error(`${spec.rpcUrl} is chain ${ready}, expected ${spec.chainId}`);
    const previous = state[spec.chainId];
    let record;
    if (!force && await stillDeployed(spec, previous, inputHash)) {
      // Contracts as recorded; the descriptive fields follow the current spec.
      const { name, network, rpcUrl, graceSeconds, explorerUrl } = spec;
      const blockTimeSeconds = spec.blockTimeSeconds ?? COMMON.blockTimeSeconds;
      record = { ...previous,
        entry: { ...previous.entry, name, network, rpcUrl, publicRpcUrl: rpcUrl, explorerUrl, graceSeconds,
          blockTimeSeconds } };
      log(`chain ${spec.chainId}: reusing deployment from block ${record.startBlock} (router ${record.entry.router})`);
    } else {
      const { entry, startBlock } = await deployChain(spec, { signerAddress, artifacts, log });
      const genesis = await devProvider(spec.rpcUrl, spec.chainId).getBlock(0);
      record = { inputHash, genesisHash: genesis.hash, signer: signerAddress, startBlock, entry };
    }
    await ensureSigner(spec, record, signerAddress, artifacts, log);
    return { ...record, signer: signerAddress };
  }));

  for (const r of records) state[r.entry.chainId] = r;
  writeAtomic(statePath, `${JSON.stringify(state, null, 2)}\n`);
  writeAtomic(join(varDir, 'chains.json'), `${JSON.stringify({ chains: records.map((r) => r.entry) }, null, 2)}\n`);
  writeAtomic(join(varDir, 'chains.env'), chainsEnv(records));
  return records;
}

export function specFor(chainId, rpcUrl) {
  const known = DEV_CHAINS[chainId];
  return {
    chainId,
    rpcUrl: rpcUrl ?? known?.rpcUrl,
    name: known?.name ?? `duepay dev chain ${chainId}`,
    network: known?.network ?? 'testnet',
    graceSeconds: known?.graceSeconds ?? 120,
    explorerUrl: known?.explorerUrl,
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values } = parseArgs({
    options: {
      'var-dir': { type: 'string', default: join(repoRoot, 'var') },
      chain: { type: 'string', multiple: true },
      force: { type: 'boolean', default: false },
    },
  });
  const specs = values.chain
    ? values.chain.map((c) => {
      const m = /^(\d+)=(\S+)$/.exec(c);
      if (!m) throw new Error(`--chain wants ID=RPC_URL, got ${c}`);
      return specFor(Number(m[1]), m[2]);
    })
    : [specFor(80002), specFor(137)];
  try {
    const started = Date.now();
    await deployAll({
      specs, varDir: values['var-dir'], signerKey: process.env.DUEPAY_SIGNER_KEY, force: values.force,
      log: (line) => console.log(line),
    });
    console.log(`wrote ${join(values['var-dir'], 'chains.json')} and chains.env (${Date.now() - started} ms)`);
  } catch (e) {
    console.error(`deploy.mjs: ${e.message}`);
    process.exit(1);
  }
}
