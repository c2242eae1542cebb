import { getAddress } from 'ethers';
import { lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import {
  decodeLocked,
  decodeReleased,
  lockedEventsOf,
  releasedEventsOf,
} from '../../shared/bridges/lock-release/locked-event';

const address = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`);
const BRIDGE = address(0xb1);
const position = {
  blockNumber: 5,
  blockHash: `0x${'11'.repeat(32)}`,
  transactionHash: `0x${'22'.repeat(32)}`,
  index: 1,
};

function log(name: 'Locked' | 'Released', args: unknown[], at = BRIDGE) {
  const iface = lockReleaseBridgeInterface();
  return { ...iface.encodeEventLog(iface.getEvent(name)!, args), address: at, ...position };
}

describe('LockReleaseBridge events', () => {
  const locked = log('Locked', [4n, address(1), 137n, address(2), 1000n, address(3), 998n, address(4)]);
  const released = log('Released', [1n, 4n, address(3), 998n, address(4)]);

  it('decodes a Locked log', () => {
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
    });
    expect(decodeLocked(released)).toBeUndefined();
  });

  it('decodes a Released log', () => {
    expect(decodeReleased(released)).toMatchObject({
      bridge: BRIDGE,
      originChainId: 1n,
      nonce: 4n,
      outputToken: address(3),
      amount: 998n,
      recipient: address(4),
    });
    expect(decodeReleased(locked)).toBeUndefined();
  });

  it('takes only the bridge’s own logs from a receipt', () => {
    const foreign = log(
      'Locked',
      [9n, address(1), 137n, address(2), 1n, address(3), 1n, address(4)],
      address(5),
    );
    expect(lockedEventsOf([foreign, released, locked], BRIDGE.toLowerCase()).map((e) => e.nonce)).toEqual([
      4n,
    ]);
    expect(releasedEventsOf([foreign, released, locked], BRIDGE).map((e) => e.nonce)).toEqual([4n]);
  });
});
