import { setTimeout as sleep } from 'node:timers/promises';
import { Wallet, ZeroAddress } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import { movePrice } from '../../devnet/market-mover';
import { DEFAULT_PRICE_BOUND } from '../../devnet/world/deploy-service-contracts';
import { FillStatus } from '../../shared/bridges/across/relay-data';
import { spokePoolInterface } from '../../shared/bridges/contracts';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';
import {
  depositOnSpokePool,
  DESTINATION,
  ORIGIN,
  RELAYER,
  startRelayE2e,
  tokenBalance,
  type RelaySide,
} from '../helpers/relay-e2e';
import type { RunningService } from '../helpers/service-harness';

/**
 * The relayer against deposits made straight into the origin SpokePool (not through our API), as any Across relayer
 * sees them, on devnet chains 1 → 137: an account pumps LINK's only pool 4×, deposits 1,000 LINK asking USDC at the
 * pumped value and mines blocks; the keeper values the LINK at the chain's PriceOracle (LINK's USD feed), holds the
 * fill and pays nothing, and still does not once the pool is sold back (the deposit asks more than it pays). A fair
 * direct deposit is filled; caps per fill and per token and hour hold larger ones while smaller ones go through.
 */

jest.setTimeout(420_000);

const keys = devnetKeys(0);
const USDC = 10n ** 6n;
const LINK = 10n ** 18n;
const Q128 = 1n << 128n;
const MAX_FILL_USD = 100_000n;
const MAX_HOURLY_USD = 150_000n;

describe('the relayer values direct deposits at manipulation-resistant prices, within caps', () => {
  let service: RunningService;
  let origin: RelaySide;
  let destination: RelaySide;
  /** Output the keeper paid in this file so far (the hourly cap counts it). */
  let paidOut = 0n;

  beforeAll(async () => {
    ({ service, origin, destination } = await startRelayE2e({
      env: {
        INTENT_CONFIRMATIONS: '2',
        RELAYER_MAX_FILL_USD: String(MAX_FILL_USD),
        RELAYER_MAX_HOURLY_USD: String(MAX_HOURLY_USD),
      },
    }));
    // Half an hour of pool history behind the time-weighted prices, as a live chain has (the feeds stay fresh).
    for (const s of [origin, destination]) {
      await s.handle.increaseTime(DEFAULT_PRICE_BOUND.twapWindow);
      await s.handle.mine();
    }
  });

  afterAll(async () => {
    await service?.close();
  });

  const store = () => service.api.store;

  /** The origin OrderExecutor's bound price of a whole `symbol` in USDC base units (the keeper's reference). */
  async function referenceUsdc(symbol: string, amount: bigint): Promise<bigint> {
    const iface = orderExecutorInterface();
    const data = await origin.provider.call({
      to: origin.chain.contracts.orderExecutor,
      data: iface.encodeFunctionData('priceBound', [origin.token(symbol), origin.token('USDC')]),
    });
    return (amount * (iface.decodeFunctionResult('priceBound', data)[0] as bigint)) / Q128;
  }

  /**
   * A deposit straight on the origin SpokePool, open to any relayer (no exclusivity), as a wallet that never
   * asked our API makes it; mined with INTENT_CONFIRMATIONS blocks.
   */
  async function deposit(
    input: string,
    amount: bigint,
    outputAmount: bigint,
    recipient: string,
  ): Promise<{ depositId: string }> {
    return depositOnSpokePool(origin, destination, {
      inputSymbol: input,
      amount,
      outputAmount,
      recipient,
      exclusiveRelayer: ZeroAddress,
      exclusivityParameter: 0,
    });
  }

  async function transfer(depositId: string): Promise<Transfer | undefined> {
    return store().transfers.findByDeposit('intent', ORIGIN, depositId);
  }

  /** Until the stored transfer satisfies `done` (a state the keeper moved it to, or the reason it gave). */
  async function waitFor(
    depositId: string,
    done: (t: Transfer) => boolean,
    what: string,
    timeoutMs = 90_000,
  ): Promise<Transfer> {
    const deadline = Date.now() + timeoutMs;
    let last: Transfer | undefined;
    while (Date.now() < deadline) {
      last = await transfer(depositId);
      if (last && done(last)) return last;
      await sleep(200);
    }
    throw new Error(
      `transfer ${depositId} is ${last?.status ?? 'not stored'} (${last?.lastError ?? 'no error'}), not ${what}`,
    );
  }

  const filled = (depositId: string) =>
    waitFor(depositId, (t) => t.status === 'filled' || t.status === 'repaid', 'filled');
  const heldFor = (depositId: string, reason: RegExp) =>
    waitFor(depositId, (t) => t.status === 'deposited' && reason.test(t.lastError ?? ''), `held (${reason})`);

  async function held(reason: string): Promise<number> {
    const text = await service.keepers[0]!.metrics.registry.metrics();
    const match = new RegExp(
      `tas_keeper_relay_fills_held_total\\{chain_id="${DESTINATION}",provider="intent",reason="${reason}"\\} (\\d+)`,
    ).exec(text);
    if (!match) throw new Error(`no held series for ${reason}`);
    return Number(match[1]);
  }

  async function waitForHeld(reason: string, atLeast: number, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ((await held(reason)) >= atLeast) return;
      await sleep(250);
    }
    throw new Error(`tas_keeper_relay_fills_held_total{reason="${reason}"} stayed under ${atLeast}`);
  }

  async function fillStatus(relayHash: string): Promise<FillStatus> {
    const iface = spokePoolInterface();
    const data = await destination.provider.call({
      to: destination.spokePool,
      data: iface.encodeFunctionData('fillStatuses', [relayHash]),
    });
    return Number(iface.decodeFunctionResult('fillStatuses', data)[0]) as FillStatus;
  }

  it('pays nothing for a deposit priced off a pumped pool, and nothing once the pump is sold back', async () => {
    const mover = keys.mover.connect(origin.provider);
    const usdc137 = destination.token('USDC');
    const relayerBefore = await tokenBalance(destination, usdc137, RELAYER);
    const recipient = Wallet.createRandom().address;
    const reference = await referenceUsdc('LINK', 1_000n * LINK);
    // 15 USD a LINK: the world's price, from LINK's USD feed.
    expect(reference).toBeGreaterThan(14_900n * USDC);
    expect(reference).toBeLessThan(15_100n * USDC);

    // LINK's only pool (Uniswap V2 against WETH) bought up 4×.
    const pump = await movePrice({
      provider: origin.provider,
      chainId: ORIGIN,
      world: origin.chain,
      pair: 'LINK/WETH',
      by: 3,
      dex: 'v2',
      signer: mover,
    });
    expect(pump.after / pump.before).toBeCloseTo(4, 2);
    // 1,000 LINK asking 50,000 USDC: over 3× the reference value, yet below what the pumped pool would pay for them
    // (the keeper's margin at the latest pool state alone would fill it).
    const asked = 50_000n * USDC;
    const { depositId } = await deposit('LINK', 1_000n * LINK, asked, recipient);
    await origin.handle.mine(6);
    const first = await heldFor(depositId, /^price deviation/);
    expect(first.lastError).toMatch(/at spot and \d+ at the reference prices \(\d+ bps apart\)/);
    const spotValue = BigInt(/worth (\d+) at spot/.exec(first.lastError!)![1]!);
    expect(spotValue).toBeGreaterThan(asked);
    expect(BigInt(/and (\d+) at the reference/.exec(first.lastError!)![1]!)).toBe(reference);
    expect(await held('price_deviation')).toBeGreaterThanOrEqual(1);

    // More blocks on both chains: the keeper looks again after its back-off and holds it again.
    await origin.handle.mine(6);
    await destination.handle.mine(6);
    await waitForHeld('price_deviation', 2);
    const row = (await transfer(depositId))!;
    expect(row).toMatchObject({ status: 'deposited', fillTxHash: null });
    expect(await fillStatus(row.relayHash!)).toBe(FillStatus.Unfilled);
    expect(await tokenBalance(destination, usdc137, recipient)).toBe(0n);
    expect(await tokenBalance(destination, usdc137, RELAYER)).toBe(relayerBefore);

    // The attacker sells the LINK back: at a fair spot price the deposit asks far more than it pays.
    const back = await movePrice({
      provider: origin.provider,
      chainId: ORIGIN,
      world: origin.chain,
      pair: 'LINK/WETH',
      by: -0.75,
      dex: 'v2',
      signer: mover,
    });
    expect(back.after / pump.before).toBeCloseTo(1, 2);
    await heldFor(depositId, /^unprofitable/);
    expect(await fillStatus(row.relayHash!)).toBe(FillStatus.Unfilled);
    expect(await tokenBalance(destination, usdc137, RELAYER)).toBe(relayerBefore);
  });

  it('fills a fair direct deposit of LINK for USDC', async () => {
    const recipient = Wallet.createRandom().address;
    // 3% under the reference value: the relayer's margin, as a quote would leave it.
    const outputAmount = ((await referenceUsdc('LINK', 100n * LINK)) * 97n) / 100n;
    const relayerBefore = await tokenBalance(destination, destination.token('USDC'), RELAYER);
    const { depositId } = await deposit('LINK', 100n * LINK, outputAmount, recipient);
    const done = await filled(depositId);
    paidOut += outputAmount;
    expect(await fillStatus(done.relayHash!)).toBe(FillStatus.Filled);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(outputAmount);
    expect(await tokenBalance(destination, destination.token('USDC'), RELAYER)).toBe(
      relayerBefore - outputAmount,
    );
  });

  it('holds a fill over RELAYER_MAX_FILL_USD and fills a smaller one', async () => {
    const recipient = Wallet.createRandom().address;
    const usdc137 = destination.token('USDC');
    const before = await held('max_fill');
    const big = await deposit('USDC', 120_001n * USDC, 120_000n * USDC, recipient);
    const row = await heldFor(big.depositId, /^max_fill/);
    expect(row.lastError).toContain('over the 100000 USD cap per fill');
    expect(await held('max_fill')).toBeGreaterThan(before);

    const small = await deposit('USDC', 90_001n * USDC, 90_000n * USDC, recipient);
    await filled(small.depositId);
    paidOut += 90_000n * USDC;
    expect(await tokenBalance(destination, usdc137, recipient)).toBe(90_000n * USDC);
    expect((await transfer(big.depositId))!.status).toBe('deposited');
    expect(await fillStatus(row.relayHash!)).toBe(FillStatus.Unfilled);
  });

  it('holds a fill past RELAYER_MAX_HOURLY_USD of the token on the chain, counted from the store', async () => {
    const recipient = Wallet.createRandom().address;
    // What this hour already paid out of USDC on the destination, plus this one, is over the cap by a dollar.
    const over = MAX_HOURLY_USD * USDC - paidOut + USDC;
    const capped = await deposit('USDC', over + USDC, over, recipient);
    const row = await heldFor(capped.depositId, /^max_hourly/);
    expect(row.lastError).toContain('over the 150000 USD cap');
    expect(await held('max_hourly')).toBeGreaterThanOrEqual(1);

    const within = over - 2n * USDC;
    const fits = await deposit('USDC', within + USDC, within, recipient);
    await filled(fits.depositId);
    expect(await tokenBalance(destination, destination.token('USDC'), recipient)).toBe(within);
    expect(await fillStatus(row.relayHash!)).toBe(FillStatus.Unfilled);
  });
});
