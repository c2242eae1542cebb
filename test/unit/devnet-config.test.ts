import path from 'node:path';
import { loadDevnetConfig } from '../../devnet/devnet-config';
import { ConfigError } from '../../shared/config/load-config';

describe('devnet configuration', () => {
  it('defaults to two instant-mining anvil chains with the real ids 1 and 137 on ports 8545 and 8546', () => {
    expect(loadDevnetConfig({})).toEqual({
      enabled: true,
      chainIds: [1, 137],
      ports: [8545, 8546],
      blockTime: 0,
      executorCount: 2,
      dataDir: path.resolve('./data'),
      forkUrl: '',
      forkBlockNumber: null,
      engine: 'anvil',
    });
  });

  it('takes ganache as engine and names DEVNET_ENGINE and its value when it is neither', () => {
    expect(loadDevnetConfig({ DEVNET_ENGINE: 'ganache' }).engine).toBe('ganache');
    expect(() => loadDevnetConfig({ DEVNET_ENGINE: 'hardhat' })).toThrow(
      new ConfigError(
        'Invalid devnet configuration: DEVNET_ENGINE="hardhat" must be equal to one of the allowed values',
      ),
    );
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

  it('gives each chain a consecutive port from 8545 when DEVNET_PORTS is not set', () => {
    const all = '1,10,56,137,8453,42161,43114,59144';
    expect(loadDevnetConfig({ DEVNET_CHAINS: all })).toMatchObject({
      chainIds: [1, 10, 56, 137, 8453, 42161, 43114, 59144],
      ports: [8545, 8546, 8547, 8548, 8549, 8550, 8551, 8552],
    });
    expect(loadDevnetConfig({ DEVNET_CHAINS: '56', DEVNET_PORTS: '' }).ports).toEqual([8545]);
    expect(loadDevnetConfig({ DEVNET_CHAINS: '43114,1', DEVNET_PORTS: '0,0' }).ports).toEqual([0, 0]);
  });

  it('names the variable and the value it was given in one line', () => {
    const problem = (env: Record<string, string>): string => {
      try {
        loadDevnetConfig(env);
      } catch (err) {
        expect(err).toBeInstanceOf(ConfigError);
        return (err as Error).message;
      }
      throw new Error('the configuration was accepted');
    };
    expect(problem({ DEVNET_PORTS: '8545' })).toBe(
      'Invalid devnet configuration: DEVNET_PORTS="8545" needs one port per chain of DEVNET_CHAINS="1,137"',
    );
    expect(problem({ DEVNET_CHAINS: '1,10,56', DEVNET_PORTS: '9000,9001' })).toBe(
      'Invalid devnet configuration: DEVNET_PORTS="9000,9001" needs one port per chain of DEVNET_CHAINS="1,10,56"',
    );
    expect(problem({ DEVNET_PORTS: '9000,9000' })).toBe(
      'Invalid devnet configuration: DEVNET_PORTS="9000,9000" lists port 9000 twice',
    );
    expect(problem({ DEVNET_PORTS: '8545,99999' })).toBe(
      'Invalid devnet configuration: DEVNET_PORTS="8545,99999" must be <= 65535',
    );
    expect(problem({ DEVNET_BLOCK_TIME: 'soon' })).toBe(
      'Invalid devnet configuration: DEVNET_BLOCK_TIME="soon" must be number',
    );
    expect(problem({ DEVNET_EXECUTORS: '0', DEVNET_FORK_BLOCK: '-1' })).toBe(
      'Invalid devnet configuration: DEVNET_EXECUTORS="0" must be >= 1; DEVNET_FORK_BLOCK="-1" must be >= 0',
    );
    // Ports follow the chains when DEVNET_PORTS is not set: a bad chain list is reported once, as itself.
    expect(problem({ DEVNET_CHAINS: '' })).toBe(
      'Invalid devnet configuration: DEVNET_CHAINS="" must NOT have fewer than 1 items',
    );
    expect(problem({ DEVNET_CHAINS: '1,polygon' })).toBe(
      'Invalid devnet configuration: DEVNET_CHAINS="1,polygon" must be integer',
    );
    expect(problem({ DEVNET_CHAINS: '1,1' })).toMatch(
      /^Invalid devnet configuration: DEVNET_CHAINS="1,1" must NOT have duplicate items/,
    );
  });

  it('refuses a fork of several chains and a fork URL that is not http(s) or ws(s), never repeating the URL', () => {
    expect(() => loadDevnetConfig({ DEVNET_FORK_URL: 'http://127.0.0.1:1' })).toThrow(
      'Invalid devnet configuration: DEVNET_CHAINS="1,137" must name exactly one chain in forked mode (DEVNET_FORK_URL is set)',
    );
    expect(() => loadDevnetConfig({ DEVNET_FORK_URL: 'ftp://s3cret@x', DEVNET_CHAINS: '1' })).toThrow(
      /^Invalid devnet configuration: DEVNET_FORK_URL \(value not shown\) must match pattern/,
    );
    expect(() => loadDevnetConfig({ DEVNET_FORK_URL: 'ftp://s3cret@x', DEVNET_CHAINS: '1' })).not.toThrow(
      /s3cret/,
    );
    expect(
      loadDevnetConfig({ DEVNET_FORK_URL: 'https://rpc.example.org/key', DEVNET_CHAINS: '137' }),
    ).toMatchObject({ chainIds: [137], ports: [8545], forkUrl: 'https://rpc.example.org/key' });
  });
});
