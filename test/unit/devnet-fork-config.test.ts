import { ganacheOptions } from '../../devnet/chain-options';
import { forkChainOptions } from '../../devnet/fork-config';

const KEY = `0x${'11'.repeat(32)}`;

describe('forked devnet chains', () => {
  it('fork a user-supplied RPC URL at a pinned block with the real chain id', () => {
    expect(
      forkChainOptions({ url: 'https://rpc.example.org/v1/key', blockNumber: 19_000_000, chainId: 1 }),
    ).toEqual({
      fork: { url: 'https://rpc.example.org/v1/key', blockNumber: 19_000_000 },
      chain: { chainId: 1, networkId: 1 },
    });
  });

  it('fork the latest block when no block number is given', () => {
    const options = forkChainOptions({ url: 'wss://polygon.example.org', chainId: 137 });
    expect(options).toEqual({
      fork: { url: 'wss://polygon.example.org' },
      chain: { chainId: 137, networkId: 137 },
    });
    expect('blockNumber' in options.fork).toBe(false);
  });

  it.each([
    [{ url: 'not a url', chainId: 1 }, 'fork.url is not a URL'],
    [{ url: 'ftp://rpc.example.org', chainId: 1 }, 'fork.url must be an http(s) or ws(s) URL'],
    [
      { url: 'https://rpc.example.org', blockNumber: -1, chainId: 1 },
      'fork.blockNumber must be a non-negative integer',
    ],
    [
      { url: 'https://rpc.example.org', blockNumber: 1.5, chainId: 1 },
      'fork.blockNumber must be a non-negative integer',
    ],
    [{ url: 'https://rpc.example.org', chainId: 0 }, 'chainId must be a positive integer'],
  ])('refuse %j', (input, message) => {
    expect(() => forkChainOptions(input)).toThrow(message);
  });

  it('keep the devnet settings (Shanghai, funded keys, quiet, block time) under the fork settings', () => {
    const options = ganacheOptions({
      chainId: 137,
      fundedKeys: [KEY],
      balanceWei: 10n ** 25n,
      blockTime: 2,
      dbPath: '/data/chain-137',
      fork: { url: 'https://polygon.example.org', blockNumber: 55_000_000 },
    });
    expect(options).toEqual({
      chain: { chainId: 137, networkId: 137, hardfork: 'shanghai', allowUnlimitedContractSize: true },
      miner: { blockTime: 2 },
      wallet: { accounts: [{ secretKey: KEY, balance: '0x84595161401484a000000' }] },
      logging: { quiet: true },
      database: { dbPath: '/data/chain-137' },
      fork: { url: 'https://polygon.example.org', blockNumber: 55_000_000 },
    });
  });
});

describe('plain devnet chains', () => {
  it('mine instantly in memory by default and never fork', () => {
    const options = ganacheOptions({ chainId: 1, fundedKeys: [KEY], balanceWei: 1n });
    expect(options).toEqual({
      chain: { chainId: 1, networkId: 1, hardfork: 'shanghai', allowUnlimitedContractSize: true },
      miner: { blockTime: 0 },
      wallet: { accounts: [{ secretKey: KEY, balance: '0x1' }] },
      logging: { quiet: true },
    });
  });

  it('refuse a negative block time', () => {
    expect(() => ganacheOptions({ chainId: 1, fundedKeys: [], balanceWei: 1n, blockTime: -1 })).toThrow(
      'blockTime',
    );
  });
});
