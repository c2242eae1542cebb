import { getAddress, type Log } from 'ethers';
import { lockReleaseBridgeInterface } from '../contracts';

/** The LockReleaseBridge's two events: a lock on the origin, its release on the destination. */

type EventLog = Pick<
  Log,
  'topics' | 'data' | 'address' | 'blockNumber' | 'blockHash' | 'transactionHash' | 'index'
>;

interface LogPosition {
  /** The bridge that emitted the event. */
  bridge: string;
  blockNumber: number;
  blockHash: string;
  transactionHash: string;
  logIndex: number;
}

export interface LockedEvent extends LogPosition {
  /** Unique per origin bridge; with the origin chain id it names the transfer on the destination. */
  nonce: bigint;
  depositor: string;
  destinationChainId: bigint;
  inputToken: string;
  inputAmount: bigint;
  outputToken: string;
  outputAmount: bigint;
  recipient: string;
}

export interface ReleasedEvent extends LogPosition {
  originChainId: bigint;
  nonce: bigint;
  outputToken: string;
  amount: bigint;
  recipient: string;
}

function position(log: EventLog): LogPosition {
  return {
    bridge: getAddress(log.address),
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    transactionHash: log.transactionHash,
    logIndex: log.index,
  };
}

function parse(log: EventLog, name: 'Locked' | 'Released') {
  const iface = lockReleaseBridgeInterface();
  const event = iface.getEvent(name);
  if (!event || log.topics[0] !== event.topicHash) return undefined;
  return iface.parseLog({ topics: [...log.topics], data: log.data }) ?? undefined;
}

/** A Locked log decoded; undefined for any other log. */
export function decodeLocked(log: EventLog): LockedEvent | undefined {
  const parsed = parse(log, 'Locked');
  if (!parsed) return undefined;
  const a = parsed.args;
  return {
    ...position(log),
    nonce: a.nonce as bigint,
    depositor: getAddress(a.depositor as string),
    destinationChainId: a.destinationChainId as bigint,
    inputToken: getAddress(a.inputToken as string),
    inputAmount: a.inputAmount as bigint,
    outputToken: getAddress(a.outputToken as string),
    outputAmount: a.outputAmount as bigint,
    recipient: getAddress(a.recipient as string),
  };
}

/** A Released log decoded; undefined for any other log. */
export function decodeReleased(log: EventLog): ReleasedEvent | undefined {
  const parsed = parse(log, 'Released');
  if (!parsed) return undefined;
  const a = parsed.args;
  return {
    ...position(log),
    originChainId: a.originChainId as bigint,
    nonce: a.nonce as bigint,
    outputToken: getAddress(a.outputToken as string),
    amount: a.amount as bigint,
    recipient: getAddress(a.recipient as string),
  };
}

/** The Locked events of a receipt's logs emitted by `bridge` (a log of another contract is never trusted). */
export function lockedEventsOf(logs: readonly EventLog[], bridge: string): LockedEvent[] {
  const address = bridge.toLowerCase();
  return logs
    .filter((log) => log.address.toLowerCase() === address)
    .map(decodeLocked)
    .filter((e): e is LockedEvent => e !== undefined);
}

/** The Released events among `logs` emitted by `bridge`. */
export function releasedEventsOf(logs: readonly EventLog[], bridge: string): ReleasedEvent[] {
  const address = bridge.toLowerCase();
  return logs
    .filter((log) => log.address.toLowerCase() === address)
    .map(decodeReleased)
    .filter((e): e is ReleasedEvent => e !== undefined);
}
