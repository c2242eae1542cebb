import path from 'node:path';
import { loadDevnetConfig } from '../../devnet/devnet-config';

describe('devnet configuration', () => {
  it('defaults to two instant-mining chains with the real ids 1 and 137 on ports 8545 and 8546', () => {
    expect(loadDevnetConfig({})).toEqual({
      enabled: true,
      chainIds: [1, 137],
      ports: [8545, 8546],
      blockTime: 0,
      executorCount: 2,
      dataDir: path.resolve('./data'),
      forkUrl: '',
      forkBlockNumber: null,
    });
  });

  it('reads every variable', () => {
    expect(
      loadDevnetConfig({
        DEVNET: 'off',
        DEVNET_CHAINS: '10, 8453',
        DEVNET_PORTS: '9545,9546',
        DEVNET_BLOCK_TIME: '2',
        DEVNET_EXECUTORS: '3',
        DATA_DIR: '/tmp/x',
      }),
    ).toMatchObject({
      enabled: false,
      chainIds: [10, 8453],
      ports: [9545, 9546],
      blockTime: 2,
      executorCount: 3,
      dataDir: '/tmp/x',
    });
  });

  it('refuses a port list that does not match the chains, bad numbers, and a fork of several chains', () => {
    expect(() => loadDevnetConfig({ DEVNET_PORTS: '8545' })).toThrow(
      'Invalid devnet configuration: DEVNET_PORTS needs one port per DEVNET_CHAINS entry',
    );
    expect(() => loadDevnetConfig({ DEVNET_BLOCK_TIME: 'soon' })).toThrow(
      /Invalid devnet configuration: \/blockTime/,
    );
    expect(() => loadDevnetConfig({ DEVNET_FORK_URL: 'http://127.0.0.1:1' })).toThrow(
      'Invalid devnet configuration: forked mode runs exactly one chain (DEVNET_CHAINS)',
    );
    expect(() =>
      loadDevnetConfig({ DEVNET_FORK_URL: 'ftp://x', DEVNET_CHAINS: '1', DEVNET_PORTS: '1' }),
    ).toThrow(/forkUrl/);
  });
});
