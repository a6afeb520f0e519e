// DepositFactory + Forwarder (transfer rail) against a real anvil: the CREATE2 address agrees
// with ethers, anyone can settle, only the committed merchant and the fee recipient are paid,
// several tokens and late deposits are sweepable, nothing can be redirected.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { AbiCoder, getCreate2Address, keccak256 } from 'ethers';
import { eventsOf, expectRevert, randomAddress, randomId, startChain } from './support.mjs';

let ctx;
let factory;
let usdt;
let usdc;
let buyer;
let keeper;
let snapshot;

before(async () => {
  ctx = await startChain();
  buyer = ctx.wallets[2];
  keeper = ctx.wallets[7];  // an unrelated account that pays the gas of settle
  usdt = await ctx.deploy('TestToken', ['Tether USD (test)', 'USDT', 6]);
  usdc = await ctx.deploy('TestToken', ['USD Coin (test)', 'USDC', 6]);
  factory = await ctx.deploy('DepositFactory', [ctx.feeRecipient.address]);
  for (const t of [usdt, usdc]) await (await t.mint(buyer.address, 10n ** 15n)).wait();
});
after(async () => { await ctx?.stop(); });
beforeEach(async () => { snapshot = await ctx.snapshot(); });
afterEach(async () => { await ctx.revert(snapshot); });

function ourSalt(invoiceId, merchant, feeBps) {
  return keccak256(AbiCoder.defaultAbiCoder().encode(['bytes32', 'address', 'uint16'], [invoiceId, merchant, feeBps]));
}

async function deposit(token, to, amount) {
  await (await token.connect(buyer).transfer(to, amount)).wait();
}

function invoice(feeBps = 100) {
  return { invoiceId: randomId(), merchant: randomAddress(), feeBps };
}

async function addressOf(inv) {
  return factory.depositAddress(inv.invoiceId, inv.merchant, inv.feeBps);
}

function settleAs(who, inv, token) {
  return factory.connect(who).settle(inv.invoiceId, inv.merchant, inv.feeBps, token.target ?? token);
}

describe('deposit address', () => {
  it('equals ethers getCreate2Address over our salt and the Forwarder init-code hash', async () => {
    const initCodeHash = keccak256(ctx.artifacts.Forwarder.bytecode);
    assert.equal(await factory.forwarderInitCodeHash(), initCodeHash);
    for (const feeBps of [0, 1, 100, 10_000]) {
      const inv = invoice(feeBps);
      const expected = getCreate2Address(factory.target, ourSalt(inv.invoiceId, inv.merchant, feeBps), initCodeHash);
      assert.equal(await addressOf(inv), expected);
      assert.equal(await factory.saltOf(inv.invoiceId, inv.merchant, feeBps), ourSalt(inv.invoiceId, inv.merchant, feeBps));
    }
  });

  it('changes with each of invoiceId, merchant and feeBps', async () => {
    const inv = invoice();
    const base = await addressOf(inv);
    const variants = [
      { ...inv, invoiceId: randomId() },
      { ...inv, merchant: randomAddress() },
      { ...inv, feeBps: 99 },
    ];
    const others = await Promise.all(variants.map(addressOf));
    assert.equal(new Set([base, ...others]).size, 4);
  });

  it('is where the forwarder lands when settle deploys it', async () => {
    const inv = invoice();
    const where = await addressOf(inv);
    assert.equal(await ctx.provider.getCode(where), '0x');
    await deposit(usdt, where, 1_000n);
    const receipt = await (await settleAs(keeper, inv, usdt)).wait();
    const [deployed] = eventsOf(factory, receipt, 'ForwarderDeployed');
    assert.deepEqual([...deployed.args], [inv.invoiceId, where, inv.merchant, BigInt(inv.feeBps)]);
    assert.notEqual(await ctx.provider.getCode(where), '0x');
    assert.equal(await ctx.at('Forwarder', where).factory(), factory.target);
  });
});

describe('settle', () => {
  it('lets anyone settle; only the merchant and the fee recipient receive', async () => {
    const inv = invoice(100);
    const where = await addressOf(inv);
    await deposit(usdt, where, 1_000_000n);
    const keeperEthBefore = await ctx.provider.getBalance(keeper.address);

    const receipt = await (await settleAs(keeper, inv, usdt)).wait();

    assert.equal(await usdt.balanceOf(inv.merchant), 990_000n);
    assert.equal(await usdt.balanceOf(ctx.feeRecipient.address), 10_000n);
    assert.equal(await usdt.balanceOf(where), 0n);
    assert.equal(await usdt.balanceOf(keeper.address), 0n);
    assert.equal(await usdt.balanceOf(factory.target), 0n);
    assert.ok(await ctx.provider.getBalance(keeper.address) < keeperEthBefore, 'the keeper paid the gas');
    const [settled] = eventsOf(factory, receipt, 'Settled');
    assert.deepEqual([...settled.args], [inv.invoiceId, where, usdt.target, 1_000_000n, 10_000n]);
  });

  it('sweeps a second token, and a second deposit, at the same address', async () => {
    const inv = invoice(250);
    const where = await addressOf(inv);
    await deposit(usdt, where, 400_000n);
    await (await settleAs(keeper, inv, usdt)).wait();

    await deposit(usdc, where, 2_000_000n);
    const receipt = await (await settleAs(buyer, inv, usdc)).wait();
    assert.equal(eventsOf(factory, receipt, 'ForwarderDeployed').length, 0, 'deployed only once');
    assert.deepEqual([...eventsOf(factory, receipt, 'Settled')[0].args],
      [inv.invoiceId, where, usdc.target, 2_000_000n, 50_000n]);
    assert.equal(await usdc.balanceOf(inv.merchant), 1_950_000n);
    assert.equal(await usdc.balanceOf(ctx.feeRecipient.address), 50_000n);

    await deposit(usdt, where, 100_000n);
    await (await settleAs(keeper, inv, usdt)).wait();
    assert.equal(await usdt.balanceOf(inv.merchant), 390_000n + 97_500n);
    assert.equal(await usdt.balanceOf(ctx.feeRecipient.address), 10_000n + 2_500n);
    assert.equal(await usdt.balanceOf(where), 0n);
  });

  it('sweeps a deposit made long after the invoice deadline', async () => {
    const inv = invoice(100);
    const where = await addressOf(inv);
    await ctx.increaseTime(3 * 24 * 3600);  // the charge expired days ago
    await deposit(usdt, where, 500_000n);
    await (await settleAs(keeper, inv, usdt)).wait();
    assert.equal(await usdt.balanceOf(inv.merchant), 495_000n);
    assert.equal(await usdt.balanceOf(where), 0n);
  });

  it('rounds the fee down in the merchant\'s favour', async () => {
    for (const [amount, fee] of [[99n, 0n], [199n, 1n], [1n, 0n]]) {
      const inv = invoice(100);
      await deposit(usdt, await addressOf(inv), amount);
      await (await settleAs(keeper, inv, usdt)).wait();
      assert.equal(await usdt.balanceOf(inv.merchant), amount - fee, `amount ${amount}`);
    }
  });

  it('cannot redirect a deposit: other merchant or fee finds nothing, the deposit stays put', async () => {
    const inv = invoice(100);
    const where = await addressOf(inv);
    await deposit(usdt, where, 1_000_000n);
    const thief = ctx.wallets[8];
    for (const forged of [
      { ...inv, merchant: thief.address },
      { ...inv, feeBps: 10_000 },
      { ...inv, feeBps: 0 },
    ]) {
      const other = await addressOf(forged);
      await expectRevert(ctx, settleAs(thief, forged, usdt), 'NothingToSettle', [other, usdt.target]);
    }
    assert.equal(await usdt.balanceOf(where), 1_000_000n);
    assert.equal(await usdt.balanceOf(thief.address), 0n);
  });

  it('the forwarder obeys only its factory', async () => {
    const inv = invoice(100);
    const where = await addressOf(inv);
    await deposit(usdt, where, 1_000n);
    await (await settleAs(keeper, inv, usdt)).wait();  // deploys the forwarder
    await deposit(usdt, where, 5_000n);
    const thief = ctx.wallets[8];
    const forwarder = ctx.at('Forwarder', where, thief);
    await expectRevert(ctx, forwarder.sweep(usdt.target, thief.address, 0, thief.address), 'NotFactory', [thief.address]);
    assert.equal(await usdt.balanceOf(where), 5_000n);
  });

  it('reverts with NothingToSettle on an empty address, and leaves it undeployed', async () => {
    const inv = invoice();
    const where = await addressOf(inv);
    await expectRevert(ctx, settleAs(keeper, inv, usdt), 'NothingToSettle', [where, usdt.target]);
    assert.equal(await ctx.provider.getCode(where), '0x');
  });

  it('rejects feeBps above 10000, a zero merchant and a token without code', async () => {
    await expectRevert(ctx, settleAs(keeper, invoice(10_001), usdt), 'FeeBpsTooHigh', [10_001n]);
    const zeroMerchant = { ...invoice(), merchant: '0x0000000000000000000000000000000000000000' };
    await expectRevert(ctx, settleAs(keeper, zeroMerchant, usdt), 'ZeroAddress', []);
    const eoa = randomAddress();
    await expectRevert(ctx, settleAs(keeper, invoice(), eoa), 'TokenNotContract', [eoa]);
  });

  it('pays fees to the new recipient after setFeeRecipient; only the owner may set it', async () => {
    const newRecipient = randomAddress();
    await expectRevert(ctx, factory.connect(keeper).setFeeRecipient(keeper.address), 'NotOwner', [keeper.address]);
    await (await factory.setFeeRecipient(newRecipient)).wait();
    const inv = invoice(300);
    await deposit(usdt, await addressOf(inv), 1_000_000n);
    await (await settleAs(keeper, inv, usdt)).wait();
    assert.equal(await usdt.balanceOf(newRecipient), 30_000n);
    assert.equal(await usdt.balanceOf(inv.merchant), 970_000n);
  });
});
