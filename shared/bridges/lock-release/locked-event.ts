import { getAddress, type Log } from 'ethers';
import { lockReleaseBridgeInterface } from '../contracts';

/**
 * The LockReleaseBridge's events: a lock on the origin, its release on the destination (at once, or queued for the
 * bridge's delay first).
 */

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
  /** Origin chain seconds after which the depositor may take the lock back unless the releaser accepted it. */
  deadline: number;
  /** Whether the lock came through the fee taker (our CrossChainEntry), so it paid the service's fees. */
  feesPaid: boolean;
}

export interface ReleasedEvent extends LogPosition {
  originChainId: bigint;
  originBridge: string;
  nonce: bigint;
  outputToken: string;
  amount: bigint;
  recipient: string;
}

export interface ReleaseQueuedEvent extends ReleasedEvent {
  /** Destination chain seconds from which anyone may execute the release. */
  executableAt: number;
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

function parse(log: EventLog, name: 'Locked' | 'Released' | 'ReleaseQueued') {
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
    deadline: Number(a.deadline as bigint),
    feesPaid: a.feesPaid as boolean,
  };
}

function releaseOf(log: EventLog, name: 'Released' | 'ReleaseQueued') {
  const parsed = parse(log, name);
  if (!parsed) return undefined;
  const a = parsed.args;
  return {
    event: {
      ...position(log),
      originChainId: a.originChainId as bigint,
      originBridge: getAddress(a.originBridge as string),
      nonce: a.nonce as bigint,
      outputToken: getAddress(a.outputToken as string),
      amount: a.amount as bigint,
      recipient: getAddress(a.recipient as string),
    },
    args: a,
  };
}

/** A Released log decoded; undefined for any other log. */
export function decodeReleased(log: EventLog): ReleasedEvent | undefined {
  return releaseOf(log, 'Released')?.event;
}

/** A ReleaseQueued log decoded; undefined for any other log. */
export function decodeReleaseQueued(log: EventLog): ReleaseQueuedEvent | undefined {
  const decoded = releaseOf(log, 'ReleaseQueued');
  return decoded && { ...decoded.event, executableAt: Number(decoded.args.executableAt as bigint) };
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

/** The ReleaseQueued events among `logs` emitted by `bridge`. */
export function releaseQueuedEventsOf(logs: readonly EventLog[], bridge: string): ReleaseQueuedEvent[] {
  const address = bridge.toLowerCase();
  return logs
    .filter((log) => log.address.toLowerCase() === address)
    .map(decodeReleaseQueued)
    .filter((e): e is ReleaseQueuedEvent => e !== undefined);
}
