// Shared set-up for the contract tests: a private anvil (started here, stopped in `after`), the
// compiled artifacts (compiled first if stale), wallets for anvil's default accounts, deploy
// helpers, EIP-712 signing of payment intents and custom-error assertions.
import assert from 'node:assert/strict';
import { Contract, ContractFactory, Interface, Wallet, hexlify, randomBytes } from 'ethers';
import { loadArtifacts } from '../../../infra/chain/compile.mjs';
import { devAccounts, devProvider, rpc, startAnvil } from '../../../infra/chain/anvil.mjs';

export const CHAIN_ID = 80002;
export const PAYMENT_INTENT_TYPES = {
  PaymentIntent: [
    { name: 'invoiceId', type: 'bytes32' },
    { name: 'merchant', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'feeBps', type: 'uint16' },
    { name: 'deadline', type: 'uint256' },
  ],
};

/** Start anvil and connect wallets. Returns a context; call ctx.stop() when done. */
export async function startChain({ chainId = CHAIN_ID } = {}) {
  const artifacts = await loadArtifacts();
  const anvil = await startAnvil({ chainId });
  // No response cache (a balance or nonce must be fresh after evm_revert), no fee-data plugins.
  const provider = devProvider(anvil.url, chainId);
  provider.pollingInterval = 50;
  const wallets = devAccounts().map((a) => new Wallet(a.privateKey, provider));
  const allErrors = new Interface(
    Object.values(artifacts).flatMap((a) => a.abi.filter((f) => f.type === 'error'))
      .filter((f, i, all) => all.findIndex((g) => g.name === f.name) === i),
  );
  const ctx = {
    anvil, provider, artifacts, wallets, chainId, allErrors,
    deployer: wallets[0],
    feeRecipient: wallets[1],
    async deploy(name, args = [], from = wallets[0]) {
      const a = artifacts[name];
      const contract = await new ContractFactory(a.abi, a.bytecode, from).deploy(...args);
      await contract.waitForDeployment();
      return contract;
    },
    at(name, address, runner = wallets[0]) {
      return new Contract(address, artifacts[name].abi, runner);
    },
    async snapshot() { return rpc(anvil.url, 'evm_snapshot'); },
    async revert(id) { assert.equal(await rpc(anvil.url, 'evm_revert', [id]), true); },
    async latestTimestamp() { return BigInt((await provider.getBlock('latest')).timestamp); },
    async increaseTime(seconds) {
      await rpc(anvil.url, 'evm_increaseTime', [Number(seconds)]);
      await rpc(anvil.url, 'evm_mine');
    },
    async setNextBlockTimestamp(ts) { await rpc(anvil.url, 'evm_setNextBlockTimestamp', [Number(ts)]); },
    async stop() { provider.destroy(); await anvil.stop(); },
  };
  return ctx;
}

export function randomId() {
  return hexlify(randomBytes(32));
}

export function randomAddress() {
  return Wallet.createRandom().address;
}

export function eip712Domain(chainId, verifyingContract) {
  return { name: 'duepay', version: '1', chainId, verifyingContract };
}

/** The service's EIP-712 signature (65 bytes r||s||v, v 27/28) over `intent`. */
export async function signIntent(signer, chainId, verifyingContract, intent) {
  return signer.signTypedData(eip712Domain(chainId, verifyingContract), PAYMENT_INTENT_TYPES, intent);
}

/**
 * Await `promise` (a contract call or transaction) and assert that it reverts with the custom
 * error `name`; if `args` is given, also the decoded arguments. Returns the decoded arguments.
 */
export async function expectRevert(ctx, promise, name, args) {
  let error;
  try {
    const result = await promise;
    if (result && typeof result.wait === 'function') await result.wait();
  } catch (e) {
    error = e;
  }
  assert.ok(error, `expected revert ${name}, but the call succeeded`);
  const data = error.data ?? error.info?.error?.data ?? error.error?.data;
  assert.ok(typeof data === 'string' && data.length >= 10,
    `expected revert ${name}, got an error without revert data: ${error.shortMessage ?? error.message}`);
  const parsed = ctx.allErrors.parseError(data);
  assert.ok(parsed, `expected revert ${name}, got unknown revert data ${data}`);
  assert.equal(parsed.name, name, `expected revert ${name}, got ${parsed.name}(${parsed.args.join(', ')})`);
  if (args !== undefined) assert.deepEqual([...parsed.args], args);
  return [...parsed.args];
}

/** Decoded events named `name` that `contract` emitted in `receipt`. */
export function eventsOf(contract, receipt, name) {
  const address = contract.target.toLowerCase();
  return receipt.logs
    .filter((l) => l.address.toLowerCase() === address)
    .map((l) => contract.interface.parseLog(l))
    .filter((e) => e && e.name === name);
}
