import { AbiCoder, getAddress, keccak256, ZeroHash } from 'ethers';
import {
  addressToBytes32,
  bytes32ToAddress,
  decodeFundsDeposited,
  FillStatus,
  fundsDepositsOf,
  relayHash,
  type V3RelayData,
} from '../../shared/bridges/across/relay-data';
import { spokePoolInterface } from '../../shared/bridges/contracts';

const DEPOSITOR = getAddress('0x1111111111111111111111111111111111111111');
const RECIPIENT = getAddress('0x2222222222222222222222222222222222222222');
const RELAYER = getAddress('0x3333333333333333333333333333333333333333');
const USDC_1 = getAddress('0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48');
const USDC_137 = getAddress('0x3c499c542cef5e3811e1192ce70d8cc03d5c3359');
const SPOKE = getAddress('0x5c7bcd6e7de5423a257d81b442095a1a6ced35c5');

/** A FundsDeposited log as the SpokePool on chain 1 emits it for a deposit to chain 137. */
function depositLog(overrides: { address?: string } = {}) {
  const iface = spokePoolInterface();
  const event = iface.getEvent('FundsDeposited')!;
  const { data, topics } = iface.encodeEventLog(event, [
    addressToBytes32(USDC_1),
    addressToBytes32(USDC_137),
    50_000_000_000n,
    49_950_000_000n,
    137n,
    7n,
    1_700_000_000n,
    1_700_000_600n,
    1_700_000_030n,
    addressToBytes32(DEPOSITOR),
    addressToBytes32(RECIPIENT),
    addressToBytes32(RELAYER),
    '0x',
  ]);
  return {
    topics,
    data,
    address: overrides.address ?? SPOKE,
    blockNumber: 12,
    blockHash: `0x${'ab'.repeat(32)}`,
    transactionHash: `0x${'cd'.repeat(32)}`,
    index: 3,
  };
}

describe('Across relay data', () => {
  it('converts addresses to and from bytes32', () => {
    const b = addressToBytes32(RELAYER.toLowerCase());
    expect(b).toBe(`0x${'0'.repeat(24)}${RELAYER.slice(2).toLowerCase()}`);
    expect(bytes32ToAddress(b)).toBe(RELAYER);
    expect(bytes32ToAddress(ZeroHash)).toBe('0x0000000000000000000000000000000000000000');
    expect(() => bytes32ToAddress(`0x01${'0'.repeat(62)}`)).toThrow('does not hold an EVM address');
    expect(() => bytes32ToAddress('0x1234')).toThrow('not a bytes32');
  });

  it('has the contract’s FillStatus values', () => {
    expect([FillStatus.Unfilled, FillStatus.RequestedSlowFill, FillStatus.Filled]).toEqual([0, 1, 2]);
  });

  it('decodes a FundsDeposited log into the relay data a fill repeats', () => {
    const decoded = decodeFundsDeposited(depositLog(), 1)!;
    expect(decoded).toEqual({
      relayData: {
        depositor: addressToBytes32(DEPOSITOR),
        recipient: addressToBytes32(RECIPIENT),
        exclusiveRelayer: addressToBytes32(RELAYER),
        inputToken: addressToBytes32(USDC_1),
        outputToken: addressToBytes32(USDC_137),
        inputAmount: 50_000_000_000n,
        outputAmount: 49_950_000_000n,
        originChainId: 1n,
        depositId: 7n,
        fillDeadline: 1_700_000_600,
        exclusivityDeadline: 1_700_000_030,
        message: '0x',
      },
      destinationChainId: 137n,
      quoteTimestamp: 1_700_000_000,
      spokePool: SPOKE,
      blockNumber: 12,
      blockHash: `0x${'ab'.repeat(32)}`,
      transactionHash: `0x${'cd'.repeat(32)}`,
      logIndex: 3,
    });
  });

  it('ignores other events and logs of other contracts', () => {
    const iface = spokePoolInterface();
    const other = iface.encodeEventLog(iface.getEvent('RelayedRootBundle')!, [0n, ZeroHash, ZeroHash]);
    const otherLog = { ...depositLog(), ...other };
    expect(decodeFundsDeposited(otherLog, 1)).toBeUndefined();
    const foreign = depositLog({ address: RELAYER });
    expect(fundsDepositsOf([otherLog, foreign, depositLog()], SPOKE.toLowerCase(), 1)).toHaveLength(1);
  });

  it('hashes as getV3RelayHash: abi.encode(relayData, destination chain id)', () => {
    const { relayData } = decodeFundsDeposited(depositLog(), 1)!;
    const tuple =
      'tuple(bytes32,bytes32,bytes32,bytes32,bytes32,uint256,uint256,uint256,uint256,uint32,uint32,bytes)';
    const expected = keccak256(
      AbiCoder.defaultAbiCoder().encode(
        [tuple, 'uint256'],
        [
          [
            relayData.depositor,
            relayData.recipient,
            relayData.exclusiveRelayer,
            relayData.inputToken,
            relayData.outputToken,
            relayData.inputAmount,
            relayData.outputAmount,
            relayData.originChainId,
            relayData.depositId,
            relayData.fillDeadline,
            relayData.exclusivityDeadline,
            relayData.message,
          ],
          137n,
        ],
      ),
    );
    expect(relayHash(relayData, 137)).toBe(expected);
    // The destination is part of the hash, and so is every field.
    expect(relayHash(relayData, 10)).not.toBe(expected);
    const changed: V3RelayData = { ...relayData, depositId: relayData.depositId + 1n };
    expect(relayHash(changed, 137)).not.toBe(expected);
  });
});
