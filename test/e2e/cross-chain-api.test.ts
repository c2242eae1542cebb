import { setTimeout as sleep } from 'node:timers/promises';
import { Contract, id, parseUnits, Wallet, type JsonRpcProvider, type TransactionReceipt } from 'ethers';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import { ERC20_ABI } from '../../devnet/world/abis';
import type { ApiResponse, Envelope } from '../helpers/api-client';
import { startService, type RunningService } from '../helpers/service-harness';
import { waitForReceipt } from '../../devnet/wait-for-receipt';

/**
 * Cross-chain transfers as a client written from the spec makes them, on two devnet chains (1 and 137) with the
 * keeper running: POST /quotes, POST /swap, the source transaction signed and sent by a test account, POST
 * /tx-status polled to a success value, and at least `minimumReceived` found on the other chain. USDC to USDC,
 * the native coin to USDC and WETH to USDC, in both directions; the fees taken in the source token; the relayer's
 * inventory bounding what the intent bridge quotes; the statuses of a reverted and of a foreign transaction. Each
 * transfer sends the key that built its swap `transfer.updated` events, the last one what /tx-status answers.
 */

jest.setTimeout(600_000);

interface RouteAsset {
  chainId: number;
  address: string;
  symbol: string;
  decimals: number;
}
interface CrossChainQuote {
  aggregatorId: string;
  aggregatorOrder: string[];
  fromChainId: number;
  toChainId: number;
  fromTokenAmount: string;
  toTokenAmount: string;
  minimumReceived: string;
  estimateCostInUSD: string | null;
  estimatedGas: string;
  estimatedSeconds: number;
  bridgeInfo: { displayName: string };
  middlewareRoute: RouteAsset[];
  integratorFeeBreakdown: {
    protocolFeeBps: number;
    integratorMarginBps: number;
    protocolFeeAmount: string;
    integratorMarginAmount: string;
  };
  alternatives: Array<{ aggregatorId: string; displayName: string; toTokenAmount: string }>;
}
interface CrossChainSwap {
  calldata: string;
  to: string;
  value: string;
  dexHash: string;
  estimatedGas: string;
  gasLimit: string;
  contractToApprove?: string;
  outAmount: string;
  minOutAmount: string;
  aggregatorId: string;
}
interface TransferStatus {
  fromChainId: number;
  toChainId: number | null;
  fromTxHash: string | null;
  toTxHash: string | null;
  fromAmount: string | null;
  toAmount: string | null;
  fromTokenAddress: string | null;
  toTokenAddress: string | null;
  bridgeHash: string | null;
  errorMsg: null;
  status: string;
  detailStatus: string | null;
}

const NATIVE = '0xeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee';
const SLIPPAGE = '0.5';
const FEE_BPS = 30;
const PROTOCOL_FEE_PIPS = 1500n;
const PROVIDERS: Record<string, string> = {
  'tas-intent': 'TAS Intents (Across V3)',
  'tas-canonical': 'TAS Lock-Release Bridge',
};
const SUCCESS = ['SUCCESS', 'DONE', 'success', 'Success'];
const FAILURE = ['FAILURE', 'FAILED', 'failed', 'REFUND', 'Reverted', 'FROM_FAILURE', 'INVALID'];
const TX_HASH = /^0x[0-9a-f]{64}$/i;
const dexHashOf = (provider: string): string => id(`tas-cross-chain:${provider}`);

const isNative = (address: string): boolean => address.toLowerCase() === NATIVE;

describe('cross-chain transfers through the public API (devnet chains 1 and 137, keeper relaying)', () => {
  let service: RunningService;
  let chains: Record<number, { manifest: ManifestChain; provider: JsonRpcProvider }>;
  let user: Wallet;
  let integrator: string;
  const protocolFeeRecipient = devnetKeys(0).protocolFeeRecipient;

  const tokenOf = (chainId: number, symbol: string): string => {
    if (symbol === 'native') return NATIVE;
    const found = chains[chainId]!.manifest.tokens.find((t) => t.symbol === symbol);
    if (!found) throw new Error(`no ${symbol} on chain ${chainId}`);
    return found.address;
  };
  const decimalsOf = (chainId: number, address: string): number =>
    isNative(address)
      ? 18
      : chains[chainId]!.manifest.tokens.find((t) => t.address.toLowerCase() === address.toLowerCase())!
          .decimals;
  const wrappedNative = (chainId: number): string => chains[chainId]!.manifest.contracts.weth;

  async function balanceOf(chainId: number, token: string, owner: string): Promise<bigint> {
    const { provider } = chains[chainId]!;
    if (isNative(token)) return provider.getBalance(owner);
    return (await new Contract(token, ERC20_ABI, provider).getFunction('balanceOf')(owner)) as bigint;
  }

  async function approve(chainId: number, wallet: Wallet, token: string, spender: string, amount: bigint) {
    const { provider } = chains[chainId]!;
    const tx = await new Contract(token, ERC20_ABI, wallet.connect(provider)).getFunction('approve')(
      spender,
      amount,
    );
    expect((await waitForReceipt(provider, tx.hash as string, 60_000)).status).toBe(1);
  }

  async function send(
    chainId: number,
    wallet: Wallet,
    s: CrossChainSwap,
    gasLimit?: bigint,
  ): Promise<TransactionReceipt> {
    const { provider } = chains[chainId]!;
    const tx = await wallet.connect(provider).sendTransaction({
      to: s.to,
      data: s.calldata,
      value: BigInt(s.value),
      gasLimit: gasLimit ?? BigInt(s.gasLimit),
    });
    return waitForReceipt(provider, tx.hash, 60_000);
  }

  interface Transfer {
    fromChainId: number;
    toChainId: number;
    inTokenAddress: string;
    outTokenAddress: string;
    amount: string;
  }
  const params = (t: Transfer) => ({ ...t, slippage: SLIPPAGE });
  const fees = () => ({ feeBps: FEE_BPS, feeRecipient: integrator });

  const postQuote = (t: Transfer, amount = t.amount) =>
    service.client.post<{ mode: string; quote: CrossChainQuote }>('/quotes', {
      mode: 'cross-chain',
      params: params({ ...t, amount }),
      fees: fees(),
    });
  const postSwap = (t: Transfer, account: string, aggregatorId: string) =>
    service.client.post<{ mode: string; swap: CrossChainSwap }>('/swap', {
      mode: 'cross-chain',
      params: { ...params(t), account, aggregatorId },
      fees: fees(),
    });
  const postStatus = (hash: string, chainId: number, dexHash: string) =>
    service.client.post<TransferStatus>('/tx-status', { hash, chainId, dexHash });

  /** Pools load in the background after start: a quote answers NO_ROUTE until both chains' are there. */
  async function quoteOk(t: Transfer): Promise<CrossChainQuote> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const res = await postQuote(t);
      if (res.status === 200) {
        expect(res.body.data!.mode).toBe('cross-chain');
        return res.body.data!.quote;
      }
      if (res.body.error?.code !== 'NO_ROUTE' || Date.now() > deadline) {
        throw new Error(`quote failed: ${res.status} ${res.text}`);
      }
      await sleep(500);
    }
  }

  async function swapOk(t: Transfer, account: string, aggregatorId: string): Promise<CrossChainSwap> {
    const res = await postSwap(t, account, aggregatorId);
    if (res.status !== 200) throw new Error(`swap failed: ${res.status} ${res.text}`);
    expect(res.body.data!.mode).toBe('cross-chain');
    return res.body.data!.swap;
  }

  /**
   * Polls /tx-status as the spec says (500 TX_STATUS_ERROR right after the broadcast, then in-progress values)
   * until a final value; every answer is in the documented shape.
   */
  async function pollStatus(
    hash: string,
    chainId: number,
    dexHash: string,
  ): Promise<{
    final: TransferStatus;
    seen: string[];
  }> {
    const seen: string[] = [];
    const deadline = Date.now() + 180_000;
    for (;;) {
      const res: ApiResponse<Envelope<TransferStatus>> = await postStatus(hash, chainId, dexHash);
      if (res.status === 500) {
        expect(res.body.error?.code).toBe('TX_STATUS_ERROR');
        seen.push('TX_STATUS_ERROR');
      } else {
        expect(res.status).toBe(200);
        const data = res.body.data!;
        expect(Object.keys(data)).toEqual([
          'fromChainId',
          'toChainId',
          'fromTxHash',
          'toTxHash',
          'fromAmount',
          'toAmount',
          'fromTokenAddress',
          'toTokenAddress',
          'bridgeHash',
          'errorMsg',
          'status',
          'detailStatus',
        ]);
        expect(data.errorMsg).toBeNull();
        seen.push(`${data.status}/${data.detailStatus}`);
        if (SUCCESS.includes(data.status) || FAILURE.includes(data.status)) return { final: data, seen };
      }
      if (Date.now() > deadline) throw new Error(`no final status for ${hash}; seen ${seen.join(' → ')}`);
      await sleep(500);
    }
  }

  /**
   * The `transfer.updated` events of the transfer of a source transaction, in order, once the keeper has written
   * the one whose status is `until`'s (the keeper records its fill a little after the chain shows it).
   */
  async function transferEvents(
    fromTxHash: string,
    until: TransferStatus,
  ): Promise<Array<{ apiKey: string; data: TransferStatus }>> {
    const deadline = Date.now() + 60_000;
    for (;;) {
      const rows: Array<{ api_key: string; body: string }> = await service.api.store
        .knex('events')
        .where('type', 'transfer.updated')
        .orderBy('seq', 'asc');
      const events = rows
        .map((row) => ({
          apiKey: row.api_key,
          data: (JSON.parse(row.body) as { data: TransferStatus }).data,
        }))
        .filter((e) => e.data.fromTxHash === fromTxHash);
      if (events.some((e) => e.data.status === until.status)) return events;
      if (Date.now() > deadline) throw new Error(`no ${until.status} event for ${fromTxHash}`);
      await sleep(250);
    }
  }

  beforeAll(async () => {
    service = await startService({ devnetEnv: { DEVNET_CHAINS: '1,137', DEVNET_PORTS: '0,0' } });
    // The world deploys on instant mining (fast); then both chains make a block a second, as live chains do, so
    // the relays' confirmations come without the test mining them.
    for (const handle of service.devnet.handles) await handle.provider.send('evm_setIntervalMining', [1]);
    chains = Object.fromEntries(
      service.devnet.manifest.chains.map((manifest, i) => [
        manifest.chainId,
        { manifest, provider: service.devnet.handles[i]!.provider },
      ]),
    );
    user = new Wallet(service.devnet.manifest.chains[0]!.accounts[1]!.privateKey);
    integrator = Wallet.createRandom().address;
  }, 300_000);

  afterAll(async () => {
    await service?.close();
  });

  const transfers: Array<[string, Transfer]> = [];
  for (const [fromChainId, toChainId] of [
    [1, 137],
    [137, 1],
  ] as const) {
    transfers.push(
      [
        `USDC → USDC, ${fromChainId} → ${toChainId}`,
        { fromChainId, toChainId, inTokenAddress: 'USDC', outTokenAddress: 'USDC', amount: '250.5' },
      ],
      [
        `native → USDC, ${fromChainId} → ${toChainId}`,
        {
          fromChainId,
          toChainId,
          inTokenAddress: 'native',
          outTokenAddress: 'USDC',
          amount: fromChainId === 1 ? '0.2' : '900',
        },
      ],
      [
        `WETH → USDC, ${fromChainId} → ${toChainId}`,
        { fromChainId, toChainId, inTokenAddress: 'WETH', outTokenAddress: 'USDC', amount: '0.15' },
      ],
    );
  }
  const resolved = (t: Transfer): Transfer => ({
    ...t,
    inTokenAddress: tokenOf(t.fromChainId, t.inTokenAddress),
    outTokenAddress: tokenOf(t.toChainId, t.outTokenAddress),
  });

  /**
   * One transfer as a client makes it, with the quote's provider (or `provider`): every check the spec allows on
   * the quote, the swap, the fees on the source chain, the statuses and the balance on the destination.
   */
  async function expectTransferEndToEnd(symbolic: Transfer, provider?: string): Promise<TransferStatus> {
    const t = resolved(symbolic);
    const inDecimals = decimalsOf(t.fromChainId, t.inTokenAddress);
    const amountIn = parseUnits(t.amount, inDecimals);
    const quote = await quoteOk(t);
    const aggregatorId = provider ?? quote.aggregatorId;

    expect(quote.aggregatorOrder[0]).toBe(quote.aggregatorId);
    expect(quote.aggregatorOrder).toContain(aggregatorId);
    expect(quote.alternatives.map((a) => a.aggregatorId)).toEqual(quote.aggregatorOrder);
    const ranked = quote.alternatives.map((a) => BigInt(a.toTokenAmount));
    expect([...ranked].sort((a, b) => (b > a ? 1 : b < a ? -1 : 0))).toEqual(ranked);
    expect(quote.bridgeInfo.displayName).toBe(PROVIDERS[quote.aggregatorId]);
    expect(quote.fromTokenAmount).toBe(t.amount);
    expect({ from: quote.fromChainId, to: quote.toChainId }).toEqual({
      from: t.fromChainId,
      to: t.toChainId,
    });
    const toAmount = BigInt(quote.toTokenAmount);
    expect(toAmount).toBeGreaterThan(0n);
    expect(BigInt(quote.minimumReceived)).toBe((toAmount * 995n) / 1000n);
    expect(quote.integratorFeeBreakdown).toEqual({
      protocolFeeBps: 15,
      integratorMarginBps: FEE_BPS,
      protocolFeeAmount: ((amountIn * PROTOCOL_FEE_PIPS) / 1_000_000n).toString(),
      integratorMarginAmount: ((amountIn * BigInt(FEE_BPS)) / 10_000n).toString(),
    });
    expect(quote.middlewareRoute[0]).toEqual({
      chainId: t.fromChainId,
      address: t.inTokenAddress,
      symbol: expect.any(String),
      decimals: inDecimals,
    });
    expect(quote.middlewareRoute.at(-1)).toEqual({
      chainId: t.toChainId,
      address: t.outTokenAddress,
      symbol: 'USDC',
      decimals: decimalsOf(t.toChainId, t.outTokenAddress),
    });
    expect(quote.estimatedSeconds).toBeGreaterThan(0);
    expect(BigInt(quote.estimatedGas)).toBeGreaterThan(0n);

    // An ERC-20 input is approved first, so the swap runs from the account and its gas is estimated for real.
    const entry = chains[t.fromChainId]!.manifest.contracts.crossChainEntry!;
    if (!isNative(t.inTokenAddress)) await approve(t.fromChainId, user, t.inTokenAddress, entry, amountIn);
    const swap = await swapOk(t, user.address, aggregatorId);
    expect(swap.to).toBe(entry);
    expect(swap.aggregatorId).toBe(aggregatorId);
    expect(swap.dexHash).toBe(dexHashOf(aggregatorId));
    expect(swap.dexHash).toBe(swap.dexHash.toLowerCase());
    expect(BigInt(swap.gasLimit)).toBe(BigInt(swap.estimatedGas) * 2n);
    expect(swap.value).toBe(isNative(t.inTokenAddress) ? amountIn.toString() : '0');
    if (isNative(t.inTokenAddress)) expect(swap).not.toHaveProperty('contractToApprove');
    else expect(swap.contractToApprove).toBe(entry);
    expect(BigInt(swap.minOutAmount)).toBe((BigInt(swap.outAmount) * 995n) / 1000n);

    // Fees are paid on the source chain in the source token (its wrapped token for a native input).
    const feeToken = isNative(t.inTokenAddress) ? wrappedNative(t.fromChainId) : t.inTokenAddress;
    const feesBefore = await Promise.all([
      balanceOf(t.fromChainId, feeToken, protocolFeeRecipient),
      balanceOf(t.fromChainId, feeToken, integrator),
    ]);
    const outBefore = await balanceOf(t.toChainId, t.outTokenAddress, user.address);

    const receipt = await send(t.fromChainId, user, swap);
    expect(receipt.status).toBe(1);
    const feesAfter = await Promise.all([
      balanceOf(t.fromChainId, feeToken, protocolFeeRecipient),
      balanceOf(t.fromChainId, feeToken, integrator),
    ]);
    expect(feesAfter[0] - feesBefore[0]).toBe((amountIn * PROTOCOL_FEE_PIPS) / 1_000_000n);
    expect(feesAfter[1] - feesBefore[1]).toBe((amountIn * BigInt(FEE_BPS)) / 10_000n);

    const { final, seen } = await pollStatus(receipt.hash, t.fromChainId, swap.dexHash);
    expect(final.status).toBe('SUCCESS');
    expect(final.detailStatus).toBe('SUCCESS');
    // Nothing but in-progress values before the success.
    for (const step of seen.slice(0, -1))
      expect(step).toMatch(/^(TX_STATUS_ERROR|PENDING\/(WAITING|BRIDGE_PENDING))$/);
    expect(final).toMatchObject({
      fromChainId: t.fromChainId,
      toChainId: t.toChainId,
      fromTxHash: receipt.hash,
      fromAmount: amountIn.toString(),
      toAmount: swap.outAmount,
      errorMsg: null,
    });
    expect(final.fromTokenAddress?.toLowerCase()).toBe(t.inTokenAddress.toLowerCase());
    expect(final.toTokenAddress?.toLowerCase()).toBe(t.outTokenAddress.toLowerCase());
    expect(final.toTxHash).toMatch(TX_HASH);
    expect(final.bridgeHash).not.toBeNull();
    const fill = await chains[t.toChainId]!.provider.getTransactionReceipt(final.toTxHash!);
    expect(fill?.status).toBe(1);

    const received = (await balanceOf(t.toChainId, t.outTokenAddress, user.address)) - outBefore;
    expect(received).toBe(BigInt(swap.outAmount));
    expect(received).toBeGreaterThanOrEqual(BigInt(quote.minimumReceived));
    expect(received).toBeGreaterThanOrEqual(BigInt(swap.minOutAmount));

    // The status is read from the chains: asked again, it answers the same.
    const again = await postStatus(
      receipt.hash,
      t.fromChainId,
      swap.dexHash.toUpperCase().replace('0X', '0x'),
    );
    expect(again.body.data).toEqual(final);

    // Its events went to the key that built the swap; the last one is exactly what /tx-status answers.
    const events = await transferEvents(receipt.hash, final);
    for (const e of events) expect(e.apiKey).toBe(service.client.credentials.apiKey.toLowerCase());
    expect(events.at(-1)!.data).toEqual(final);
    // Stored as the keeper indexed it (before its origin confirmations), then each stage once.
    expect(events[0]!.data.detailStatus).toBe('WAITING');
    expect(new Set(events.map((e) => e.data.detailStatus)).size).toBe(events.length);
    for (const e of events.slice(0, -1)) {
      expect(`${e.data.status}/${e.data.detailStatus}`).toMatch(/^PENDING\/(WAITING|BRIDGE_PENDING)$/);
      expect(e.data).toEqual({
        ...final,
        toTxHash: null,
        toAmount: null,
        status: 'PENDING',
        detailStatus: e.data.detailStatus,
      });
    }
    return final;
  }

  it.each(transfers)(
    '%s: quote, swap, send, poll to SUCCESS, at least minimumReceived arrives',
    async (_name, t) => {
      await expectTransferEndToEnd(t);
    },
  );

  it('moves USDC through the intent bridge too when the client picks it from aggregatorOrder', async () => {
    const t: Transfer = {
      fromChainId: 1,
      toChainId: 137,
      inTokenAddress: 'USDC',
      outTokenAddress: 'USDC',
      amount: '40',
    };
    const quote = await quoteOk(resolved(t));
    // Same asset: both devnet bridges quote it, the cheaper lock-and-release first.
    expect([...quote.aggregatorOrder].sort()).toEqual(['tas-canonical', 'tas-intent']);
    await expectTransferEndToEnd(t, 'tas-intent');
  });

  it('does not quote through the intent bridge an amount above the relayer inventory', async () => {
    const usdc = resolved({
      fromChainId: 1,
      toChainId: 137,
      inTokenAddress: 'USDC',
      outTokenAddress: 'USDC',
      amount: '1',
    });
    const relayer = devnetKeys(0).relayer.address;
    const inventory = await balanceOf(137, usdc.outTokenAddress, relayer);
    const bridgeLiquidity = await balanceOf(
      137,
      usdc.outTokenAddress,
      chains[137]!.manifest.contracts.lockReleaseBridge!,
    );
    expect(inventory).toBeGreaterThan(bridgeLiquidity);
    // Between the bridge's liquidity and the relayer's inventory: only the intent bridge quotes it.
    const between = (inventory + bridgeLiquidity) / 2n / 10n ** 6n;
    const middle = await postQuote(usdc, between.toString());
    expect(middle.status).toBe(200);
    expect(middle.body.data!.quote.aggregatorOrder).toEqual(['tas-intent']);
    // Above the inventory (once the fees are off the input): nobody can move it.
    const above = await postQuote(usdc, ((inventory * 102n) / 100n / 10n ** 6n).toString());
    expect(above.status).toBe(422);
    expect(above.body.error?.code).toBe('NO_ROUTE');
    // The native coin to USDC goes through the intent bridge only: worth more than the inventory, no quote.
    const eth = resolved({
      fromChainId: 1,
      toChainId: 137,
      inTokenAddress: 'native',
      outTokenAddress: 'USDC',
      amount: '1',
    });
    expect((await postQuote(eth)).body.data?.quote.aggregatorOrder).toEqual(['tas-intent']);
    const tooMuch = await postQuote(eth, '700');
    expect(tooMuch.status).toBe(422);
    expect(tooMuch.body.error?.code).toBe('NO_ROUTE');
  });

  describe('statuses without a transfer to relay', () => {
    it('reports a reverted source transaction as FROM_FAILURE', async () => {
      // A fresh account with coins for gas and no USDC: the swap answers (its own funding is the only failure)
      // and the transaction, sent anyway, reverts.
      const poor = new Wallet(Wallet.createRandom().privateKey);
      await service.devnet.handles[0]!.setBalance(poor.address, 10n ** 18n);
      const t = resolved({
        fromChainId: 1,
        toChainId: 137,
        inTokenAddress: 'USDC',
        outTokenAddress: 'USDC',
        amount: '3',
      });
      const swap = await swapOk(t, poor.address, 'tas-intent');
      const receipt = await send(1, poor, swap, 500_000n);
      expect(receipt.status).toBe(0);
      const res = await postStatus(receipt.hash, 1, swap.dexHash);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        fromChainId: 1,
        toChainId: 137,
        fromTxHash: receipt.hash,
        toTxHash: null,
        fromAmount: '3000000',
        toAmount: null,
        fromTokenAddress: t.inTokenAddress,
        toTokenAddress: t.outTokenAddress,
        bridgeHash: null,
        errorMsg: null,
        status: 'FROM_FAILURE',
        detailStatus: 'FROM_FAILURE',
      });
    });

    it('reports a transaction that holds no transfer of the provider as INVALID', async () => {
      const { provider } = chains[1]!;
      const tx = await user
        .connect(provider)
        .sendTransaction({ to: Wallet.createRandom().address, value: 1n });
      const receipt = await waitForReceipt(provider, tx.hash, 60_000);
      const res = await postStatus(receipt.hash, 1, dexHashOf('tas-intent'));
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        fromChainId: 1,
        toChainId: null,
        fromTxHash: receipt.hash,
        status: 'INVALID',
        detailStatus: 'INVALID',
        errorMsg: null,
      });
    });

    it('answers 500 TX_STATUS_ERROR for a transaction the chain does not know', async () => {
      const res = await postStatus(`0x${'12'.repeat(32)}`, 1, dexHashOf('tas-canonical'));
      expect(res.status).toBe(500);
      expect(res.body.error).toEqual({
        code: 'TX_STATUS_ERROR',
        message: expect.stringMatching(/not known on chain 1/),
        details: [],
      });
    });
  });
});
