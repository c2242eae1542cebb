import { keccak256, Wallet } from 'ethers';
import { ExecutorWallet } from '../../keeper/outbox/executor-wallet';
import { FeePolicy } from '../../keeper/outbox/fee-policy';
import { followTransaction, type RecordedTx } from '../../keeper/outbox/follow-transaction';
import type { SendPolicy } from '../../keeper/outbox/send-policy';
import type { ChainClient } from '../../shared/chain/chain-client';
import { createLogger } from '../../shared/log/create-logger';

const log = createLogger('silent', 'test');
const KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
const GWEI = 1_000_000_000n;

/** A node as the follow path reads it: receipts, known hashes, the sender's mined count. */
class FakeNode {
  receipts = new Map<string, { hash: string; blockNumber: number; blockHash: string; status: number }>();
  known = new Set<string>();
  latestCount = 5;

  client(): ChainClient {
    return {
      chainId: 1,
      getReceiptSummary: async (hash: string) => this.receipts.get(hash) ?? null,
      getTransaction: async (hash: string) => (this.known.has(hash) ? { hash } : null),
      send: async (method: string) => {
        if (method === 'eth_getTransactionCount') return `0x${this.latestCount.toString(16)}`;
        throw new Error(`unexpected ${method}`);
      },
    } as unknown as ChainClient;
  }
}

/** Records what goes out, and through which call. */
class RecordingPolicy implements SendPolicy {
  readonly out: Array<{ call: 'broadcast' | 'rebroadcast'; raw: string }> = [];
  constructor(readonly publicPool: boolean) {}
  async broadcast(raw: string): Promise<void> {
    this.out.push({ call: 'broadcast', raw });
  }
  async rebroadcast(raw: string): Promise<void> {
    this.out.push({ call: 'rebroadcast', raw });
  }
}

async function signedTx(nonce: number, maxFee = 10n * GWEI): Promise<{ raw: string; hash: string }> {
  const raw = await new Wallet(KEY).signTransaction({
    chainId: 1n,
    nonce,
    to: '0x000000000000000000000000000000000000dEaD',
    data: '0x',
    gasLimit: 21_000n,
    type: 2,
    maxFeePerGas: maxFee,
    maxPriorityFeePerGas: GWEI,
  });
  return { raw, hash: keccak256(raw) };
}

function setup(opts: { publicPool?: boolean; capGwei?: bigint } = {}) {
  const node = new FakeNode();
  const policy = new RecordingPolicy(opts.publicPool ?? true);
  const rpc = { chainId: 1, send: async () => '0x0' };
  const wallet = new ExecutorWallet(new Wallet(KEY), rpc, { sendPolicy: policy });
  const fees = new FeePolicy(rpc, { maxFeePerGasCap: (opts.capGwei ?? 1000n) * GWEI });
  const recorded: string[] = [];
  const deps = {
    client: node.client(),
    policy,
    log,
    replacing: {
      wallet,
      fees,
      afterBlocks: 3,
      record: async (signed: { hash: string }) => (recorded.push(signed.hash), true),
    },
  };
  return { node, policy, deps, recorded, sender: wallet.address };
}

async function recordOf(sender: string, nonce: number, sentBlock: number | null): Promise<RecordedTx> {
  const { raw, hash } = await signedTx(nonce);
  return { hashes: [hash], rawTx: raw, nonce, sender, sentBlock };
}

describe('the outbox follow path', () => {
  it('finds the receipt of any hash signed for the nonce, the latest first', async () => {
    const { node, deps, sender, policy } = setup();
    const first = await recordOf(sender, 5, 100);
    const bump = await signedTx(5, 20n * GWEI);
    const tx = { ...first, hashes: [first.hashes[0]!, bump.hash], rawTx: bump.raw };
    node.receipts.set(first.hashes[0]!, {
      hash: first.hashes[0]!,
      blockNumber: 101,
      blockHash: '0xb',
      status: 1,
    });
    const fate = await followTransaction(tx, 102, deps);
    expect(fate).toMatchObject({ kind: 'mined', receipt: { hash: first.hashes[0] } });
    expect(policy.out).toEqual([]);
  });

  it('calls it dropped when no hash is known and the nonce is used by another transaction', async () => {
    const { node, deps, sender, policy } = setup();
    node.latestCount = 6;
    expect(await followTransaction(await recordOf(sender, 5, 100), 101, deps)).toEqual({ kind: 'dropped' });
    expect(policy.out).toEqual([]);
  });

  it('puts a recorded transaction never put out (a crash, a reopened batch) out again as it is', async () => {
    const { deps, sender, policy, recorded } = setup();
    const tx = await recordOf(sender, 5, null);
    expect(await followTransaction(tx, 200, deps)).toEqual({ kind: 'pending', rebroadcast: true });
    expect(policy.out).toEqual([{ call: 'rebroadcast', raw: tx.rawTx }]);
    expect(recorded).toEqual([]);
  });

  it('replaces at once, with higher fees recorded first, one the public node forgot after it was put out', async () => {
    const { deps, sender, policy, recorded } = setup();
    const tx = await recordOf(sender, 5, 100);
    const fate = await followTransaction(tx, 101, deps);
    expect(fate).toMatchObject({ kind: 'pending', rebroadcast: false });
    expect(recorded).toHaveLength(1);
    expect(fate.kind === 'pending' && fate.replacedBy).toBe(recorded[0]);
    expect(policy.out).toEqual([{ call: 'broadcast', raw: expect.any(String) }]);
  });

  it('through a private relay the public node cannot see, puts the same transaction out until it waited long enough', async () => {
    const { deps, sender, policy, recorded } = setup({ publicPool: false });
    const tx = await recordOf(sender, 5, 100);
    expect(await followTransaction(tx, 102, deps)).toEqual({ kind: 'pending', rebroadcast: true });
    expect(policy.out).toEqual([{ call: 'rebroadcast', raw: tx.rawTx }]);
    expect(recorded).toEqual([]);
    const fate = await followTransaction(tx, 103, deps);
    expect(fate.kind === 'pending' && fate.replacedBy).toBe(recorded[0]);
  });

  it('leaves a known transaction alone until it waited the blocks, then replaces it; under the cap it is only put out again', async () => {
    const { node, deps, sender, recorded } = setup();
    const tx = await recordOf(sender, 5, 100);
    node.known.add(tx.hashes[0]!);
    expect(await followTransaction(tx, 102, deps)).toEqual({ kind: 'pending', rebroadcast: false });
    expect(recorded).toEqual([]);
    expect((await followTransaction(tx, 103, deps)).kind).toBe('pending');
    expect(recorded).toHaveLength(1);

    const capped = setup({ capGwei: 10n });
    capped.node.known.add(tx.hashes[0]!);
    expect(await followTransaction(tx, 110, capped.deps)).toEqual({ kind: 'pending', rebroadcast: true });
    expect(capped.recorded).toEqual([]);
    expect(capped.policy.out).toEqual([{ call: 'rebroadcast', raw: tx.rawTx }]);
  });
});
