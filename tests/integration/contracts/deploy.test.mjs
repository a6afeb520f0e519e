// infra/chain/deploy.mjs against two real anvils (chain 80002 "testnet" and chain 137
// "mainnet"): the registry files have the agreed shape and match what is on chain, a second run
// reuses a live deployment (rotating the signer), a restarted chain gets a fresh deployment, and
// a missing DUEPAY_SIGNER_KEY fails clearly.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Contract, Wallet, id } from 'ethers';
import { devAccounts, devProvider, repoRoot, startAnvil } from '../../../infra/chain/anvil.mjs';
import { deployAll, specFor } from '../../../infra/chain/deploy.mjs';
import { loadArtifacts } from '../../../infra/chain/compile.mjs';

const CHAIN_KEYS = ['chainId', 'name', 'network', 'rpcUrl', 'publicRpcUrl', 'explorerUrl', 'blockTimeSeconds',
  'confirmations', 'graceSeconds',
  'transferRail', 'feeBps', 'feeRecipient', 'router', 'depositFactory', 'forwarderInitCodeHash', 'defaultToken',
  'tokens', 'priceFeeds'];
const KEY_1 = id('deploy test signer 1');
const KEY_2 = id('deploy test signer 2');

let anvil;  // chain 80002
let mainnet;  // chain 137
let artifacts;
let varDir;

before(async () => {
  artifacts = await loadArtifacts();
  anvil = await startAnvil({ chainId: 80002 });
  mainnet = await startAnvil({ chainId: 137 });
  varDir = mkdtempSync(join(tmpdir(), 'duepay-deploy-test-'));
});
after(async () => {
  await anvil?.stop();
  await mainnet?.stop();
  if (varDir) rmSync(varDir, { recursive: true, force: true });
});

function readRegistry() {
  const json = JSON.parse(readFileSync(join(varDir, 'chains.json'), 'utf8'));
  const env = Object.fromEntries(readFileSync(join(varDir, 'chains.env'), 'utf8').split('\n')
    .filter((l) => l && !l.startsWith('#')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));
  return { json, env };
}

function connect() {
  return devProvider(anvil.url, 80002);
}

async function deploy(signerKey) {
  const lines = [];
  await deployAll({
    specs: [specFor(80002, anvil.url), specFor(137, mainnet.url)], varDir, signerKey, log: (l) => lines.push(l),
  });
  return lines.join('\n');
}

describe('deploy.mjs', () => {
  let first;

  it('deploys and writes chains.json and chains.env in the agreed shape', async () => {
    const log = await deploy(KEY_1);
    assert.match(log, /deployed router/);
    const { json, env } = readRegistry();
    assert.deepEqual(json.chains.map((x) => x.chainId), [80002, 137]);
    const c = json.chains[0];
    first = c;
    for (const x of json.chains) assert.deepEqual(Object.keys(x), CHAIN_KEYS);
    const m = json.chains[1];
    assert.deepEqual([m.network, m.rpcUrl, m.graceSeconds, m.confirmations, m.feeBps, m.transferRail],
      ['mainnet', mainnet.url, 3600, 2, 100, true]);
    assert.equal(env.DUEPAY_RPC_URL_137, mainnet.url);
    assert.equal(env.DUEPAY_ROUTER_137, m.router);
    assert.notEqual(await devProvider(mainnet.url, 137).getCode(m.router), '0x');
    assert.equal(c.chainId, 80002);
    assert.equal(c.network, 'testnet');
    assert.equal(c.rpcUrl, anvil.url);
    assert.equal(c.publicRpcUrl, anvil.url);  // what the checkout offers wallets (docs/checkout.md)
    assert.equal(c.explorerUrl, 'https://amoy.polygonscan.com');
    assert.equal(c.confirmations, 2);
    assert.equal(c.graceSeconds, 120);
    assert.equal(c.transferRail, true);
    assert.equal(c.feeBps, 100);
    assert.equal(c.defaultToken, 'USDT');
    assert.equal(c.feeRecipient, devAccounts()[1].address);
    assert.deepEqual(c.tokens.map((t) => [t.symbol, t.decimals]), [['USDT', 6], ['USDC', 6]]);
    assert.deepEqual(c.priceFeeds.map((f) => [f.pair, f.decimals]), [['THB/USD', 8], ['USDT/USD', 8], ['USDC/USD', 8]]);

    assert.equal(env.DUEPAY_CHAIN_IDS, '80002,137');
    assert.equal(env.DUEPAY_RPC_URL_80002, anvil.url);
    assert.equal(env.DUEPAY_ROUTER_80002, c.router);
    assert.equal(env.DUEPAY_DEPOSIT_FACTORY_80002, c.depositFactory);
    assert.equal(env.DUEPAY_FORWARDER_INIT_CODE_HASH_80002, c.forwarderInitCodeHash);
    assert.equal(env.DUEPAY_TOKEN_USDT_80002, c.tokens[0].address);
    assert.equal(env.DUEPAY_PRICE_FEED_THB_USD_80002, c.priceFeeds[0].address);
    assert.equal(env.DUEPAY_DEV_BUYER_KEYS.split(',').length, 8);
  });

  it('leaves contracts on chain that match the registry', async () => {
    const p = connect();
    const router = new Contract(first.router, artifacts.Router.abi, p);
    const factory = new Contract(first.depositFactory, artifacts.DepositFactory.abi, p);
    assert.equal(await router.isSigner(new Wallet(KEY_1).address), true);
    assert.equal(await router.feeRecipient(), first.feeRecipient);
    assert.equal(await router.owner(), devAccounts()[0].address);
    assert.equal(await factory.forwarderInitCodeHash(), first.forwarderInitCodeHash);
    assert.equal(first.forwarderInitCodeHash, artifacts.Forwarder.initCodeHash);
    assert.equal(await factory.feeRecipient(), first.feeRecipient);
    for (const t of first.tokens) {
      const token = new Contract(t.address, artifacts.TestToken.abi, p);
      assert.equal(await token.symbol(), t.symbol);
      assert.equal(await token.decimals(), 6n);
      for (const buyer of devAccounts().slice(2)) assert.equal(await token.balanceOf(buyer.address), 10n ** 12n);
      assert.equal(await token.balanceOf(devAccounts()[1].address), 0n);
    }
    const answers = {};
    for (const f of first.priceFeeds) {
      const feed = new Contract(f.address, artifacts.PriceFeed.abi, p);
      assert.equal(await feed.decimals(), 8n);
      const [roundId, answer, , updatedAt, answeredInRound] = await feed.latestRoundData();
      assert.equal(roundId, 1n);
      assert.equal(answeredInRound, 1n);
      assert.ok(updatedAt > 0n);
      answers[f.pair] = answer;
    }
    assert.deepEqual(answers, { 'THB/USD': 2_780_000n, 'USDT/USD': 100_010_000n, 'USDC/USD': 99_990_000n });
    p.destroy();
  });

  it('reuses a live deployment and rotates the signer', async () => {
    const log = await deploy(KEY_2);
    assert.equal(log.match(/reusing deployment/g).length, 2);
    const { json } = readRegistry();
    assert.equal(json.chains[0].router, first.router);
    const p = connect();
    const router = new Contract(first.router, artifacts.Router.abi, p);
    assert.equal(await router.isSigner(new Wallet(KEY_2).address), true);
    assert.equal(await router.isSigner(new Wallet(KEY_1).address), false);
    p.destroy();
  });

  it('redeploys after the chain restarts, at the same deterministic addresses', async () => {
    await anvil.stop();
    anvil = await startAnvil({ chainId: 80002, port: anvil.port });
    const p = connect();
    assert.equal(await p.getCode(first.router), '0x', 'a restarted anvil starts empty');
    const log = await deploy(KEY_2);
    assert.match(log, /chain 80002: deployed router/);
    assert.match(log, /chain 137: reusing deployment/);
    const { json } = readRegistry();
    assert.deepEqual(json.chains[0], first);
    assert.notEqual(await p.getCode(first.router), '0x');
    assert.equal(await new Contract(first.router, artifacts.Router.abi, p).isSigner(new Wallet(KEY_2).address), true);
    p.destroy();
  });

  it('the CLI fails clearly without DUEPAY_SIGNER_KEY and succeeds with it', () => {
    const script = join(repoRoot, 'infra', 'chain', 'deploy.mjs');
    const args = [script, '--var-dir', varDir, '--chain', `80002=${anvil.url}`, '--chain', `137=${mainnet.url}`];
    const env = { ...process.env };
    delete env.DUEPAY_SIGNER_KEY;
    const bad = spawnSync(process.execPath, args, { env, encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /DUEPAY_SIGNER_KEY is not set/);
    const good = spawnSync(process.execPath, args, { env: { ...env, DUEPAY_SIGNER_KEY: KEY_2 }, encoding: 'utf8' });
    assert.equal(good.status, 0, good.stderr);
    assert.match(good.stdout, /reusing deployment/);
  });
});
