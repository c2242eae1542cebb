import fc from 'fast-check';
import { AbiCoder, getAddress, hexlify, id, keccak256, Transaction, Wallet } from 'ethers';
import { orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import {
  decodeBatchGasReport,
  decodeExecuteBatchCalldata,
  encodeExecuteBatchCalldata,
  encodeExecuteBudgetedBatchCalldata,
  encodeGroups,
  type CalldataGroup,
} from '../../shared/chain/execute-batch-calldata';
import { calldataOfRawTransaction, gasLimitOfRawTransaction } from '../../shared/chain/raw-transaction-data';
import { signTransaction } from '../../shared/chain/transaction-signing';
import {
  integratorOf,
  onchainOrderIdOf,
  orderKeyOf,
  orderRefOf,
} from '../../shared/domain/pair-authorization';

/**
 * The hand-written executeBatch codec and order hashes against ethers' coder, on arbitrary batches: every byte of
 * the calldata the keeper signs, and every id it settles by, is what the contract's ABI says.
 */

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => getAddress(hexlify(b)));
const bytes32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => hexlify(b));
const uint = (bits: number) => fc.bigInt({ min: 0n, max: 2n ** BigInt(bits) - 1n });
const bytes = fc.uint8Array({ minLength: 0, maxLength: 130 }).map((b) => hexlify(b));

const order = fc.record({
  maker: address,
  index: uint(64),
  ref: bytes32,
  integrator: bytes32,
  maxDeviationBps: fc.integer({ min: 0, max: 65_535 }),
  maxFeeBps: fc.integer({ min: 0, max: 65_535 }),
  amountIn: uint(256),
  fee: uint(256),
  minAmountOut: uint(256),
  signature: bytes,
});
const hop = fc.record({
  kind: fc.integer({ min: 0, max: 255 }),
  tokenOut: address,
  fee: fc.integer({ min: 0, max: 2 ** 24 - 1 }),
  target: address,
  data: bytes,
});
const path = fc.record({ weight: uint(256), hops: fc.array(hop, { maxLength: 3 }) });
const group = fc.record({
  tokenIn: address,
  tokenOut: address,
  paths: fc.array(path, { maxLength: 3 }),
  orders: fc.array(order, { maxLength: 6 }),
});
const batch = fc.record({ groups: fc.array(group, { maxLength: 4 }), deadline: uint(256) });

function ethersCalldata(groups: CalldataGroup[], deadline: bigint): string {
  return orderExecutorInterface().encodeFunctionData('executeBatch', [groups, deadline]);
}

describe('executeBatch calldata by hand', () => {
  it('encodes every batch byte for byte as ethers does', () => {
    fc.assert(
      fc.property(batch, ({ groups, deadline }) => {
        expect(encodeExecuteBatchCalldata(groups, deadline)).toBe(ethersCalldata(groups, deadline));
      }),
      { numRuns: 300 },
    );
  });

  it('reads back every order of any batch ethers encodes (hex lowercase, tokens checksummed)', () => {
    fc.assert(
      fc.property(batch, ({ groups, deadline }) => {
        const decoded = decodeExecuteBatchCalldata(ethersCalldata(groups, deadline));
        expect(decoded.deadline).toBe(deadline);
        expect(decoded.groups).toEqual(
          groups.map((g) => ({
            tokenIn: g.tokenIn,
            tokenOut: g.tokenOut,
            orders: g.orders.map(({ signature: _signature, ...o }) => ({
              ...o,
              maker: o.maker.toLowerCase(),
              ref: o.ref.toLowerCase(),
              integrator: o.integrator.toLowerCase(),
            })),
          })),
        );
      }),
      { numRuns: 300 },
    );
  });

  it('encodes the budgeted batch byte for byte as ethers does, and reads it back as the plain one', () => {
    fc.assert(
      fc.property(batch, fc.array(uint(64), { maxLength: 4 }), ({ groups, deadline }, seeds) => {
        const budgets = groups.map((_, i) => seeds[i] ?? 0n);
        const expected = orderExecutorInterface().encodeFunctionData('executeBudgetedBatch', [
          groups,
          deadline,
          budgets,
        ]);
        expect(encodeExecuteBudgetedBatchCalldata(groups, deadline, budgets)).toBe(expected);
        // The groups encoded once serve both calls.
        const encoded = encodeGroups(groups);
        expect(encodeExecuteBudgetedBatchCalldata(encoded, deadline, budgets)).toBe(expected);
        expect(encodeExecuteBatchCalldata(encoded, deadline)).toBe(ethersCalldata(groups, deadline));
        expect(decodeExecuteBatchCalldata(expected)).toEqual(
          decodeExecuteBatchCalldata(ethersCalldata(groups, deadline)),
        );
      }),
      { numRuns: 200 },
    );
    expect(() => encodeExecuteBudgetedBatchCalldata([], 1n, [1n])).toThrow('one gas budget per group');
  });

  it("reads executeBatch's gas report as ethers encodes it", () => {
    const data = orderExecutorInterface().encodeFunctionResult('executeBatch', [123_456n, [7n, 0n, 99n]]);
    expect(decodeBatchGasReport(data)).toEqual({ gasUsed: 123_456n, groupGas: [7n, 0n, 99n] });
    expect(() => decodeBatchGasReport('0x')).toThrow();
  });

  it('refuses other calldata and offsets that point outside it', () => {
    expect(() => decodeExecuteBatchCalldata('0x12345678')).toThrow('not executeBatch calldata');
    expect(() => decodeExecuteBatchCalldata('0xzz')).toThrow('calldata is not hex');
    const selector = orderExecutorInterface().getFunction('executeBatch')!.selector;
    const outside = selector + (2n ** 40n).toString(16).padStart(64, '0') + '0'.repeat(64);
    expect(() => decodeExecuteBatchCalldata(outside)).toThrow(RangeError);
    const huge = selector + 'f'.repeat(64) + '0'.repeat(64);
    expect(() => decodeExecuteBatchCalldata(huge)).toThrow('out of range');
  });

  it('refuses values ethers would refuse', () => {
    const base = {
      maker: getAddress('0x' + '11'.repeat(20)),
      index: 1n,
      ref: id('a'),
      integrator: id('b'),
      maxDeviationBps: 0,
      maxFeeBps: 30,
      amountIn: 1n,
      fee: 0n,
      minAmountOut: 0n,
      signature: '0x',
    };
    const encode = (o: typeof base) =>
      encodeExecuteBatchCalldata([{ tokenIn: base.maker, tokenOut: base.maker, paths: [], orders: [o] }], 0n);
    expect(() => encode({ ...base, index: 2n ** 64n })).toThrow('does not fit uint64');
    expect(() => encode({ ...base, maxFeeBps: 70_000 })).toThrow('does not fit uint16');
    expect(() => encode({ ...base, amountIn: -1n })).toThrow('does not fit uint256');
    expect(() => encode({ ...base, maker: '0x1234' })).toThrow('not an address');
    expect(() => encode({ ...base, ref: '0x12' })).toThrow('not 32 bytes of hex');
    expect(() => encode({ ...base, signature: '0x123' })).toThrow('not hex bytes');
  });
});

describe('order hashes by hand', () => {
  const fields = fc.record({
    maker: address,
    tokenIn: address,
    tokenOut: address,
    integrator: bytes32,
    ref: bytes32,
    amountIn: uint(256),
    index: uint(64),
  });
  const types = ['address', 'address', 'address', 'bytes32', 'bytes32', 'uint256'];

  it('derive the ids OrderExecutor derives (abi.encode through ethers)', () => {
    fc.assert(
      fc.property(fields, (f) => {
        const values = [f.maker, f.tokenIn, f.tokenOut, f.integrator, f.ref, f.amountIn];
        const coder = AbiCoder.defaultAbiCoder();
        expect(orderKeyOf(f)).toBe(keccak256(coder.encode(types, values)));
        expect(onchainOrderIdOf(f)).toBe(keccak256(coder.encode([...types, 'uint64'], [...values, f.index])));
        // Any spelling of the addresses is the same order.
        expect(onchainOrderIdOf({ ...f, maker: f.maker.toLowerCase() })).toBe(onchainOrderIdOf(f));
      }),
      { numRuns: 300 },
    );
  });

  it('hash references and integrators as ethers id() does', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 40 }), (text) => {
        expect(orderRefOf(text)).toBe(id(text));
        expect(integratorOf(text)).toBe(id(text));
      }),
    );
  });
});

describe('calldata and gas limit of a raw transaction', () => {
  const wallet = new Wallet(id('raw-transaction-data test key'));

  it('is the data field of signed legacy, EIP-2930 and EIP-1559 transactions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(0, 1, 2),
        bytes,
        fc.uint8Array({ maxLength: 300 }),
        async (type, short, long) => {
          for (const data of [short, hexlify(long), '0x', '0x01', '0x7f', '0x80']) {
            const tx = Transaction.from({
              type,
              chainId: 31_337,
              nonce: 7,
              gasLimit: 1_000_000,
              to: wallet.address,
              value: 5n,
              data,
              ...(type === 2
                ? { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n }
                : { gasPrice: 10n ** 9n }),
            });
            const raw = await wallet.signTransaction(tx);
            expect(hexlify(calldataOfRawTransaction(raw))).toBe(Transaction.from(raw).data);
            expect(gasLimitOfRawTransaction(raw)).toBe(1_000_000n);
          }
        },
      ),
      { numRuns: 30 },
    );
  });

  it('refuses what is not a signed transaction', () => {
    expect(() => calldataOfRawTransaction('0x03c0')).toThrow('unsupported transaction type 3');
    expect(() => calldataOfRawTransaction('0x02f9ffff')).toThrow(RangeError);
    expect(() => calldataOfRawTransaction('nothex')).toThrow('raw transaction is not hex');
  });
});

describe('signing a transaction with Buffers', () => {
  const wallet = new Wallet(id('transaction-signing test key'));

  it('gives the raw transaction and hash ethers gives, legacy and EIP-1559', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          type: fc.constantFrom(0 as const, 2 as const),
          chainId: fc.bigInt({ min: 1n, max: 2n ** 40n }),
          nonce: fc.integer({ min: 0, max: 2 ** 31 }),
          to: address,
          data: fc.uint8Array({ maxLength: 3000 }).map((b) => hexlify(b)),
          gasLimit: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          value: fc.bigInt({ min: 0n, max: 2n ** 128n }),
          fee: fc.bigInt({ min: 0n, max: 2n ** 70n }),
          tip: fc.bigInt({ min: 0n, max: 2n ** 70n }),
        }),
        async (t) => {
          const fees =
            t.type === 2
              ? { type: 2 as const, maxFeePerGas: t.fee, maxPriorityFeePerGas: t.tip % (t.fee + 1n) }
              : { type: 0 as const, gasPrice: t.fee };
          const common = {
            chainId: t.chainId,
            nonce: t.nonce,
            to: t.to,
            data: t.data,
            gasLimit: t.gasLimit,
            value: t.value,
          };
          const ours = signTransaction({ ...common, fees }, wallet.signingKey);
          const theirs = await wallet.signTransaction(
            fees.type === 2
              ? {
                  ...common,
                  type: 2,
                  maxFeePerGas: fees.maxFeePerGas,
                  maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
                }
              : { ...common, type: 0, gasPrice: fees.gasPrice },
          );
          expect(ours.raw).toBe(theirs);
          expect(ours.hash).toBe(keccak256(theirs));
          expect(Transaction.from(ours.raw).from).toBe(wallet.address);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a priority fee above the max fee, as ethers does', () => {
    const fees = { type: 2 as const, maxFeePerGas: 1n, maxPriorityFeePerGas: 2n };
    const tx = { chainId: 1n, nonce: 0, to: wallet.address, data: '0x', gasLimit: 21_000n, value: 0n, fees };
    expect(() => signTransaction(tx, wallet.signingKey)).toThrow('cannot exceed its max fee');
  });
});
