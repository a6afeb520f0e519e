// Router (wallet rail) against a real anvil: exact payouts and fee rounding, every signature
// rejection, deadline, single use, short allowance, fee-on-transfer tokens, signer rotation.
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { Signature, TypedDataEncoder, Wallet, concat, id, toBeHex, zeroPadValue } from 'ethers';
import {
  eip712Domain, eventsOf, expectRevert, PAYMENT_INTENT_TYPES, randomAddress, randomId, signIntent, startChain,
} from './support.mjs';

const SECP256K1_N = 0xFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFEBAAEDCE6AF48A03BBFD25E8CD0364141n;

let ctx;
let router;
let usdt;
let serviceSigner;
let buyer;
let snapshot;

before(async () => {
  ctx = await startChain();
  serviceSigner = new Wallet(id('duepay test service signer'));
  buyer = ctx.wallets[2];
  usdt = await ctx.deploy('TestToken', ['Tether USD (test)', 'USDT', 6]);
  router = await ctx.deploy('Router', [ctx.feeRecipient.address]);
  await (await router.setSigner(serviceSigner.address, true)).wait();
  await (await usdt.mint(buyer.address, 10n ** 40n)).wait();
  await (await usdt.connect(buyer).approve(router.target, 2n ** 256n - 1n)).wait();
});
after(async () => { await ctx?.stop(); });
beforeEach(async () => { snapshot = await ctx.snapshot(); });
afterEach(async () => { await ctx.revert(snapshot); });

async function intentFor(overrides = {}) {
  return {
    invoiceId: randomId(),
    merchant: randomAddress(),
    token: usdt.target,
    amount: 1_000_000n,
    feeBps: 100,
    deadline: (await ctx.latestTimestamp()) + 3600n,
    ...overrides,
  };
}

function sign(intent, { signer = serviceSigner, chainId = ctx.chainId, verifyingContract = router.target } = {}) {
  return signIntent(signer, chainId, verifyingContract, intent);
}

function payAs(payer, intent, signature) {
  return router.connect(payer).pay(intent, signature);
}

describe('Router.pay: valid payments', () => {
  // [amount, feeBps, expected fee]: fee = floor(amount * feeBps / 10000), the rest to the merchant.
  const cases = [
    [1n, 100, 0n],
    [99n, 100, 0n],
    [100n, 100, 1n],
    [199n, 100, 1n],
    [1_000_000n, 100, 10_000n],
    [123_456_789n, 250, 3_086_419n],
    [333_333_333_333n, 1, 33_333_333n],
    [7n, 0, 0n],
    [5_000_000n, 10_000, 5_000_000n],
    [10n ** 36n + 1n, 9_999, 9_999n * 10n ** 32n],  // the +1 unit rounds away
  ];
  for (const [amount, feeBps, expectedFee] of cases) {
    it(`pays amount ${amount} at ${feeBps} bps: fee ${expectedFee}, merchant the rest`, async () => {
      assert.equal(amount * BigInt(feeBps) / 10_000n, expectedFee);  // the table itself is right
      const intent = await intentFor({ amount, feeBps });
      const signature = await sign(intent);
      const payerBefore = await usdt.balanceOf(buyer.address);
      const feeBefore = await usdt.balanceOf(ctx.feeRecipient.address);

      const receipt = await (await payAs(buyer, intent, signature)).wait();

      assert.equal(await usdt.balanceOf(intent.merchant), amount - expectedFee);
      assert.equal(await usdt.balanceOf(ctx.feeRecipient.address) - feeBefore, expectedFee);
      assert.equal(payerBefore - await usdt.balanceOf(buyer.address), amount);
      assert.equal(await usdt.balanceOf(router.target), 0n);
      assert.equal(await router.isPaid(intent.invoiceId), true);
      const [event] = eventsOf(router, receipt, 'InvoicePaid');
      assert.ok(event, 'InvoicePaid emitted');
      assert.deepEqual([...event.args],
        [intent.invoiceId, buyer.address, intent.merchant, usdt.target, amount, expectedFee]);
    });
  }

  it('pays when block.timestamp equals the deadline exactly', async () => {
    const intent = await intentFor();
    intent.deadline = (await ctx.latestTimestamp()) + 100n;
    const signature = await sign(intent);
    await ctx.setNextBlockTimestamp(intent.deadline);
    const receipt = await (await router.connect(buyer).pay(intent, signature, { gasLimit: 300_000 })).wait();
    assert.equal(BigInt((await ctx.provider.getBlock(receipt.blockNumber)).timestamp), intent.deadline);
    assert.equal(await usdt.balanceOf(intent.merchant), 990_000n);
  });

  it('anyone may submit the intent (the payer is msg.sender, not the signer)', async () => {
    const other = ctx.wallets[3];
    await (await usdt.mint(other.address, 1_000_000n)).wait();
    await (await usdt.connect(other).approve(router.target, 1_000_000n)).wait();
    const intent = await intentFor();
    const receipt = await (await payAs(other, intent, await sign(intent))).wait();
    assert.equal(await usdt.balanceOf(other.address), 0n);
    assert.equal(eventsOf(router, receipt, 'InvoicePaid')[0].args.payer, other.address);
  });

  it('digest and domain separator match ethers TypedDataEncoder', async () => {
    const intent = await intentFor();
    const domain = eip712Domain(ctx.chainId, router.target);
    assert.equal(await router.domainSeparator(), TypedDataEncoder.hashDomain(domain));
    assert.equal(await router.hashIntent(intent), TypedDataEncoder.hash(domain, PAYMENT_INTENT_TYPES, intent));
  });
});

describe('Router.pay: signatures', () => {
  it('rejects an intent signed by an unauthorised key', async () => {
    const intent = await intentFor();
    const stranger = Wallet.createRandom();
    await expectRevert(ctx, payAs(buyer, intent, await sign(intent, { signer: stranger })),
      'UnauthorizedSigner', [stranger.address]);
  });

  for (const [field, change] of [
    ['invoiceId', () => randomId()],
    ['merchant', () => randomAddress()],
    ['token', () => randomAddress()],
    ['amount', (v) => v - 1n],
    ['feeBps', (v) => v - 1],
    ['deadline', (v) => v + 1n],
  ]) {
    it(`rejects a tampered ${field}`, async () => {
      const intent = await intentFor();
      const signature = await sign(intent);
      const tampered = { ...intent, [field]: change(intent[field]) };
      const [recovered] = await expectRevert(ctx, payAs(buyer, tampered, signature), 'UnauthorizedSigner');
      assert.notEqual(recovered, serviceSigner.address);
      assert.equal(await usdt.balanceOf(intent.merchant), 0n);
      assert.equal(await usdt.balanceOf(tampered.merchant), 0n);
    });
  }

  it('rejects the high-s twin of a valid signature', async () => {
    const intent = await intentFor();
    const sig = Signature.from(await sign(intent));
    const highS = SECP256K1_N - BigInt(sig.s);
    const twin = concat([sig.r, toBeHex(highS, 32), toBeHex(sig.v === 27 ? 28 : 27, 1)]);
    await expectRevert(ctx, payAs(buyer, intent, twin), 'InvalidSignatureS', [toBeHex(highS, 32)]);
    // The low-s original still works, so the revert above was about s alone.
    await (await payAs(buyer, intent, sig.serialized)).wait();
    assert.equal(await router.isPaid(intent.invoiceId), true);
  });

  it('rejects a signature over another chainId', async () => {
    const intent = await intentFor();
    const [recovered] = await expectRevert(ctx, payAs(buyer, intent, await sign(intent, { chainId: 137 })),
      'UnauthorizedSigner');
    assert.notEqual(recovered, serviceSigner.address);
  });

  it('rejects a signature for another verifyingContract', async () => {
    const intent = await intentFor();
    const [recovered] = await expectRevert(ctx,
      payAs(buyer, intent, await sign(intent, { verifyingContract: randomAddress() })), 'UnauthorizedSigner');
    assert.notEqual(recovered, serviceSigner.address);
  });

  it('rejects v outside {27, 28}, a 64-byte signature, and one ecrecover cannot recover', async () => {
    const intent = await intentFor();
    const sig = Signature.from(await sign(intent));
    await expectRevert(ctx, payAs(buyer, intent, concat([sig.r, sig.s, toBeHex(sig.v - 27, 1)])),
      'InvalidSignatureV', [BigInt(sig.v - 27)]);
    await expectRevert(ctx, payAs(buyer, intent, concat([sig.r, sig.s])), 'InvalidSignatureLength', [64n]);
    const zeroR = concat([zeroPadValue('0x', 32), toBeHex(1, 32), toBeHex(27, 1)]);
    await expectRevert(ctx, payAs(buyer, intent, zeroR), 'InvalidSignature', []);
  });
});

describe('Router.pay: deadline, single use, amounts', () => {
  it('rejects an intent after its deadline', async () => {
    const intent = await intentFor();
    const signature = await sign(intent);
    await ctx.increaseTime(3601);
    const [, deadline, blockTimestamp] = await expectRevert(ctx, payAs(buyer, intent, signature), 'IntentExpired');
    assert.equal(deadline, intent.deadline);
    assert.ok(blockTimestamp > intent.deadline);
    assert.equal(await usdt.balanceOf(intent.merchant), 0n);
  });

  it('rejects a second payment of the same invoice, even with a fresh signature', async () => {
    const intent = await intentFor();
    const signature = await sign(intent);
    await (await payAs(buyer, intent, signature)).wait();
    await expectRevert(ctx, payAs(buyer, intent, signature), 'InvoiceAlreadyPaid', [intent.invoiceId]);
    const again = { ...intent, amount: 5n, deadline: intent.deadline + 10n };
    await expectRevert(ctx, payAs(buyer, again, await sign(again)), 'InvoiceAlreadyPaid', [intent.invoiceId]);
    assert.equal(await usdt.balanceOf(intent.merchant), 990_000n);
  });

  it('reverts when the allowance or the balance is short of the amount', async () => {
    const poor = ctx.wallets[4];
    await (await usdt.mint(poor.address, 1_000_000n)).wait();
    await (await usdt.connect(poor).approve(router.target, 999_999n)).wait();
    const intent = await intentFor();
    await expectRevert(ctx, payAs(poor, intent, await sign(intent)), 'TokenCallFailed', [usdt.target]);

    await (await usdt.connect(poor).approve(router.target, 2_000_000n)).wait();
    const bigger = await intentFor({ amount: 1_000_001n });
    await expectRevert(ctx, payAs(poor, bigger, await sign(bigger)), 'TokenCallFailed', [usdt.target]);
    assert.equal(await usdt.balanceOf(poor.address), 1_000_000n);
    assert.equal(await router.isPaid(intent.invoiceId), false);
  });

  it('reverts for a fee-on-transfer token (merchant would be short)', async () => {
    const fot = await ctx.deploy('FeeOnTransferToken', ['Taxed', 'TAX', 6, 100]);
    await (await fot.mint(buyer.address, 10_000_000n)).wait();
    await (await fot.connect(buyer).approve(router.target, 10_000_000n)).wait();
    const intent = await intentFor({ token: fot.target, amount: 1_000_000n });
    await expectRevert(ctx, payAs(buyer, intent, await sign(intent)), 'AmountNotReceived', [1_000_000n, 990_000n]);
    assert.equal(await fot.balanceOf(buyer.address), 10_000_000n);
  });

  it('rejects feeBps above 10000, a zero amount and a token without code', async () => {
    const tooHigh = await intentFor({ feeBps: 10_001 });
    await expectRevert(ctx, payAs(buyer, tooHigh, await sign(tooHigh)), 'FeeBpsTooHigh', [10_001n]);
    const zero = await intentFor({ amount: 0n });
    await expectRevert(ctx, payAs(buyer, zero, await sign(zero)), 'ZeroAmount', []);
    const eoaToken = await intentFor({ token: randomAddress() });
    await expectRevert(ctx, payAs(buyer, eoaToken, await sign(eoaToken)), 'TokenCallFailed', [eoaToken.token]);
  });
});

describe('Router administration', () => {
  it('rotates signers: the new key works, the revoked key stops working', async () => {
    const next = new Wallet(id('duepay test service signer 2'));
    const pendingOld = await intentFor();
    const oldSignature = await sign(pendingOld);

    const added = await (await router.setSigner(next.address, true)).wait();
    assert.deepEqual([...eventsOf(router, added, 'SignerUpdated')[0].args], [next.address, true]);
    const viaNew = await intentFor();
    await (await payAs(buyer, viaNew, await sign(viaNew, { signer: next }))).wait();
    assert.equal(await usdt.balanceOf(viaNew.merchant), 990_000n);

    await (await router.setSigner(serviceSigner.address, false)).wait();
    assert.equal(await router.isSigner(serviceSigner.address), false);
    await expectRevert(ctx, payAs(buyer, pendingOld, oldSignature), 'UnauthorizedSigner', [serviceSigner.address]);
  });

  it('only the owner sets signers and the fee recipient', async () => {
    const stranger = ctx.wallets[5];
    await expectRevert(ctx, router.connect(stranger).setSigner(stranger.address, true), 'NotOwner', [stranger.address]);
    await expectRevert(ctx, router.connect(stranger).setFeeRecipient(stranger.address), 'NotOwner', [stranger.address]);
    await expectRevert(ctx, router.setSigner('0x0000000000000000000000000000000000000000', true), 'ZeroAddress', []);
  });

  it('sends fees to a new fee recipient after setFeeRecipient', async () => {
    const newRecipient = randomAddress();
    await (await router.setFeeRecipient(newRecipient)).wait();
    const intent = await intentFor({ amount: 2_000_000n, feeBps: 150 });
    await (await payAs(buyer, intent, await sign(intent))).wait();
    assert.equal(await usdt.balanceOf(newRecipient), 30_000n);
    assert.equal(await usdt.balanceOf(intent.merchant), 1_970_000n);
  });

  it('transfers ownership in two steps', async () => {
    const heir = ctx.wallets[6];
    await (await router.transferOwnership(heir.address)).wait();
    assert.equal(await router.owner(), ctx.deployer.address);
    await expectRevert(ctx, router.connect(ctx.wallets[7]).acceptOwnership(), 'NotPendingOwner', [ctx.wallets[7].address]);
    await (await router.connect(heir).acceptOwnership()).wait();
    assert.equal(await router.owner(), heir.address);
    await expectRevert(ctx, router.setSigner(heir.address, true), 'NotOwner', [ctx.deployer.address]);
  });
});
