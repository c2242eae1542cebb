import { zeroPadValue } from 'ethers';
import type { ChainClient } from '../../chain/chain-client';
import { contractLogs, erc20Balance, readView, uintTopic } from '../chain-reads';
import { lockReleaseBridgeInterface } from '../contracts';
import {
  decodeReleased,
  decodeReleaseQueued,
  type ReleasedEvent,
  type ReleaseQueuedEvent,
} from './locked-event';

/** LockReleaseBridge.LockState: where a lock stands on its origin. */
export const LOCK_STATE = { none: 0, locked: 1, accepted: 2, refunded: 3 } as const;
export type LockState = (typeof LOCK_STATE)[keyof typeof LOCK_STATE];

/** A lock as its origin bridge holds it. */
export interface LockRecord {
  depositor: string;
  /** Origin chain seconds: past it, unaccepted, anyone may refund the lock. */
  deadline: number;
  state: LockState;
  token: string;
  /** What the bridge credited (the balance change of the lock). */
  amount: bigint;
}

/** The message a release names: the origin chain, the origin bridge and the lock's nonce there. */
export interface ReleaseMessage {
  originChainId: number;
  originBridge: string;
  nonce: bigint;
}

const addressTopic = (address: string): string => zeroPadValue(address, 32);

/** The lock `nonce` on the origin `bridge`, at `blockTag` (a confirmed block: what a reorg cannot take back). */
export async function readLock(
  client: ChainClient,
  bridge: string,
  nonce: bigint,
  blockTag: number | 'latest' = 'latest',
): Promise<LockRecord> {
  const iface = lockReleaseBridgeInterface();
  const data = await client.call({ to: bridge, data: iface.encodeFunctionData('locks', [nonce]) }, blockTag);
  const [record] = iface.decodeFunctionResult('locks', data) as unknown as [
    { depositor: string; deadline: bigint; state: bigint; token: string; amount: bigint },
  ];
  return {
    depositor: record.depositor,
    deadline: Number(record.deadline),
    state: Number(record.state) as LockState,
    token: record.token,
    amount: record.amount,
  };
}

/** What the bridge may release of `token`: its balance less what unaccepted locks hold for their refunds. */
export async function freeLiquidity(client: ChainClient, bridge: string, token: string): Promise<bigint> {
  const [balance, held] = await Promise.all([
    erc20Balance(client, token, bridge),
    readView<bigint>(client, lockReleaseBridgeInterface(), bridge, 'heldForRefunds', [token]),
  ]);
  return balance > held ? balance - held : 0n;
}

/** Whether the destination `bridge` has taken the message (released, or queued behind its delay). */
export function isReleased(client: ChainClient, bridge: string, m: ReleaseMessage): Promise<boolean> {
  return readView<boolean>(client, lockReleaseBridgeInterface(), bridge, 'released', [
    m.originChainId,
    m.originBridge,
    m.nonce,
  ]);
}

/** When a queued release of the message becomes executable (destination seconds); undefined when none waits. */
export async function pendingReleaseAt(
  client: ChainClient,
  bridge: string,
  m: ReleaseMessage,
): Promise<number | undefined> {
  const pending = await readView<{ executableAt: bigint }>(
    client,
    lockReleaseBridgeInterface(),
    bridge,
    'pendingRelease',
    [m.originChainId, m.originBridge, m.nonce],
  );
  return pending.executableAt === 0n ? undefined : Number(pending.executableAt);
}

function topicsOf(name: 'Released' | 'ReleaseQueued', m: ReleaseMessage): string[] {
  const event = lockReleaseBridgeInterface().getEvent(name);
  if (!event) throw new Error(`the LockReleaseBridge ABI has no ${name} event`);
  return [event.topicHash, uintTopic(m.originChainId), addressTopic(m.originBridge), uintTopic(m.nonce)];
}

/** The Released event of the message on the destination `bridge`, searched from `fromBlock`. */
export async function findReleased(
  client: ChainClient,
  bridge: string,
  m: ReleaseMessage,
  fromBlock = 0,
): Promise<ReleasedEvent | undefined> {
  const logs = await contractLogs(client, bridge, topicsOf('Released', m), Math.max(0, fromBlock));
  return logs.map(decodeReleased).find((e) => e !== undefined);
}

/** The last ReleaseQueued event of the message on the destination `bridge`, searched from `fromBlock`. */
export async function findReleaseQueued(
  client: ChainClient,
  bridge: string,
  m: ReleaseMessage,
  fromBlock = 0,
): Promise<ReleaseQueuedEvent | undefined> {
  const logs = await contractLogs(client, bridge, topicsOf('ReleaseQueued', m), Math.max(0, fromBlock));
  return logs
    .map(decodeReleaseQueued)
    .filter((e) => e !== undefined)
    .at(-1);
}
