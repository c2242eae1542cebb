import { AbiCoder, getAddress, keccak256, zeroPadValue, type Log } from 'ethers';
import { spokePoolInterface } from '../contracts';

/**
 * Across V3 relay data: what a FundsDeposited event on the origin says, in the shape `fillRelay` and
 * `getV3RelayHash` take on the destination. Addresses are bytes32 there (Across V3.5 widened them for non-EVM
 * chains); ours are always left-padded EVM addresses.
 */

/** `V3SpokePoolInterface.FillStatus`, the value of `fillStatuses(relayHash)`. */
export enum FillStatus {
  Unfilled = 0,
  RequestedSlowFill = 1,
  Filled = 2,
}

/** `V3SpokePoolInterface.V3RelayData`, field for field and in its order. */
export interface V3RelayData {
  depositor: string;
  recipient: string;
  exclusiveRelayer: string;
  inputToken: string;
  outputToken: string;
  inputAmount: bigint;
  outputAmount: bigint;
  originChainId: bigint;
  depositId: bigint;
  fillDeadline: number;
  exclusivityDeadline: number;
  message: string;
}

/** A decoded FundsDeposited log: the relay data, where it goes, and where the log is. */
export interface FundsDeposit {
  relayData: V3RelayData;
  destinationChainId: bigint;
  quoteTimestamp: number;
  /** The origin SpokePool that emitted the event. */
  spokePool: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
}

const V3_RELAY_DATA_TUPLE =
  'tuple(bytes32 depositor, bytes32 recipient, bytes32 exclusiveRelayer, bytes32 inputToken, bytes32 outputToken, ' +
  'uint256 inputAmount, uint256 outputAmount, uint256 originChainId, uint256 depositId, uint32 fillDeadline, ' +
  'uint32 exclusivityDeadline, bytes message)';

/** An EVM address as Across's bytes32 (left-padded with zeros, lowercase hex). */
export function addressToBytes32(address: string): string {
  return zeroPadValue(getAddress(address), 32).toLowerCase();
}

/** The EVM address in a bytes32; throws if the upper 12 bytes are not zero (not an EVM address). */
export function bytes32ToAddress(value: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new Error(`not a bytes32: ${value}`);
  if (!/^0x0{24}/.test(value)) throw new Error(`bytes32 ${value} does not hold an EVM address`);
  return getAddress(`0x${value.slice(26)}`);
}

/**
 * `getV3RelayHash` exactly: keccak256(abi.encode(relayData, chainId())), where chainId() is the chain of the
 * SpokePool that fills, i.e. the DESTINATION chain (the same deposit hashes differently per destination).
 */
export function relayHash(relayData: V3RelayData, destinationChainId: bigint | number): string {
  return keccak256(
    AbiCoder.defaultAbiCoder().encode([V3_RELAY_DATA_TUPLE, 'uint256'], [relayData, destinationChainId]),
  );
}

/**
 * The relay data of a FundsDeposited log of the SpokePool on `originChainId`; undefined for any other log. The
 * exclusivity deadline is the event's (the deposit's block time plus the exclusivity period), as the fill must
 * repeat it.
 */
export function decodeFundsDeposited(
  log: Pick<Log, 'topics' | 'data' | 'address' | 'blockNumber' | 'blockHash' | 'transactionHash' | 'index'>,
  originChainId: bigint | number,
): FundsDeposit | undefined {
  const iface = spokePoolInterface();
  const event = iface.getEvent('FundsDeposited');
  if (!event || log.topics[0] !== event.topicHash) return undefined;
  const parsed = iface.parseLog({ topics: [...log.topics], data: log.data });
  if (!parsed) return undefined;
  const a = parsed.args;
  return {
    relayData: {
      depositor: (a.depositor as string).toLowerCase(),
      recipient: (a.recipient as string).toLowerCase(),
      exclusiveRelayer: (a.exclusiveRelayer as string).toLowerCase(),
      inputToken: (a.inputToken as string).toLowerCase(),
      outputToken: (a.outputToken as string).toLowerCase(),
      inputAmount: a.inputAmount as bigint,
      outputAmount: a.outputAmount as bigint,
      originChainId: BigInt(originChainId),
      depositId: a.depositId as bigint,
      fillDeadline: Number(a.fillDeadline as bigint),
      exclusivityDeadline: Number(a.exclusivityDeadline as bigint),
      message: a.message as string,
    },
    destinationChainId: a.destinationChainId as bigint,
    quoteTimestamp: Number(a.quoteTimestamp as bigint),
    spokePool: getAddress(log.address),
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    transactionHash: log.transactionHash,
    logIndex: log.index,
  };
}

/** The FundsDeposited logs a receipt holds from `spokePool` (a log of another contract is never trusted). */
export function fundsDepositsOf(
  logs: ReadonlyArray<Parameters<typeof decodeFundsDeposited>[0]>,
  spokePool: string,
  originChainId: bigint | number,
): FundsDeposit[] {
  const pool = spokePool.toLowerCase();
  return logs
    .filter((log) => log.address.toLowerCase() === pool)
    .map((log) => decodeFundsDeposited(log, originChainId))
    .filter((d): d is FundsDeposit => d !== undefined);
}
