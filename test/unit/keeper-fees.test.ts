import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { Wallet, encryptKeystoreJson } from 'ethers';
import { RpcUnavailableError } from '../../shared/chain/rpc-errors';
import { loadExecutorWallets, parsePrivateKeyList } from '../../keeper/submit/executor-keys';
import {
  FeePolicy,
  bumped,
  replacementFees,
  type Eip1559Fees,
  type TxFees,
} from '../../keeper/outbox/fee-policy';
import { ExecutorWallet } from '../../keeper/outbox/executor-wallet';
import { NonceManager } from '../../keeper/outbox/nonce-manager';
import type { RawRpc } from '../../keeper/outbox/raw-rpc';
import { SendError, classifyBroadcastFailure } from '../../keeper/outbox/send-error';

/** Fee math, key loading and nonce bookkeeping of the keeper's submit stage, against a scripted RPC. */

const GWEI = 10n ** 9n;
const hex = (n: bigint) => `0x${n.toString(16)}`;

type Answer = unknown | ((params: readonly unknown[]) => unknown);

/** Answers per method; an Error value is thrown; a method without an answer is "method not found". */
function scriptedRpc(answers: Record<string, Answer>): RawRpc & { calls: string[] } {
  const calls: string[] = [];
  return {
    chainId: 1,
    calls,
    async send(method: string, params: readonly unknown[] = []) {
      calls.push(method);
      if (!(method in answers)) throw Object.assign(new Error('method not found'), { code: -32601 });
      const answer = answers[method];
      const value =
        typeof answer === 'function' ? (answer as (p: readonly unknown[]) => unknown)(params) : answer;
      if (value instanceof Error) throw value;
      return value;
    },
  };
}

const unavailable = () => new RpcUnavailableError(1, 'eth_feeHistory', 3, new Error('connect ECONNREFUSED'));

describe('replacement fees', () => {
  it('raises both EIP-1559 fields by at least 12.5%, rounded up, plus 1 wei', () => {
    expect(bumped(1000n)).toBe(1126n);
    // 1001 × 1.125 = 1126.125 → 1127, + 1.
    expect(bumped(1001n)).toBe(1128n);
    expect(bumped(0n)).toBe(1n);
    const prev: Eip1559Fees = { type: 2, maxFeePerGas: 30n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(replacementFees(prev, 100n * GWEI)).toEqual({
      kind: 'ok',
      fees: { type: 2, maxFeePerGas: 33_750_000_001n, maxPriorityFeePerGas: 2_250_000_001n },
    });
  });

  it('is at least 12.5% higher on both fields for any fees under any sufficient cap', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.bigInt({ min: 0n, max: 10n ** 14n }),
        (a, b, extraCap) => {
          const maxFee = a > b ? a : b;
          const priority = a > b ? b : a;
          const cap = bumped(maxFee) + extraCap;
          const result = replacementFees(
            { type: 2, maxFeePerGas: maxFee, maxPriorityFeePerGas: priority },
            cap,
          );
          if (result.kind !== 'ok' || result.fees.type !== 2) throw new Error('expected EIP-1559 fees');
          expect(result.fees.maxFeePerGas * 1000n).toBeGreaterThanOrEqual(maxFee * 1125n + 1000n);
          expect(result.fees.maxPriorityFeePerGas * 1000n).toBeGreaterThanOrEqual(priority * 1125n + 1000n);
          expect(result.fees.maxPriorityFeePerGas).toBeLessThanOrEqual(result.fees.maxFeePerGas);
          expect(result.fees.maxFeePerGas).toBeLessThanOrEqual(cap);
        },
      ),
    );
  });

  it('follows the market when it moved more than the bump, trimmed to the cap', () => {
    const prev: TxFees = { type: 2, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 1n * GWEI };
    const market: TxFees = { type: 2, maxFeePerGas: 60n * GWEI, maxPriorityFeePerGas: 3n * GWEI };
    expect(replacementFees(prev, 100n * GWEI, market)).toEqual({
      kind: 'ok',
      fees: { type: 2, maxFeePerGas: 60n * GWEI, maxPriorityFeePerGas: 3n * GWEI },
    });
    // The cap (40 gwei) is above the minimum bump (22.5 gwei): the replacement goes out at the cap.
    expect(replacementFees(prev, 40n * GWEI, market)).toEqual({
      kind: 'ok',
      fees: { type: 2, maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 3n * GWEI },
    });
  });

  it('reports a cap that leaves no valid replacement instead of sending an underpriced one', () => {
    const prev: TxFees = { type: 2, maxFeePerGas: 40n * GWEI, maxPriorityFeePerGas: 2n * GWEI };
    expect(replacementFees(prev, 45n * GWEI)).toEqual({
      kind: 'capped',
      neededPerGas: 45_000_000_001n,
      capPerGas: 45n * GWEI,
    });
    expect(replacementFees(prev, 45_000_000_001n).kind).toBe('ok');
    expect(new FeePolicy(scriptedRpc({}), { maxFeePerGasCap: 44n * GWEI }).bumpForReplacement(prev)).toEqual({
      kind: 'capped',
      neededPerGas: 45_000_000_001n,
      capPerGas: 44n * GWEI,
    });
  });

  it('bumps a legacy gas price the same way and keeps the legacy type', () => {
    expect(replacementFees({ type: 0, gasPrice: 8n * GWEI }, 20n * GWEI)).toEqual({
      kind: 'ok',
      fees: { type: 0, gasPrice: 9_000_000_001n },
    });
    expect(
      replacementFees({ type: 0, gasPrice: 8n * GWEI }, 20n * GWEI, { type: 0, gasPrice: 12n * GWEI }),
    ).toEqual({ kind: 'ok', fees: { type: 0, gasPrice: 12n * GWEI } });
    expect(replacementFees({ type: 0, gasPrice: 8n * GWEI }, 9n * GWEI)).toEqual({
      kind: 'capped',
      neededPerGas: 9_000_000_001n,
      capPerGas: 9n * GWEI,
    });
  });
});

describe('fees for a new transaction', () => {
  const block = (baseFee?: bigint) => ({
    number: '0x10',
    ...(baseFee !== undefined ? { baseFeePerGas: hex(baseFee) } : {}),
  });

  it('takes the base fee of the latest block and the median recent tip, ignoring empty blocks', async () => {
    const rpc = scriptedRpc({
      eth_getBlockByNumber: block(10n * GWEI),
      eth_feeHistory: {
        oldestBlock: '0xc',
        baseFeePerGas: [],
        gasUsedRatio: [0.5, 0, 0.9, 0.3],
        reward: [[hex(1n * GWEI)], ['0x0'], [hex(3n * GWEI)], [hex(2n * GWEI)]],
      },
    });
    const policy = new FeePolicy(rpc, { maxFeePerGasCap: 100n * GWEI });
    expect(await policy.current()).toEqual({
      kind: 'ok',
      fees: { type: 2, maxFeePerGas: 22n * GWEI, maxPriorityFeePerGas: 2n * GWEI },
      baseFeePerGas: 10n * GWEI,
    });
  });

  it('trims the headroom to the cap, and says too expensive when the next block alone is above it', async () => {
    const answers = {
      eth_getBlockByNumber: block(10n * GWEI),
      eth_feeHistory: { gasUsedRatio: [0.5], reward: [[hex(2n * GWEI)]] },
    };
    expect(await new FeePolicy(scriptedRpc(answers), { maxFeePerGasCap: 15n * GWEI }).current()).toEqual({
      kind: 'ok',
      fees: { type: 2, maxFeePerGas: 15n * GWEI, maxPriorityFeePerGas: 2n * GWEI },
      baseFeePerGas: 10n * GWEI,
    });
    expect(await new FeePolicy(scriptedRpc(answers), { maxFeePerGasCap: 11n * GWEI }).current()).toEqual({
      kind: 'too-expensive',
      neededPerGas: 12n * GWEI,
      capPerGas: 11n * GWEI,
      baseFeePerGas: 10n * GWEI,
    });
  });

  it('falls back to eth_maxPriorityFeePerGas, then to gas price minus base fee, and applies the tip floor', async () => {
    const suggested = scriptedRpc({
      eth_getBlockByNumber: block(10n * GWEI),
      eth_feeHistory: { gasUsedRatio: [0, 0], reward: [['0x0'], ['0x0']] },
      eth_maxPriorityFeePerGas: hex(3n * GWEI),
    });
    const viaSuggestion = await new FeePolicy(suggested, { maxFeePerGasCap: 100n * GWEI }).current();
    expect(viaSuggestion).toMatchObject({ kind: 'ok', fees: { maxPriorityFeePerGas: 3n * GWEI } });

    const bare = scriptedRpc({ eth_getBlockByNumber: block(10n * GWEI), eth_gasPrice: hex(14n * GWEI) });
    const viaGasPrice = await new FeePolicy(bare, { maxFeePerGasCap: 100n * GWEI }).current();
    expect(viaGasPrice).toMatchObject({
      kind: 'ok',
      fees: { type: 2, maxFeePerGas: 24n * GWEI, maxPriorityFeePerGas: 4n * GWEI },
    });
    expect(bare.calls).toEqual([
      'eth_getBlockByNumber',
      'eth_feeHistory',
      'eth_maxPriorityFeePerGas',
      'eth_gasPrice',
    ]);

    const floored = await new FeePolicy(bare, {
      maxFeePerGasCap: 100n * GWEI,
      minPriorityFeePerGas: 30n * GWEI,
    }).current();
    expect(floored).toMatchObject({ fees: { maxPriorityFeePerGas: 30n * GWEI, maxFeePerGas: 50n * GWEI } });
  });

  it('uses a legacy gas price on chains whose blocks have no base fee', async () => {
    const rpc = scriptedRpc({ eth_getBlockByNumber: block(), eth_gasPrice: hex(5n * GWEI) });
    expect(await new FeePolicy(rpc, { maxFeePerGasCap: 6n * GWEI }).current()).toEqual({
      kind: 'ok',
      fees: { type: 0, gasPrice: 5n * GWEI },
      baseFeePerGas: null,
    });
    expect(await new FeePolicy(rpc, { maxFeePerGasCap: 4n * GWEI }).current()).toEqual({
      kind: 'too-expensive',
      neededPerGas: 5n * GWEI,
      capPerGas: 4n * GWEI,
      baseFeePerGas: null,
    });
  });

  it('fails when the chain cannot be reached instead of guessing a fee', async () => {
    const rpc = scriptedRpc({ eth_getBlockByNumber: block(10n * GWEI), eth_feeHistory: unavailable() });
    await expect(new FeePolicy(rpc, { maxFeePerGasCap: 100n * GWEI }).current()).rejects.toBeInstanceOf(
      RpcUnavailableError,
    );
  });

  it('refuses a cap that is not positive', () => {
    expect(() => new FeePolicy(scriptedRpc({}), { maxFeePerGasCap: 0n })).toThrow('maxFeePerGasCap');
  });
});

describe('executor keys', () => {
  const KEY_A = '0x' + '11'.repeat(32);
  const KEY_B = '0x' + '22'.repeat(32);
  let dir: string;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'tas-keys-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A keystore with a cheap scrypt (N = 16): the default (2^17) takes seconds per file. */
  async function keystore(key: string, password: string): Promise<string> {
    const wallet = new Wallet(key);
    const json = await encryptKeystoreJson({ address: wallet.address, privateKey: key }, password, {
      scrypt: { N: 16 },
    });
    const file = join(dir, `${wallet.address}.json`);
    writeFileSync(file, json);
    return file;
  }

  it('splits the configured list, ignoring blanks', () => {
    expect(parsePrivateKeyList(` ${KEY_A}, ,${KEY_B},`)).toEqual([KEY_A, KEY_B]);
    expect(parsePrivateKeyList('')).toEqual([]);
  });

  it('loads keys from configuration and from keystore files, in that order', async () => {
    const file = await keystore(KEY_B, 'pa55-word');
    const wallets = await loadExecutorWallets({
      privateKeys: [KEY_A],
      keystoreFiles: [file],
      keystorePassword: 'pa55-word',
    });
    expect(wallets.map((w) => w.privateKey)).toEqual([KEY_A, KEY_B]);
    expect(wallets[1]!.address).toBe(new Wallet(KEY_B).address);
  });

  it('reads the password from a password file, without its final newline', async () => {
    const file = await keystore(KEY_A, 'from a file');
    const passwordFile = join(dir, 'password');
    writeFileSync(passwordFile, 'from a file\n');
    const [wallet] = await loadExecutorWallets({ keystoreFiles: [file], keystorePasswordFile: passwordFile });
    expect(wallet!.privateKey).toBe(KEY_A);
  });

  it('names a wrong password without repeating it', async () => {
    const file = await keystore(KEY_A, 'right-password');
    const failure = await loadExecutorWallets({
      keystoreFiles: [file],
      keystorePassword: 'wrong-Secret-42',
    }).then(
      () => undefined,
      (err: Error) => err,
    );
    expect(failure?.message).toBe(
      `cannot decrypt executor keystore ${file}: wrong password or not a JSON keystore`,
    );
    expect(failure?.message).not.toContain('wrong-Secret-42');
    expect(failure?.message).not.toContain('right-password');
  });

  it('refuses malformed keys without printing them', async () => {
    const almost = '0x' + 'ab'.repeat(31) + 'zz';
    const failure = await loadExecutorWallets({ privateKeys: [KEY_A, almost] }).catch((err: Error) => err);
    expect((failure as Error).message).toBe('executor private key #2 is not 0x followed by 64 hex digits');
    // Zero is 64 hex digits but no secp256k1 key; ethers would quote it in its own message.
    const zero = '0x' + '00'.repeat(32);
    const invalid = await loadExecutorWallets({ privateKeys: [zero] }).catch((err: Error) => err);
    expect((invalid as Error).message).toBe('executor private key #1 is not a valid secp256k1 private key');
    expect((invalid as Error).message).not.toContain(zero);
  });

  it('refuses one account configured twice, and keystores without a password', async () => {
    const file = await keystore(KEY_A, 'pw');
    await expect(
      loadExecutorWallets({ privateKeys: [KEY_A], keystoreFiles: [file], keystorePassword: 'pw' }),
    ).rejects.toThrow(`executor address ${new Wallet(KEY_A).address} is configured twice`);
    await expect(loadExecutorWallets({ keystoreFiles: [file] })).rejects.toThrow(
      'keystore files are configured but neither a keystore password nor a password file',
    );
    await expect(
      loadExecutorWallets({ keystoreFiles: [join(dir, 'missing.json')], keystorePassword: 'pw' }),
    ).rejects.toThrow(`cannot read executor keystore ${join(dir, 'missing.json')}: ENOENT`);
  });
});

describe('nonce bookkeeping', () => {
  const ADDRESS = '0x00000000000000000000000000000000000000aa';

  function chainAt(count: () => number): RawRpc & { calls: string[] } {
    return scriptedRpc({ eth_getTransactionCount: () => hex(BigInt(count())) });
  }

  it('hands concurrent callers distinct, contiguous nonces from the pending count', async () => {
    const rpc = chainAt(() => 7);
    const nonces = new NonceManager(ADDRESS, rpc);
    const got = await Promise.all(Array.from({ length: 20 }, () => nonces.reserve()));
    expect([...got].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => 7 + i));
    // One chain read, by the first reservation; the others waited for it.
    expect(rpc.calls).toEqual(['eth_getTransactionCount']);
  });

  it('gives a released nonce to the next caller, lowest first, and leaves no gap at the top', async () => {
    const nonces = new NonceManager(
      ADDRESS,
      chainAt(() => 0),
    );
    const [a, b, c] = [await nonces.reserve(), await nonces.reserve(), await nonces.reserve()];
    nonces.confirmSent(a);
    nonces.release(b);
    nonces.confirmSent(c);
    expect(await nonces.reserve()).toBe(1);
    const d = await nonces.reserve();
    expect(d).toBe(3);
    nonces.release(d);
    expect(nonces.snapshot()).toEqual({ next: 3, outstanding: [1], released: [] });
    nonces.release(1);
    expect(nonces.snapshot()).toEqual({ next: 3, outstanding: [], released: [1] });
    // Releasing twice or a nonce never reserved changes nothing.
    nonces.release(1);
    nonces.release(42);
    expect(nonces.snapshot()).toEqual({ next: 3, outstanding: [], released: [1] });
  });

  it('resyncs to the chain, keeps reservations in progress, and resets when the chain cannot be read', async () => {
    let count = 0;
    let failing = false;
    const rpc = scriptedRpc({
      eth_getTransactionCount: () => (failing ? unavailable() : hex(BigInt(count))),
    });
    const events: Array<{ from: number | undefined; to: number }> = [];
    const nonces = new NonceManager(ADDRESS, rpc, { onResync: ({ from, to }) => events.push({ from, to }) });
    nonces.confirmSent(await nonces.reserve());
    const inProgress = await nonces.reserve();
    expect(inProgress).toBe(1);
    // Someone else sent 3 transactions from this key: the chain is ahead of us.
    count = 4;
    expect(await nonces.resync('nonce too low')).toBe(4);
    expect(await nonces.reserve()).toBe(4);
    // The chain is behind (dropped transactions): nonces between it and the one being signed are reused.
    count = 0;
    expect(await nonces.resync()).toBe(0);
    expect(nonces.snapshot()).toEqual({ next: 5, outstanding: [1, 4], released: [0, 2, 3] });
    failing = true;
    expect(await nonces.resync()).toBeUndefined();
    expect(nonces.snapshot().next).toBeUndefined();
    await expect(nonces.reserve()).rejects.toBeInstanceOf(RpcUnavailableError);
    failing = false;
    count = 9;
    expect(await nonces.reserve()).toBe(9);
    expect(events.map((e) => e.to)).toEqual([0, 4, 5, 9]);
  });
});

describe('broadcast failures', () => {
  const rpcError = (code: number, message: string) =>
    Object.assign(new Error('could not coalesce error'), { code: 'UNKNOWN_ERROR', error: { code, message } });

  it('reads the answers of anvil', () => {
    expect(classifyBroadcastFailure(rpcError(-32003, 'transaction already imported'))).toBe('already-known');
    expect(classifyBroadcastFailure(rpcError(-32003, 'nonce has already been used'))).toBe('nonce-too-low');
    expect(classifyBroadcastFailure(rpcError(-32003, 'replacement fee too low'))).toBe(
      'replacement-underpriced',
    );
  });

  it('reads the answers of geth and ganache', () => {
    expect(classifyBroadcastFailure(rpcError(-32000, 'already known'))).toBe('already-known');
    expect(classifyBroadcastFailure(rpcError(-32000, 'nonce too low: next nonce 5, tx nonce 4'))).toBe(
      'nonce-too-low',
    );
    expect(
      classifyBroadcastFailure(
        rpcError(-32000, "the tx doesn't have the correct nonce. account has nonce of: 5 tx has nonce of: 4"),
      ),
    ).toBe('nonce-too-low');
    expect(classifyBroadcastFailure(rpcError(-32000, 'replacement transaction underpriced'))).toBe(
      'replacement-underpriced',
    );
    expect(classifyBroadcastFailure(rpcError(-32003, 'transaction underpriced'))).toBe('fee-too-low');
    expect(classifyBroadcastFailure(rpcError(-32000, 'max fee per gas less than block base fee'))).toBe(
      'fee-too-low',
    );
    expect(classifyBroadcastFailure(rpcError(-32003, 'insufficient funds for gas * price + value'))).toBe(
      'insufficient-funds',
    );
    expect(classifyBroadcastFailure(rpcError(-32000, 'intrinsic gas too low'))).toBe('rejected');
    expect(classifyBroadcastFailure(unavailable())).toBe('unavailable');
  });
});

describe('sending from an executor wallet', () => {
  const KEY = '0x' + '33'.repeat(32);
  const FEES: TxFees = { type: 2, maxFeePerGas: 20n * GWEI, maxPriorityFeePerGas: 1n * GWEI };
  const REQUEST = { to: '0x000000000000000000000000000000000000dEaD', data: '0x', gasLimit: 21_000n };
  const rpcError = (code: number, message: string) =>
    Object.assign(new Error('could not coalesce error'), { code: 'UNKNOWN_ERROR', error: { code, message } });

  function walletOn(answers: Record<string, Answer>): ExecutorWallet {
    return new ExecutorWallet(new Wallet(KEY), scriptedRpc(answers));
  }

  it('takes "already known" as sent: a retry of a send whose answer was lost', async () => {
    const wallet = walletOn({
      eth_getTransactionCount: '0x5',
      eth_sendRawTransaction: rpcError(-32000, 'already known'),
    });
    const sent = await wallet.send(REQUEST, FEES);
    expect(sent).toMatchObject({ nonce: 5, chainId: 1, fees: FEES, wallet: new Wallet(KEY).address });
    expect(wallet.nonces.snapshot()).toEqual({ next: 6, outstanding: [], released: [] });
  });

  it('takes a send with no answer as sent when the node has the transaction, and frees the nonce when not', async () => {
    let known = true;
    const wallet = walletOn({
      eth_getTransactionCount: '0x5',
      eth_sendRawTransaction: unavailable(),
      eth_getTransactionByHash: () => (known ? { hash: '0x' } : null),
    });
    expect((await wallet.send(REQUEST, FEES)).nonce).toBe(5);
    known = false;
    const err = await wallet.send(REQUEST, FEES).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SendError);
    expect(err).toMatchObject({ kind: 'unavailable', nonce: 6 });
    // The node may still have it: the next nonce comes from the chain again.
    expect(wallet.nonces.snapshot().next).toBeUndefined();
  });

  it('tells a nonce taken by a pending transaction from a tip that is too low', async () => {
    let pending = '0x5';
    const wallet = walletOn({
      eth_getTransactionCount: () => pending,
      eth_sendRawTransaction: rpcError(-32003, 'transaction underpriced'),
      eth_getTransactionByHash: null,
    });
    const cheap = await wallet.send(REQUEST, FEES).catch((e: unknown) => e);
    expect(cheap).toMatchObject({ kind: 'fee-too-low', nonce: 5 });
    expect(wallet.nonces.snapshot()).toEqual({ next: 5, outstanding: [], released: [] });
    pending = '0x6';
    const taken = await wallet.send(REQUEST, FEES).catch((e: unknown) => e);
    expect(taken).toMatchObject({ kind: 'replacement-underpriced', nonce: 5 });
    expect(wallet.nonces.snapshot()).toEqual({ next: 6, outstanding: [], released: [] });
  });
});
