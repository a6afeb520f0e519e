// The dev-only contracts that the dev chains and other tests rely on: TestToken, PriceFeed and
// the fee-on-transfer token.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventsOf, expectRevert, startChain } from './support.mjs';

let ctx;
before(async () => { ctx = await startChain(); });
after(async () => { await ctx?.stop(); });

describe('TestToken', () => {
  it('has name, symbol, 6 decimals; mint, transfer, approve and transferFrom move exact amounts', async () => {
    const [, , alice, bob, carol] = ctx.wallets;
    const t = await ctx.deploy('TestToken', ['Tether USD (test)', 'USDT', 6]);
    assert.deepEqual([await t.name(), await t.symbol(), await t.decimals()], ['Tether USD (test)', 'USDT', 6n]);
    await (await t.connect(carol).mint(alice.address, 1_000n)).wait();  // mint is open on dev
    const receipt = await (await t.connect(alice).transfer(bob.address, 300n)).wait();
    assert.deepEqual([...eventsOf(t, receipt, 'Transfer')[0].args], [alice.address, bob.address, 300n]);
    await (await t.connect(alice).approve(carol.address, 200n)).wait();
    await (await t.connect(carol).transferFrom(alice.address, carol.address, 150n)).wait();
    assert.equal(await t.balanceOf(alice.address), 550n);
    assert.equal(await t.balanceOf(bob.address), 300n);
    assert.equal(await t.balanceOf(carol.address), 150n);
    assert.equal(await t.allowance(alice.address, carol.address), 50n);
    assert.equal(await t.totalSupply(), 1_000n);
    await expectRevert(ctx, t.connect(carol).transferFrom(alice.address, carol.address, 51n),
      'InsufficientAllowance', [carol.address, 50n, 51n]);
    await expectRevert(ctx, t.connect(bob).transfer(alice.address, 301n), 'InsufficientBalance', [bob.address, 300n, 301n]);
  });

  it('FeeOnTransferToken burns its cut from every transfer', async () => {
    const [, , alice, bob] = ctx.wallets;
    const t = await ctx.deploy('FeeOnTransferToken', ['Taxed', 'TAX', 6, 200]);
    await (await t.mint(alice.address, 10_000n)).wait();
    await (await t.connect(alice).transfer(bob.address, 1_000n)).wait();
    assert.equal(await t.balanceOf(bob.address), 980n);
    assert.equal(await t.totalSupply(), 9_980n);
  });
});

describe('PriceFeed', () => {
  it('answers latestRoundData like a Chainlink aggregator and lets only the owner set answers', async () => {
    const feed = await ctx.deploy('PriceFeed', [8, 'THB / USD', 2_780_000n]);
    assert.equal(await feed.decimals(), 8n);
    assert.equal(await feed.description(), 'THB / USD');
    let [roundId, answer, startedAt, updatedAt, answeredInRound] = await feed.latestRoundData();
    assert.deepEqual([roundId, answer, answeredInRound], [1n, 2_780_000n, 1n]);
    assert.equal(startedAt, updatedAt);
    assert.equal(updatedAt, await ctx.latestTimestamp());

    await (await feed.setAnswer(2_900_000n)).wait();
    [roundId, answer] = await feed.latestRoundData();
    assert.deepEqual([roundId, answer], [2n, 2_900_000n]);
    assert.equal((await feed.getRoundData(1n))[1], 2_780_000n);

    await (await feed.setRoundData(3_000_000n, 1_000n)).wait();  // a stale answer
    [roundId, answer, , updatedAt] = await feed.latestRoundData();
    assert.deepEqual([roundId, answer, updatedAt], [3n, 3_000_000n, 1_000n]);

    await expectRevert(ctx, feed.getRoundData(9n), 'NoDataPresent', [9n]);
    const stranger = ctx.wallets[4];
    await expectRevert(ctx, feed.connect(stranger).setAnswer(1n), 'NotOwner', [stranger.address]);
  });
});
