import path from 'node:path';
import type { ChainConfig } from '../../shared/config/config-schema';
import { checkEnvironment, ConfigError, loadConfig } from '../../shared/config/load-config';
import { parsePrivateRpcUrls } from '../../shared/config/private-rpc-urls';

const CHAINS_FILE = path.resolve(__dirname, '../../config/chains.json');
/** What a private endpoint's URL may hold: never repeated in an error. */
const KEY = 's3cretKey0123456789';

const chain: ChainConfig = {
  chainId: 1,
  name: 'Ethereum',
  rpcUrls: ['http://127.0.0.1:8545'],
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  wrappedNative: `0x${'1'.repeat(40)}`,
  crossChainSource: false,
};

function problem(env: Record<string, string>, chains?: ChainConfig[]): string {
  try {
    loadConfig({ CHAINS_FILE, ...env }, chains ? { chains } : {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error('the configuration was accepted');
}

describe('private submission settings', () => {
  it('default to public sends, with a 10-block fallback that is not allowed', () => {
    expect(loadConfig({ CHAINS_FILE }).keeper).toMatchObject({
      privateRpcUrls: [],
      privateFallbackBlocks: 10,
      privateFallbackPublic: false,
    });
  });

  it('read KEEPER_PRIVATE_RPC_URLS per chain: chainId=url|url,chainId=url', () => {
    const keeper = loadConfig({
      CHAINS_FILE,
      KEEPER_PRIVATE_RPC_URLS: ` 1=https://rpc.flashbots.net/fast | https://rpc.mevblocker.io/${KEY}?x=1 ,137=http://127.0.0.1:9000 `,
      KEEPER_PRIVATE_FALLBACK_BLOCKS: '2',
      KEEPER_PRIVATE_FALLBACK_PUBLIC: 'true',
    }).keeper;
    expect(keeper.privateRpcUrls).toEqual([
      { chainId: 1, urls: ['https://rpc.flashbots.net/fast', `https://rpc.mevblocker.io/${KEY}?x=1`] },
      { chainId: 137, urls: ['http://127.0.0.1:9000'] },
    ]);
    expect(keeper).toMatchObject({ privateFallbackBlocks: 2, privateFallbackPublic: true });
    expect(parsePrivateRpcUrls('')).toEqual([]);
  });

  it.each([
    [`1=ftp://relay.example/${KEY}`, "chain 1's URL 1 must be an http(s) URL"],
    [`1=https://a.example|relay.example/${KEY}`, "chain 1's URL 2 must be an http(s) URL"],
    [`https://relay.example/${KEY}`, 'entry 1 must be chainId=url|url with a positive integer chain id'],
    [`1=https://a.example,mainnet=https://relay.example/${KEY}`, 'entry 2 must be chainId=url|url'],
    ['1=', 'entry 1 (chain 1) names no URL'],
    [`1=https://a.example,1=https://relay.example/${KEY}`, 'chain 1 is listed twice'],
  ])('refuse %s with a clear error that never shows a URL', (value, message) => {
    const text = problem({ KEEPER_PRIVATE_RPC_URLS: value });
    expect(text).toContain(`Invalid configuration: KEEPER_PRIVATE_RPC_URLS (value not shown): ${message}`);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('example');
  });

  it('are checked before the chains exist', () => {
    expect(() =>
      checkEnvironment({ CHAINS_FILE: '/nonexistent.json', KEEPER_PRIVATE_RPC_URLS: '1=ws://relay' }),
    ).toThrow(/KEEPER_PRIVATE_RPC_URLS \(value not shown\): chain 1's URL 1 must be an http\(s\) URL/);
    expect(() =>
      checkEnvironment({ CHAINS_FILE: '/nonexistent.json', KEEPER_PRIVATE_RPC_URLS: '1=https://relay' }),
    ).not.toThrow();
  });

  it('name a bad fallback setting and its value', () => {
    expect(problem({ KEEPER_PRIVATE_FALLBACK_BLOCKS: '0' })).toBe(
      'Invalid configuration: KEEPER_PRIVATE_FALLBACK_BLOCKS="0" must be >= 1',
    );
    expect(problem({ KEEPER_PRIVATE_FALLBACK_PUBLIC: 'maybe' })).toBe(
      'Invalid configuration: KEEPER_PRIVATE_FALLBACK_PUBLIC="maybe" must be boolean',
    );
    for (const [value, expected] of [
      ['1', true],
      ['yes', true],
      ['FALSE', false],
      ['off', false],
    ] as const) {
      expect(
        loadConfig({ CHAINS_FILE, KEEPER_PRIVATE_FALLBACK_PUBLIC: value }).keeper.privateFallbackPublic,
      ).toBe(expected);
    }
  });

  it("take a chain entry's privateRpcUrls, checked as http(s) URLs without showing them", () => {
    const config = loadConfig(
      { CHAINS_FILE },
      { chains: [{ ...chain, privateRpcUrls: ['https://rpc.flashbots.net'] }] },
    );
    expect(config.chains[0]!.privateRpcUrls).toEqual(['https://rpc.flashbots.net']);
    expect(problem({}, [{ ...chain, privateRpcUrls: [`wss://relay.example/${KEY}`] }])).toBe(
      'Invalid configuration: CHAINS_FILE chains[0].privateRpcUrls.0 must match pattern "^https?://"',
    );
    const unparseable = problem({}, [{ ...chain, privateRpcUrls: ['https://a.example', `https://[${KEY}`] }]);
    expect(unparseable).toBe(
      'Invalid configuration: CHAINS_FILE chains[0].privateRpcUrls[1] must be an http(s) URL (value not shown)',
    );
  });
});
