// Dev-chain helpers shared by deploy.mjs and the contract tests: anvil's well-known default
// accounts, a launcher that starts anvil on a free loopback port (tests), and a JSON-RPC
// readiness probe.
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { HDNodeWallet, JsonRpcProvider, Mnemonic, Network } from 'ethers';

const here = dirname(fileURLToPath(import.meta.url));
export const repoRoot = join(here, '..', '..');
export const anvilBin = join(repoRoot, 'node_modules', '.bin', 'anvil');

// anvil's default mnemonic: public, dev only. Account #0 deploys, #1 receives fees, #2..#9 buy.
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk';

/** The 10 default anvil accounts as { index, address, privateKey }. */
export function devAccounts() {
  const mnemonic = Mnemonic.fromPhrase(DEV_MNEMONIC);
  return Array.from({ length: 10 }, (_, index) => {
    const w = HDNodeWallet.fromMnemonic(mnemonic, `m/44'/60'/0'/0/${index}`);
    return { index, address: w.address, privateKey: w.privateKey };
  });
}

/** A provider for a local dev chain. */
export function devProvider(url, chainId) {
  // A bare Network: ethers' built-in network for 137 (and others) carries plugins that fetch
  // fee data from public web services; a dev chain must only ever talk to its own node.
  // cacheTimeout -1: no response caching, so balances and nonces are always fresh.
  const network = new Network(`duepay-dev-${chainId}`, chainId);
  const p = new JsonRpcProvider(url, network, { staticNetwork: network, cacheTimeout: -1 });
  p.pollingInterval = 200;
  return p;
}

/** One JSON-RPC call with fetch (no provider caching). */
export async function rpc(url, method, params = []) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = await res.json();
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** Resolves with the node's chain id once it answers eth_chainId, or throws after timeoutMs. */
export async function waitForRpc(url, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let lastError;
  while (Date.now() < deadline) {
    try {
      return Number(BigInt(await rpc(url, 'eth_chainId')));
    } catch (e) {
      lastError = e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw new Error(`no JSON-RPC answer from ${url} within ${timeoutMs} ms: ${lastError?.message}`);
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Start a private anvil on a free 127.0.0.1 port, or on `port` if given (automine unless
 * blockTime is given).
 * Returns { url, port, chainId, stop() }. The process runs in its own process group so stop()
 * also ends the native binary behind the node_modules/.bin shim.
 */
export async function startAnvil({ chainId = 31337, blockTime, port: fixedPort } = {}) {
  for (let attempt = 1; ; attempt++) {
    const port = fixedPort ?? await freePort();
    const args = ['--host', '127.0.0.1', '--port', String(port), '--chain-id', String(chainId),
      '--silent'];
    if (blockTime) args.push('--block-time', String(blockTime));
    const child = spawn(anvilBin, args, { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => { stderr += d; });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const url = `http://127.0.0.1:${port}`;
    // Never leave an orphan anvil behind, even if the caller crashes before stop().
    const killOnExit = () => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } };
    process.once('exit', killOnExit);
    exited.then(() => process.off('exit', killOnExit));
    const stop = async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try { process.kill(-child.pid, 'SIGTERM'); } catch { /* already gone */ }
      const timer = setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 3000);
      await exited;
      clearTimeout(timer);
    };
    try {
      const ready = await Promise.race([
        waitForRpc(url, 20_000),
        exited.then((code) => { throw new Error(`anvil exited with ${code}: ${stderr.trim()}`); }),
      ]);
      if (ready !== chainId) throw new Error(`anvil on ${url} reports chain ${ready}, wanted ${chainId}`);
      return { url, port, chainId, stop };
    } catch (e) {
      await stop();
      if (attempt >= 3 || fixedPort) throw e;  // port taken between probe and bind: try another
    }
  }
}
