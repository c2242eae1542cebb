import { readFileSync } from 'node:fs';
import { Interface, makeError, type JsonFragment } from 'ethers';
import { Registry } from 'prom-client';
import { ChainClient } from '../../shared/chain/chain-client';
import { ChainClients } from '../../shared/chain/chain-clients';
import { ChainRegistry } from '../../shared/chain/chain-registry';
import { MULTICALL_ABI } from '../../shared/chain/multicall';
import { redactUrl, redactUrls } from '../../shared/chain/redact-url';
import {
  RpcTimeoutError,
  RpcUnavailableError,
  classifyRpcFailure,
  sanitizedError,
} from '../../shared/chain/rpc-errors';
import { RpcMetrics } from '../../shared/chain/rpc-metrics';

/** The parts of chain access that need no chain: URL redaction, error classification, metric names, the ABI. */

describe('redactUrl', () => {
  it('drops userinfo, query and fragment, and masks key-like path segments', () => {
    expect(redactUrl('http://user:secret@127.0.0.1:8545/?key=abc#x')).toBe('http://127.0.0.1:8545');
    expect(redactUrl('https://mainnet.infura.io/v3/0123456789abcdef0123456789abcdef')).toBe(
      'https://mainnet.infura.io/v3/***',
    );
    expect(redactUrl('https://polygon-rpc.com/')).toBe('https://polygon-rpc.com');
    expect(redactUrl('not a url with secret')).toBe('[unparseable url]');
  });

  it('redacts every URL quoted in a text', () => {
    const text =
      'request to "http://u:pw@node.example:8545/rpc?apikey=k1" failed (https://a.example/?token=t2)';
    const redacted = redactUrls(text);
    expect(redacted).toBe('request to "http://node.example:8545/rpc" failed (https://a.example)');
    for (const secret of ['pw', 'k1', 't2']) expect(redacted).not.toContain(secret);
  });
});

describe('classifyRpcFailure', () => {
  // The shapes ethers gives a node's JSON-RPC error: `info.error` on call exceptions, `error` otherwise.
  const rpcError = (code: number, message: string, ethersCode: 'CALL_EXCEPTION' | 'UNKNOWN_ERROR') =>
    ethersCode === 'CALL_EXCEPTION'
      ? Object.assign(new Error('execution reverted'), {
          code: ethersCode,
          info: { error: { code, message } },
        })
      : makeError('could not coalesce error', 'UNKNOWN_ERROR', { error: { code, message } });

  it('retries timeouts, network and HTTP failures, and lagging or overloaded nodes', () => {
    expect(classifyRpcFailure(new RpcTimeoutError(5000))).toBe('timeout');
    expect(classifyRpcFailure(makeError('timeout', 'TIMEOUT'))).toBe('timeout');
    expect(classifyRpcFailure(new TypeError('fetch failed'))).toBe('transient');
    expect(classifyRpcFailure(makeError('server response 503', 'SERVER_ERROR'))).toBe('transient');
    expect(classifyRpcFailure(makeError('bad response', 'BAD_DATA'))).toBe('transient');
    // An eth_call at a block the node has not seen yet: ethers reports it as a call exception.
    expect(classifyRpcFailure(rpcError(-32000, 'header not found', 'CALL_EXCEPTION'))).toBe('transient');
    expect(classifyRpcFailure(rpcError(-32005, 'limit exceeded', 'UNKNOWN_ERROR'))).toBe('transient');
    expect(classifyRpcFailure(rpcError(-32603, 'internal error', 'UNKNOWN_ERROR'))).toBe('transient');
    expect(classifyRpcFailure(rpcError(-32000, 'missing trie node abc', 'CALL_EXCEPTION'))).toBe('transient');
  });

  it('never retries reverts, invalid params or unknown methods', () => {
    expect(classifyRpcFailure(rpcError(3, 'execution reverted', 'CALL_EXCEPTION'))).toBe('deterministic');
    expect(
      classifyRpcFailure(
        rpcError(-32603, 'VM Exception while processing transaction: revert', 'CALL_EXCEPTION'),
      ),
    ).toBe('deterministic');
    expect(classifyRpcFailure(rpcError(-32602, 'invalid argument 0', 'UNKNOWN_ERROR'))).toBe('deterministic');
    expect(classifyRpcFailure(rpcError(-32601, 'method not found', 'UNKNOWN_ERROR'))).toBe('deterministic');
    expect(
      classifyRpcFailure(makeError('invalid hash', 'INVALID_ARGUMENT', { argument: 'hash', value: 1 })),
    ).toBe('deterministic');
  });
});

describe('errors without credentials', () => {
  it('sanitizedError keeps the reason and code, not the URL secrets or the ethers request', () => {
    const failed = new TypeError('fetch failed');
    Object.assign(failed, {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND https://user:pw@x.example/?key=abc'), {
        code: 'ENOTFOUND',
      }),
    });
    const safe = sanitizedError(failed);
    expect(safe.message).toBe('fetch failed: getaddrinfo ENOTFOUND https://x.example');
    expect((safe as Error & { code?: string }).code).toBe('ENOTFOUND');
    expect(Object.keys(safe)).toEqual(['code']);
  });

  it('RpcUnavailableError names the chain, method and attempts', () => {
    const err = new RpcUnavailableError(137, 'eth_call', 3, makeError('server response 503', 'SERVER_ERROR'));
    expect(err.message).toBe(
      'chain 137: eth_call failed after 3 attempt(s) on every RPC URL: server response 503',
    );
    expect(err.cause.message).toBe('server response 503');
    expect(err).toBeInstanceOf(Error);
  });
});

describe('RpcMetrics', () => {
  it('registers the three metrics under the process prefix, on the given registry only', async () => {
    const registry = new Registry();
    const metrics = new RpcMetrics(registry, 'tas_keeper_');
    metrics.request(1, 'eth_call', 'ok', 0.012);
    metrics.request(1, 'eth_call', 'timeout', 5);
    metrics.failover(1);
    const text = await registry.metrics();
    expect(text).toContain('tas_keeper_rpc_requests_total{chain_id="1",method="eth_call",outcome="ok"} 1');
    expect(text).toContain(
      'tas_keeper_rpc_requests_total{chain_id="1",method="eth_call",outcome="timeout"} 1',
    );
    expect(text).toContain('tas_keeper_rpc_duration_seconds_count{chain_id="1",method="eth_call"} 2');
    expect(text).toContain('tas_keeper_rpc_failovers_total{chain_id="1"} 1');
    // Both processes' metrics fit on one registry (the embedded process runs api and keeper together).
    expect(() => new RpcMetrics(registry, 'tas_api_')).not.toThrow();
    expect(() => new RpcMetrics(new Registry(), 'tas-api')).toThrow('metric prefix');
  });
});

describe('multicall ABI', () => {
  it('is the multicall function of the published UniswapInterfaceMulticall build', () => {
    const file =
      require.resolve('@uniswap/v3-periphery/artifacts/contracts/lens/UniswapInterfaceMulticall.sol/UniswapInterfaceMulticall.json');
    const artifact = JSON.parse(readFileSync(file, 'utf8')) as { abi: JsonFragment[] };
    const published = new Interface(artifact.abi).getFunction('multicall')!;
    const ours = new Interface(MULTICALL_ABI).getFunction('multicall')!;
    expect(ours.format('full')).toBe(published.format('full'));
    expect(ours.selector).toBe(published.selector);
  });
});

describe('ChainClient options', () => {
  it('refuses a chain without RPC URL and nonsensical retry settings', () => {
    expect(() => new ChainClient({ chainId: 1, name: 'x', rpcUrls: [] })).toThrow('has no RPC URL');
    const config = { chainId: 1, name: 'x', rpcUrls: ['http://127.0.0.1:1'] };
    expect(() => new ChainClient(config, { retries: -1 })).toThrow('invalid RPC options');
    expect(() => new ChainClient(config, { timeoutMs: 0 })).toThrow('invalid RPC options');
  });
});

describe('ChainClients', () => {
  it('has a client for every enabled chain with an RPC URL and none for a chain without one', () => {
    const base = { nativeSymbol: 'ETH', nativeDecimals: 18, crossChainSource: true };
    const registry = new ChainRegistry([
      {
        ...base,
        chainId: 1,
        name: 'One',
        rpcUrls: ['http://127.0.0.1:1'],
        wrappedNative: `0x${'11'.repeat(20)}`,
      },
      { ...base, chainId: 10, name: 'Ten', rpcUrls: [], wrappedNative: `0x${'22'.repeat(20)}` },
    ]);
    const clients = new ChainClients(registry);
    try {
      expect(clients.ids()).toEqual([1]);
      expect(clients.find(1)?.chainId).toBe(1);
      expect(clients.find(10)).toBeUndefined();
      expect(clients.find(56)).toBeUndefined();
    } finally {
      clients.close();
    }
  });
});
