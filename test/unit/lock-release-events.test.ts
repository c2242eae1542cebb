import { Interface, getAddress, zeroPadValue } from 'ethers';
import { lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import {
  findReleased,
  findReleaseQueued,
  type ReleaseMessage,
} from '../../shared/bridges/lock-release/bridge-reads';
import {
  decodeLocked,
  decodeReleased,
  decodeReleaseQueued,
  lockedEventsOf,
  releasedEventsOf,
  releaseQueuedEventsOf,
} from '../../shared/bridges/lock-release/locked-event';
import type { ChainClient } from '../../shared/chain/chain-client';

/**
 * The LockReleaseBridge's events as the service decodes them: Locked with its deadline and whether it paid our fees,
 * Released and ReleaseQueued keyed by (origin chain, origin bridge, nonce), and the topics the readers search by.
 */

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
const BRIDGE = address(0xb1);
/** An origin bridge whose address has letters, so a checksum is visible. */
const ORIGIN_BRIDGE = getAddress(`0x${'ab'.repeat(20)}`);
const position = {
  blockNumber: 5,
  blockHash: `0x${'11'.repeat(32)}`,
  transactionHash: `0x${'22'.repeat(32)}`,
  index: 1,
};

type EventName = 'Locked' | 'Released' | 'ReleaseQueued';

function log(name: EventName, args: unknown[], at = BRIDGE, index = position.index) {
  const iface = lockReleaseBridgeInterface();
  return { ...iface.encodeEventLog(iface.getEvent(name)!, args), address: at, ...position, index };
}

const uintTopic = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}`;
const topicHash = (name: EventName) => lockReleaseBridgeInterface().getEvent(name)!.topicHash;

// Locked(nonce, depositor, destinationChainId, inputToken, inputAmount, outputToken, outputAmount, recipient,
//        deadline, feesPaid)
const lockedArgs = (nonce: bigint, feesPaid: boolean) => [
  nonce,
  address(1),
  137n,
  address(2),
  1000n,
  address(3),
  998n,
  address(4),
  1_700_001_800n,
  feesPaid,
];

describe('LockReleaseBridge events', () => {
  const locked = log('Locked', lockedArgs(4n, true));
  const lockedDirect = log('Locked', lockedArgs(5n, false));
  // Released(originChainId, originBridge, nonce, outputToken, amount, recipient)
  const released = log('Released', [1n, ORIGIN_BRIDGE, 4n, address(3), 998n, address(4)]);
  // ReleaseQueued(originChainId, originBridge, nonce, outputToken, amount, recipient, executableAt)
  const queued = log('ReleaseQueued', [
    1n,
    ORIGIN_BRIDGE,
    6n,
    address(3),
    500_000n,
    address(4),
    1_700_000_600n,
  ]);

  it('decodes a Locked log with its deadline and whether it paid the fees', () => {
    expect(decodeLocked(locked)).toEqual({
      bridge: BRIDGE,
      blockNumber: 5,
      blockHash: position.blockHash,
      transactionHash: position.transactionHash,
      logIndex: 1,
      nonce: 4n,
      depositor: address(1),
      destinationChainId: 137n,
      inputToken: address(2),
      inputAmount: 1000n,
      outputToken: address(3),
      outputAmount: 998n,
      recipient: address(4),
      deadline: 1_700_001_800,
      feesPaid: true,
    });
    expect(decodeLocked(lockedDirect)).toMatchObject({ nonce: 5n, feesPaid: false, deadline: 1_700_001_800 });
    expect(typeof decodeLocked(locked)!.deadline).toBe('number');
    for (const other of [released, queued]) expect(decodeLocked(other)).toBeUndefined();
  });

  it('keeps nonce, depositor and destination chain as the indexed topics of Locked, the rest as data', () => {
    expect(locked.topics).toEqual([
      topicHash('Locked'),
      uintTopic(4n),
      zeroPadValue(address(1), 32),
      uintTopic(137n),
    ]);
    // Seven words of data: inputToken, inputAmount, outputToken, outputAmount, recipient, deadline, feesPaid.
    expect((locked.data.length - 2) / 64).toBe(7);
    expect(BigInt(`0x${locked.data.slice(2 + 6 * 64)}`)).toBe(1n);
    expect(BigInt(`0x${lockedDirect.data.slice(2 + 6 * 64)}`)).toBe(0n);
  });

  it('decodes a Released log keyed by origin chain, origin bridge and nonce, all three indexed', () => {
    expect(released.topics).toEqual([
      topicHash('Released'),
      uintTopic(1n),
      zeroPadValue(ORIGIN_BRIDGE, 32),
      uintTopic(4n),
    ]);
    expect(decodeReleased(released)).toEqual({
      bridge: BRIDGE,
      blockNumber: 5,
      blockHash: position.blockHash,
      transactionHash: position.transactionHash,
      logIndex: 1,
      originChainId: 1n,
      originBridge: ORIGIN_BRIDGE,
      nonce: 4n,
      outputToken: address(3),
      amount: 998n,
      recipient: address(4),
    });
    for (const other of [locked, queued]) expect(decodeReleased(other)).toBeUndefined();
  });

  it('checksums an origin bridge read from a lowercase topic', () => {
    const lowercase = { ...released, topics: released.topics.map((t) => t.toLowerCase()) };
    expect(lowercase.topics[2]).toBe(`0x${'0'.repeat(24)}${'ab'.repeat(20)}`);
    expect(decodeReleased(lowercase)!.originBridge).toBe(ORIGIN_BRIDGE);
  });

  it('decodes a ReleaseQueued log with the time it becomes executable', () => {
    expect(queued.topics).toEqual([
      topicHash('ReleaseQueued'),
      uintTopic(1n),
      zeroPadValue(ORIGIN_BRIDGE, 32),
      uintTopic(6n),
    ]);
    expect(decodeReleaseQueued(queued)).toEqual({
      bridge: BRIDGE,
      blockNumber: 5,
      blockHash: position.blockHash,
      transactionHash: position.transactionHash,
      logIndex: 1,
      originChainId: 1n,
      originBridge: ORIGIN_BRIDGE,
      nonce: 6n,
      outputToken: address(3),
      amount: 500_000n,
      recipient: address(4),
      executableAt: 1_700_000_600,
    });
    // A queued release is not a release: nothing is paid until executeRelease emits Released.
    expect(decodeReleased(queued)).toBeUndefined();
    for (const other of [locked, released]) expect(decodeReleaseQueued(other)).toBeUndefined();
  });

  it('decodes no log of the bridge before this version: Locked without deadline and feesPaid, Released without the origin bridge', () => {
    const old = new Interface([
      'event Locked(uint256 indexed nonce, address indexed depositor, uint256 indexed destinationChainId, address inputToken, uint256 inputAmount, address outputToken, uint256 outputAmount, address recipient)',
      'event Released(uint256 indexed originChainId, uint256 indexed nonce, address outputToken, uint256 amount, address recipient)',
    ]);
    const oldLocked = {
      ...old.encodeEventLog(old.getEvent('Locked')!, lockedArgs(4n, true).slice(0, 8)),
      address: BRIDGE,
      ...position,
    };
    const oldReleased = {
      ...old.encodeEventLog(old.getEvent('Released')!, [1n, 4n, address(3), 998n, address(4)]),
      address: BRIDGE,
      ...position,
    };
    expect(oldLocked.topics[0]).not.toBe(topicHash('Locked'));
    expect(oldReleased.topics[0]).not.toBe(topicHash('Released'));
    expect(decodeLocked(oldLocked)).toBeUndefined();
    expect(decodeReleased(oldReleased)).toBeUndefined();
    expect(decodeReleaseQueued(oldReleased)).toBeUndefined();
  });

  it('takes only the bridge’s own logs from a receipt', () => {
    const foreign = (name: EventName, args: unknown[]) => log(name, args, address(5));
    const logs = [
      foreign('Locked', lockedArgs(9n, true)),
      foreign('Released', [1n, ORIGIN_BRIDGE, 9n, address(3), 1n, address(4)]),
      foreign('ReleaseQueued', [1n, ORIGIN_BRIDGE, 9n, address(3), 1n, address(4), 1n]),
      released,
      locked,
      queued,
      lockedDirect,
    ];
    expect(lockedEventsOf(logs, BRIDGE.toLowerCase()).map((e) => [e.nonce, e.feesPaid])).toEqual([
      [4n, true],
      [5n, false],
    ]);
    expect(releasedEventsOf(logs, BRIDGE).map((e) => e.nonce)).toEqual([4n]);
    expect(releaseQueuedEventsOf(logs, BRIDGE.toLowerCase()).map((e) => [e.nonce, e.executableAt])).toEqual([
      [6n, 1_700_000_600],
    ]);
  });
});

describe('the release readers’ log searches', () => {
  /** A node's eth_getLogs over `logs`: one address, and each topic position null (any) or equal (any case). */
  function fakeClient(logs: ReadonlyArray<ReturnType<typeof log>>) {
    const filters: Array<{ address: string; topics: Array<string | null>; fromBlock: string }> = [];
    const client = {
      send: (method: string, params: readonly unknown[]) => {
        expect(method).toBe('eth_getLogs');
        const filter = params[0] as { address: string; topics: Array<string | null>; fromBlock: string };
        filters.push(filter);
        const matches = logs.filter(
          (l) =>
            l.address.toLowerCase() === filter.address.toLowerCase() &&
            filter.topics.every((t, i) => t === null || t.toLowerCase() === l.topics[i]?.toLowerCase()),
        );
        return Promise.resolve(
          matches.map((l) => ({
            address: l.address,
            topics: l.topics,
            data: l.data,
            blockNumber: `0x${l.blockNumber.toString(16)}`,
            blockHash: l.blockHash,
            transactionHash: l.transactionHash,
            logIndex: `0x${l.index.toString(16)}`,
          })),
        );
      },
    };
    return { client: client as unknown as ChainClient, filters };
  }

  const message: ReleaseMessage = { originChainId: 1, originBridge: ORIGIN_BRIDGE, nonce: 4n };
  const releasedArgs = (originChainId: bigint, originBridge: string, nonce: bigint, amount: bigint) => [
    originChainId,
    originBridge,
    nonce,
    address(3),
    amount,
    address(4),
  ];

  it('finds the Released event of exactly the message: not the same nonce of another origin bridge or chain', async () => {
    const logs = [
      log('Released', releasedArgs(1n, address(0xee), 4n, 1n), BRIDGE, 0),
      log('Released', releasedArgs(56n, ORIGIN_BRIDGE, 4n, 2n), BRIDGE, 1),
      log('Released', releasedArgs(1n, ORIGIN_BRIDGE, 5n, 3n), BRIDGE, 2),
      log('Released', releasedArgs(1n, ORIGIN_BRIDGE, 4n, 4n), address(5), 3),
      log('ReleaseQueued', [...releasedArgs(1n, ORIGIN_BRIDGE, 4n, 5n), 99n], BRIDGE, 4),
      log('Released', releasedArgs(1n, ORIGIN_BRIDGE, 4n, 6n), BRIDGE, 5),
    ];
    const { client, filters } = fakeClient(logs);
    expect(await findReleased(client, BRIDGE, message, 7)).toMatchObject({
      originChainId: 1n,
      originBridge: ORIGIN_BRIDGE,
      nonce: 4n,
      amount: 6n,
      logIndex: 5,
    });
    expect(filters).toEqual([
      {
        address: BRIDGE,
        topics: [topicHash('Released'), uintTopic(1n), zeroPadValue(ORIGIN_BRIDGE, 32), uintTopic(4n)],
        fromBlock: '0x7',
        toBlock: 'latest',
      },
    ]);
    expect(await findReleased(client, BRIDGE, { ...message, nonce: 7n })).toBeUndefined();
  });

  it('finds the last ReleaseQueued event of the message (a release queued again after a cancel)', async () => {
    const logs = [
      log('ReleaseQueued', [...releasedArgs(1n, ORIGIN_BRIDGE, 4n, 10n), 100n], BRIDGE, 0),
      log('ReleaseQueued', [...releasedArgs(1n, address(0xee), 4n, 11n), 150n], BRIDGE, 1),
      log('Released', releasedArgs(1n, ORIGIN_BRIDGE, 4n, 12n), BRIDGE, 2),
      log('ReleaseQueued', [...releasedArgs(1n, ORIGIN_BRIDGE, 4n, 13n), 200n], BRIDGE, 3),
    ];
    const { client, filters } = fakeClient(logs);
    expect(await findReleaseQueued(client, BRIDGE, message)).toMatchObject({
      originBridge: ORIGIN_BRIDGE,
      amount: 13n,
      executableAt: 200,
      logIndex: 3,
    });
    expect(filters[0]!.topics).toEqual([
      topicHash('ReleaseQueued'),
      uintTopic(1n),
      zeroPadValue(ORIGIN_BRIDGE, 32),
      uintTopic(4n),
    ]);
    // A negative start block is searched from the chain's first.
    expect(await findReleaseQueued(client, BRIDGE, { ...message, originChainId: 56 }, -5)).toBeUndefined();
    expect(filters[1]!.fromBlock).toBe('0x0');
  });
});
