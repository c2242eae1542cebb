import { randomUUID } from 'node:crypto';
import { getAddress, Wallet, zeroPadValue } from 'ethers';
import {
  lockReleaseBridgeInterface,
  crossChainEntryInterface,
  spokePoolInterface,
} from '../../shared/bridges/contracts';
import { buildFactsOf, calldataHash, linkDeposit, type SourceTx } from '../../shared/bridges/transfer-builds';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { ChainRegistry } from '../../shared/chain/chain-registry';
import { NATIVE_TOKEN_ADDRESS } from '../../shared/domain/addresses';
import { createLogger } from '../../shared/log/create-logger';
import type { NewTransfer, Transfer } from '../../shared/store/repositories/transfers-repository';
import { openStore, type Store } from '../../shared/store/store';
import { KeeperMetrics } from '../../keeper/keeper-metrics';
import { DepositIndexStage } from '../../keeper/relay/deposit-index-stage';
import { createStoreTarget, describeEachStore, type StoreTarget } from '../helpers/store-targets';

/**
 * `transfer.updated` (issue 25): a transfer whose source transaction a key's POST /swap built sends that key an
 * event for each change of what POST /tx-status shows, written with the keeper's move; a deposit of anything else
 * (another key's calldata sent from another wallet, a deposit shaped like a build made straight to the SpokePool,
 * calldata two keys built alike, a deposit nobody built through the API) sends nothing to anyone.
 */

const NOW = 1_800_000_000_000;
const LEASE_MS = 30_000;
const OWNER = 'keeper-a';
const ORIGIN = 1;
const DEST = 137;
const SPOKE = getAddress('0x5fbdb2315678afecb367f032d93f642f64180aa3');
const BRIDGE = getAddress('0x9fe46736679d2d9a65f0992f2272de9f3c7fa6e0');
const ENTRY = getAddress('0xe7f1725e7734ce288f8367e1bb143e90bb3f0512');
const USDC_1 = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const USDC_137 = getAddress('0x2791bca1f2de4661ed88a30c99a7a9449aa84174');
const WETH_1 = getAddress('0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2');
const WETH_137 = getAddress('0x7ceb23fd6bc0add59e62ac25578270cff1b9f619');
const RELAYER = getAddress('0x70997970c51812dc3a010c7d01b50e0d17dc79c8');
const INTEGRATOR = getAddress('0x15d34aaf54267db7d7c367839aaf71a00a2c6a65');
const KEY_A = randomUUID();
const KEY_B = randomUUID();
const WRAPPED: Record<number, string> = { [ORIGIN]: WETH_1, [DEST]: WETH_137 };
const chains = {
  get: (chainId: number) => ({ wrappedNative: WRAPPED[chainId] }),
} as unknown as ChainRegistry;

const hash = (n: number): string => `0x${n.toString(16).padStart(64, '0')}`;
const bytes32 = (address: string): string => zeroPadValue(address, 32).toLowerCase();

interface IntentArgs {
  account: string;
  inputToken?: string;
  inputAmount?: bigint;
  outputToken?: string;
  outputAmount?: bigint;
  deadline?: bigint;
}

/** CrossChainEntry.depositIntent calldata as the intent provider builds it for `account`. */
function intentCalldata(a: IntentArgs): string {
  return crossChainEntryInterface().encodeFunctionData('depositIntent', [
    {
      inputToken: a.inputToken ?? USDC_1,
      inputAmount: a.inputAmount ?? 1_000_000n,
      outputToken: a.outputToken ?? USDC_137,
      outputAmount: a.outputAmount ?? 990_000n,
      destinationChainId: DEST,
      recipient: a.account,
      exclusiveRelayer: RELAYER,
      quoteTimestamp: 1_800_000_000,
      fillDeadline: 1_800_003_600,
      exclusivityParameter: 30,
    },
    { protocolFee: 1_500n, integratorFee: 3_000n, integratorFeeRecipient: INTEGRATOR },
    a.deadline ?? 1_800_000_300n,
  ]);
}

function lockCalldata(account: string, deadline = 1_800_000_300n): string {
  return crossChainEntryInterface().encodeFunctionData('lock', [
    {
      inputToken: USDC_1,
      inputAmount: 2_000_000n,
      outputToken: USDC_137,
      outputAmount: 1_998_000n,
      destinationChainId: DEST,
      recipient: account,
    },
    {
      protocolFee: 3_000n,
      integratorFee: 0n,
      integratorFeeRecipient: '0x0000000000000000000000000000000000000000',
    },
    deadline,
  ]);
}

/** The FundsDeposited log a SpokePool emits for the call (depositor: the entry's caller). */
function fundsDeposited(a: IntentArgs & { depositor: string; depositId: number }): {
  topics: string[];
  data: string;
} {
  const iface = spokePoolInterface();
  return iface.encodeEventLog('FundsDeposited', [
    bytes32(a.inputToken ?? USDC_1),
    bytes32(a.outputToken ?? USDC_137),
    a.inputAmount ?? 1_000_000n,
    a.outputAmount ?? 990_000n,
    DEST,
    a.depositId,
    1_800_000_000,
    1_800_003_600,
    1_800_000_030,
    bytes32(a.depositor),
    bytes32(a.account),
    bytes32(RELAYER),
    '0x',
  ]);
}

function locked(account: string, depositor: string, nonce: number): { topics: string[]; data: string } {
  const iface = lockReleaseBridgeInterface();
  const event = iface.getEvent('Locked')!;
  const values: Record<string, unknown> = {
    nonce,
    depositor,
    destinationChainId: DEST,
    inputToken: USDC_1,
    inputAmount: 2_000_000n,
    outputToken: USDC_137,
    outputAmount: 1_998_000n,
    recipient: account,
    deadline: 1_800_003_600,
    feesPaid: true,
  };
  return iface.encodeEventLog(
    event,
    event.inputs.map((input) => values[input.name]),
  );
}

interface ChainTx extends SourceTx {
  hash: string;
}
interface ChainLog {
  address: string;
  topics: string[];
  data: string;
  txHash: string;
  block: number;
}

/** The origin chain as the indexer reads it: blocks, the contracts' logs and the transactions. */
class FakeOrigin {
  head = 100;
  readonly logs: ChainLog[] = [];
  readonly txs = new Map<string, ChainTx>();

  /** A mined transaction and the log it made. */
  add(tx: ChainTx, log: Omit<ChainLog, 'txHash' | 'block'>): void {
    this.head += 1;
    this.txs.set(tx.hash, tx);
    this.logs.push({ ...log, txHash: tx.hash, block: this.head });
  }

  client(): ChainClient {
    const blockHash = (n: number) => hash(1_000_000 + n);
    return {
      chainId: ORIGIN,
      blockNumber: async () => this.head,
      getBlock: async (n: number) => ({ number: n, hash: blockHash(n), timestamp: 1_800_000_000 + n }),
      getTransaction: async (h: string) => this.txs.get(h) ?? null,
      send: async (
        method: string,
        params: Array<{ address: string; fromBlock: string; toBlock: string }>,
      ) => {
        if (method !== 'eth_getLogs') throw new Error(`unexpected ${method}`);
        const [{ address, fromBlock, toBlock }] = params;
        return this.logs
          .filter(
            (l) =>
              l.address.toLowerCase() === address.toLowerCase() &&
              l.block >= Number(fromBlock) &&
              l.block <= Number(toBlock),
          )
          .map((l) => ({
            address: l.address,
            topics: l.topics,
            data: l.data,
            blockNumber: `0x${l.block.toString(16)}`,
            blockHash: blockHash(l.block),
            transactionHash: l.txHash,
            logIndex: '0x0',
          }));
      },
    } as unknown as ChainClient;
  }
}

interface EventRow {
  api_key: string;
  type: string;
  resource_id: string;
  body: string;
}

describeEachStore('transfer.updated events', (kind) => {
  let target: StoreTarget;
  let store: Store;
  let origin: FakeOrigin;
  let stage: DepositIndexStage;
  let metrics: KeeperMetrics;
  let txSeq = 0;
  const user = Wallet.createRandom().address;
  const stranger = Wallet.createRandom().address;

  beforeAll(async () => {
    target = await createStoreTarget(kind);
    store = await openStore({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
    metrics = new KeeperMetrics();
  });

  afterAll(async () => {
    await store?.close();
    await target?.cleanup();
  });

  beforeEach(async () => {
    for (const table of [
      'events',
      'transfer_builds',
      'cross_chain_root_bundles',
      'cross_chain_transfers',
      'cross_chain_cursors',
    ])
      await store.knex(table).del();
    origin = new FakeOrigin();
    stage = new DepositIndexStage({
      chainId: ORIGIN,
      client: origin.client(),
      clients: { find: (chainId) => (chainId === DEST || chainId === ORIGIN ? origin.client() : undefined) },
      contracts: [
        { provider: 'intent', address: SPOKE },
        { provider: 'lock-release', address: BRIDGE },
      ],
      transfers: store.transfers,
      rootBundles: store.rootBundles,
      metrics,
      owner: OWNER,
      leaseMs: LEASE_MS,
      log: createLogger('silent', 'test'),
      now: () => NOW,
    });
  });

  /** POST /swap's record of calldata built for `account` by `apiKey`. */
  async function built(apiKey: string, account: string, data: string, providerId = 'tas-intent', value = 0n) {
    const facts = buildFactsOf(chains, providerId, ORIGIN, account, { to: ENTRY, data, value });
    if (!facts) throw new Error('not a build of our bridges');
    await store.transfers.recordBuild({ ...facts, apiKey }, NOW);
    return facts;
  }

  /** A transaction mined on the origin: `from` sends `data` to `to`, and the SpokePool or bridge logs `log`. */
  function mined(
    tx: Omit<ChainTx, 'hash'>,
    log: { address: string; topics: string[]; data: string },
  ): string {
    txSeq += 1;
    const h = hash(txSeq);
    origin.add({ ...tx, hash: h }, log);
    return h;
  }

  async function indexed(txHash: string): Promise<Transfer> {
    await stage.run(origin.head, NOW, true);
    const [row] = await store.transfers.listByDepositTx(ORIGIN, txHash);
    if (!row) throw new Error(`deposit of ${txHash} not indexed`);
    return row;
  }

  async function events(): Promise<Array<EventRow & { data: Record<string, unknown> }>> {
    const rows: EventRow[] = await store
      .knex('events')
      .where('type', 'transfer.updated')
      .orderBy('seq', 'asc');
    return rows.map((row) => {
      const body = JSON.parse(row.body) as { type: string; data: Record<string, unknown> };
      expect(body.type).toBe('transfer.updated');
      return { ...row, data: body.data };
    });
  }

  it('sends the building key an event per status change of its intent, with the /tx-status data, in order', async () => {
    const data = intentCalldata({ account: user });
    await built(KEY_A, user, data);
    // Key B built other calldata for the same account: it never gets this transfer.
    await built(KEY_B, user, intentCalldata({ account: user, inputAmount: 1_000_001n }));
    const txHash = mined(
      { from: user, to: ENTRY, data, value: 0n },
      { address: SPOKE, ...fundsDeposited({ account: user, depositor: user, depositId: 7 }) },
    );
    const t = await indexed(txHash);
    expect(t.apiKey).toBe(KEY_A);
    expect(t.source).toEqual({ amount: '1004500', token: USDC_1, deliveredToken: USDC_137 });

    const base = {
      fromChainId: ORIGIN,
      toChainId: DEST,
      fromTxHash: txHash,
      toTxHash: null,
      fromAmount: '1004500',
      toAmount: null,
      fromTokenAddress: USDC_1,
      toTokenAddress: USDC_137,
      bridgeHash: t.relayHash,
      errorMsg: null,
    };
    expect(await events()).toEqual([
      expect.objectContaining({
        api_key: KEY_A,
        resource_id: t.id,
        data: { ...base, status: 'PENDING', detailStatus: 'WAITING' },
      }),
    ]);
    // The data is exactly /tx-status's, in its field order.
    expect(Object.keys((await events())[0]!.data)).toEqual([
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

    // Indexed again (a re-read of the same block): nothing new.
    await store.knex('cross_chain_cursors').del();
    await stage.run(origin.head, NOW, true);
    expect(await events()).toHaveLength(1);

    // Confirmed and looked at: BRIDGE_PENDING once, however often it is put off.
    expect(await store.transfers.postpone(t.id, NOW + 1, 'relayer inventory too low', NOW + 1)).toBe(true);
    expect(await store.transfers.postpone(t.id, NOW + 2, 'relayer inventory too low', NOW + 2)).toBe(true);
    expect(await store.transfers.claim(t.id, OWNER, LEASE_MS, NOW + 3)).toBeDefined();
    const fill = { txHash: hash(9001), rawTx: '0x02', sender: RELAYER, nonce: 1, sentBlock: 50 };
    expect(await store.transfers.markSubmitted(t.id, OWNER, fill, LEASE_MS, NOW + 4)).toBe(true);
    // A dropped fill hands it back: still BRIDGE_PENDING.
    expect(await store.transfers.releaseLease(t.id, OWNER, NOW + 5, { attempt: true })).toBe(true);
    expect(await store.transfers.claim(t.id, OWNER, LEASE_MS, NOW + 6)).toBeDefined();
    expect(
      await store.transfers.markFilled(
        t.id,
        { txHash: hash(9002), blockNumber: 60, blockHash: hash(9003) },
        NOW + 7,
      ),
    ).toBe(true);
    // The destination block of the fill left the chain, then the fill is found again.
    expect(await store.transfers.markFillReorged(t.id, OWNER, LEASE_MS, NOW + 8)).toBe(true);
    expect(
      await store.transfers.markFilled(
        t.id,
        { txHash: hash(9004), blockNumber: 61, blockHash: hash(9005) },
        NOW + 9,
      ),
    ).toBe(true);
    // Repaid to the relayer: the status shows the same SUCCESS, no event.
    const bundle = await store.rootBundles.create(
      {
        chainId: ORIGIN,
        spokePool: SPOKE,
        root: hash(1),
        leaves: [],
        assignments: [{ transferId: t.id, kind: 'repayment', leafId: 0 }],
      },
      OWNER,
      LEASE_MS,
      NOW + 10,
    );
    expect(await store.rootBundles.markRelayed(bundle!.id, 3, NOW + 11)).toBe(true);
    expect(await store.rootBundles.markLeafExecuted(bundle!.id, 0, hash(9006), NOW + 12)).toEqual({
      repaid: 1,
      refunded: 0,
    });
    expect((await store.transfers.findById(t.id))?.status).toBe('repaid');

    const sent = await events();
    expect(sent.map((e) => e.api_key)).toEqual([KEY_A, KEY_A, KEY_A, KEY_A, KEY_A]);
    expect(sent.map((e) => e.data)).toEqual([
      { ...base, status: 'PENDING', detailStatus: 'WAITING' },
      { ...base, status: 'PENDING', detailStatus: 'BRIDGE_PENDING' },
      { ...base, toTxHash: hash(9002), toAmount: '990000', status: 'SUCCESS', detailStatus: 'SUCCESS' },
      { ...base, status: 'PENDING', detailStatus: 'BRIDGE_PENDING' },
      { ...base, toTxHash: hash(9004), toAmount: '990000', status: 'SUCCESS', detailStatus: 'SUCCESS' },
    ]);
  });

  it('sends REFUND_PENDING and then REFUND for an expired deposit refunded through a root bundle', async () => {
    // A native input: the status shows the native pseudo-address, the value is part of the build.
    const data = intentCalldata({ account: user, inputToken: WETH_1, inputAmount: 10n ** 17n });
    const facts = await built(KEY_A, user, data, 'tas-intent', 10n ** 17n + 4_500n);
    expect(facts.source.token).toBe(NATIVE_TOKEN_ADDRESS);
    const txHash = mined(
      { from: user, to: ENTRY, data, value: 10n ** 17n + 4_500n },
      {
        address: SPOKE,
        ...fundsDeposited({
          account: user,
          depositor: user,
          depositId: 8,
          inputToken: WETH_1,
          inputAmount: 10n ** 17n,
        }),
      },
    );
    const t = await indexed(txHash);
    expect(t.apiKey).toBe(KEY_A);
    expect(await store.transfers.postpone(t.id, NOW + 1, 'past its fill deadline', NOW + 1)).toBe(true);
    expect(await store.transfers.markExpired(t.id, NOW + 2)).toBe(true);
    const bundle = await store.rootBundles.create(
      {
        chainId: ORIGIN,
        spokePool: SPOKE,
        root: hash(2),
        leaves: [],
        assignments: [{ transferId: t.id, kind: 'refund', leafId: 0 }],
      },
      OWNER,
      LEASE_MS,
      NOW + 3,
    );
    await store.rootBundles.markRelayed(bundle!.id, 4, NOW + 4);
    await store.rootBundles.markLeafExecuted(bundle!.id, 0, hash(9100), NOW + 5);
    const sent = await events();
    expect(sent.map((e) => [e.api_key, e.data.status, e.data.detailStatus])).toEqual([
      [KEY_A, 'PENDING', 'WAITING'],
      [KEY_A, 'PENDING', 'BRIDGE_PENDING'],
      [KEY_A, 'PENDING', 'REFUND_PENDING'],
      [KEY_A, 'REFUND', 'REFUND'],
    ]);
    expect(sent[0]!.data).toMatchObject({
      fromAmount: (10n ** 17n + 4_500n).toString(),
      fromTokenAddress: NATIVE_TOKEN_ADDRESS,
      toTokenAddress: USDC_137,
    });
  });

  it('follows a lock through its delayed release, and a lock reorged out of its block', async () => {
    const data = lockCalldata(user);
    await built(KEY_B, user, data, 'tas-canonical');
    const txHash = mined(
      { from: user, to: ENTRY, data, value: 0n },
      { address: BRIDGE, ...locked(user, user, 3) },
    );
    const t = await indexed(txHash);
    expect(t.apiKey).toBe(KEY_B);
    expect(await store.transfers.claim(t.id, OWNER, LEASE_MS, NOW + 1)).toBeDefined();
    expect(
      await store.transfers.markReleaseQueued(
        t.id,
        { txHash: hash(9200), blockNumber: 70, blockHash: hash(1) },
        NOW + 2,
      ),
    ).toBe(true);
    expect(
      await store.transfers.markFilled(
        t.id,
        { txHash: hash(9201), blockNumber: 80, blockHash: hash(2) },
        NOW + 3,
      ),
    ).toBe(true);
    const sent = await events();
    expect(sent.map((e) => [e.api_key, e.data.status, e.data.detailStatus, e.data.toTxHash])).toEqual([
      [KEY_B, 'PENDING', 'WAITING', null],
      [KEY_B, 'PENDING', 'BRIDGE_PENDING', null],
      [KEY_B, 'PENDING', 'RELEASE_DELAYED', null],
      [KEY_B, 'SUCCESS', 'SUCCESS', hash(9201)],
    ]);
    expect(sent[3]!.data).toMatchObject({ bridgeHash: '3', fromAmount: '2003000', toAmount: '1998000' });

    // Another lock of the same build's account, confirmed, then its block leaves the chain: WAITING again.
    const second = lockCalldata(user, 1_800_000_301n);
    await built(KEY_B, user, second, 'tas-canonical');
    const h2 = mined(
      { from: user, to: ENTRY, data: second, value: 0n },
      { address: BRIDGE, ...locked(user, user, 4) },
    );
    const t2 = await indexed(h2);
    expect(t2.apiKey).toBe(KEY_B);
    await store.transfers.postpone(t2.id, NOW + 5, 'acceptance not confirmed yet', NOW + 5);
    expect(await store.transfers.markReorged(t2.id, NOW + 6)).toBe(true);
    const mine = (await events()).filter((e) => e.resource_id === t2.id);
    expect(mine.map((e) => e.data.detailStatus)).toEqual(['WAITING', 'BRIDGE_PENDING', 'WAITING']);
  });

  it('sends nothing for lookalikes, copies, calldata two keys built alike, and deposits nobody built', async () => {
    const data = intentCalldata({ account: user });
    await built(KEY_A, user, data);
    // 1. Key A's calldata copied and sent from another wallet: the deposit is the stranger's.
    const copied = mined(
      { from: stranger, to: ENTRY, data: intentCalldata({ account: user }), value: 0n },
      { address: SPOKE, ...fundsDeposited({ account: user, depositor: stranger, depositId: 20 }) },
    );
    // 2. A deposit shaped exactly like key A's build, made straight to the SpokePool in the account's name.
    const direct = spokePoolInterface().encodeFunctionData('deposit', [
      bytes32(user),
      bytes32(user),
      bytes32(USDC_1),
      bytes32(USDC_137),
      1_000_000n,
      990_000n,
      DEST,
      bytes32(RELAYER),
      1_800_000_000,
      1_800_003_600,
      30,
      '0x',
    ]);
    const lookalike = mined(
      { from: stranger, to: SPOKE, data: direct, value: 0n },
      { address: SPOKE, ...fundsDeposited({ account: user, depositor: user, depositId: 21 }) },
    );
    // 3. The build's exact calldata, but the deposit in the transaction is not the one it asks for.
    const other = mined(
      { from: user, to: ENTRY, data, value: 0n },
      {
        address: SPOKE,
        ...fundsDeposited({ account: stranger, depositor: user, depositId: 22, outputAmount: 1n }),
      },
    );
    // 4. Calldata keys A and B both built for the same account: it is neither's.
    const shared = intentCalldata({ account: user, deadline: 1_800_000_301n });
    await built(KEY_A, user, shared);
    await built(KEY_B, user, shared);
    const both = mined(
      { from: user, to: ENTRY, data: shared, value: 0n },
      { address: SPOKE, ...fundsDeposited({ account: user, depositor: user, depositId: 23 }) },
    );
    // 5. A transfer nobody built through the API (the wallet has no build).
    const unbuilt = mined(
      { from: stranger, to: ENTRY, data: intentCalldata({ account: stranger }), value: 0n },
      { address: SPOKE, ...fundsDeposited({ account: stranger, depositor: stranger, depositId: 24 }) },
    );
    // 6. The build's calldata with another value.
    const value = mined(
      { from: user, to: ENTRY, data, value: 1n },
      { address: SPOKE, ...fundsDeposited({ account: user, depositor: user, depositId: 25 }) },
    );
    await stage.run(origin.head, NOW, true);
    const rows = await Promise.all(
      [copied, lookalike, other, both, unbuilt, value].map(async (h) => {
        const [row] = await store.transfers.listByDepositTx(ORIGIN, h);
        return row!;
      }),
    );
    expect(rows.map((r) => r.apiKey)).toEqual([null, null, null, null, null, null]);
    for (const r of rows) {
      await store.transfers.postpone(r.id, NOW + 1, 'not yet', NOW + 1);
      await store.transfers.claim(r.id, OWNER, LEASE_MS, NOW + 2);
      await store.transfers.markFilled(
        r.id,
        { txHash: hash(9300), blockNumber: 1, blockHash: hash(3) },
        NOW + 3,
      );
    }
    expect(await events()).toEqual([]);
  });

  it('links a deposit to the one build that made it, and re-links a deposit re-read after a reorg', async () => {
    const data = intentCalldata({ account: user });
    const facts = await built(KEY_A, user, data);
    const deposit: NewTransfer = {
      provider: 'intent',
      originChainId: ORIGIN,
      destinationChainId: DEST,
      depositId: '40',
      depositor: bytes32(user),
      recipient: bytes32(user),
      exclusiveRelayer: bytes32(RELAYER),
      inputToken: bytes32(USDC_1),
      outputToken: bytes32(USDC_137),
      inputAmount: 1_000_000n,
      outputAmount: 990_000n,
      message: '0x',
      quoteTimestamp: 1_800_000_000,
      fillDeadline: 1_800_003_600,
      exclusivityDeadline: 1_800_000_030,
      relayHash: hash(40),
      originContract: SPOKE,
      depositTxHash: hash(41),
      depositBlockNumber: 10,
      depositBlockHash: hash(42),
      depositLogIndex: 0,
    };
    const builds = await store.transfers.buildsOf(ORIGIN, user, calldataHash(data));
    expect(builds).toHaveLength(1);
    const build = linkDeposit(deposit, { from: user, to: ENTRY, data, value: 0n }, builds)!;
    expect(build).toMatchObject({ apiKey: KEY_A, calldataHash: facts.calldataHash });
    const link = { apiKey: build.apiKey, buildId: build.id, source: build.source };
    expect(await store.transfers.upsertDeposit(deposit, NOW, link)).toBe('inserted');
    const t = (await store.transfers.findByDeposit('intent', ORIGIN, '40'))!;
    expect(await store.transfers.markReorged(t.id, NOW + 1)).toBe(true);
    // Found again in another transaction that is nobody's build: the transfer is no longer key A's.
    expect(
      await store.transfers.upsertDeposit(
        { ...deposit, depositTxHash: hash(43), depositBlockHash: hash(44) },
        NOW + 2,
      ),
    ).toBe('updated');
    expect((await store.transfers.findById(t.id))?.apiKey).toBeNull();
    await store.transfers.postpone(t.id, NOW + 3, 'not yet', NOW + 3);
    // Key A heard of it until it became another transaction's; nothing since.
    expect((await events()).map((e) => [e.api_key, e.data.detailStatus])).toEqual([[KEY_A, 'WAITING']]);
  });
});
