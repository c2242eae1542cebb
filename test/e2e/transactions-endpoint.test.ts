import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { hexlify, randomBytes, type JsonRpcProvider, type TransactionReceipt, type Wallet } from 'ethers';
import { ChainClient } from '../../shared/chain/chain-client';
import type { ChainConfig } from '../../shared/config/config-schema';
import { devnetKeys } from '../../devnet/keys';
import { startChain, type ChainHandle } from '../../devnet/start-chain';
import { newAccountClient, type ApiClient, type ApiResponse, type Envelope } from '../helpers/api-client';
import { startApi, type RunningApi } from '../helpers/api-harness';
import { createStoreTarget, type StoreTarget } from '../helpers/store-targets';
import { mined, waitForReceipt } from '../../devnet/wait-for-receipt';

/** GET /transactions/{hash}?chainId= through the real HTTP API, against a ganache chain and real transactions. */

interface OnChainStatus {
  hash: string;
  chainId: number;
  status: string;
  blockNumber: number | null;
  confirmations: number;
  gasUsed: string | null;
}

/** PUSH1 0 PUSH1 0 REVERT: every call to it reverts. The init code copies those 5 bytes and returns them. */
const ALWAYS_REVERTS_INIT_CODE = '0x6005600c60003960056000f360006000fd';
const DEAD_CHAIN_ID = 137;
const HUNG_CHAIN_ID = 56;
const URL_IN_TEXT = /(https?|wss?):\/\/|127\.0\.0\.1|localhost/i;

function chainConfig(chainId: number, rpcUrl: string): ChainConfig {
  return {
    chainId,
    name: `test-${chainId}`,
    rpcUrls: [rpcUrl],
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    wrappedNative: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    crossChainSource: true,
  };
}

/** A port nothing listens on: bound once to get a free number, then released. */
async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** A TCP server that accepts connections and never answers: an RPC node that hangs. */
async function hungServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const randomHash = (): string => hexlify(randomBytes(32));

describe('GET /transactions/{hash}', () => {
  let chain: ChainHandle;
  let provider: JsonRpcProvider;
  let sender: Wallet;
  let recipient: string;
  let hung: Awaited<ReturnType<typeof hungServer>>;
  let target: StoreTarget;
  let running: RunningApi;
  let client: ApiClient;
  let deadUrl: string;

  const status = (
    hash: string,
    chainId: number | string = 1,
  ): Promise<ApiResponse<Envelope<OnChainStatus>>> =>
    client.get<OnChainStatus>(`/transactions/${hash}?chainId=${chainId}`);

  async function expectError(
    res: ApiResponse<Envelope>,
    httpStatus: number,
    error: Envelope['error'],
  ): Promise<void> {
    expect(res.status).toBe(httpStatus);
    expect(res.body.success).toBe(false);
    expect(res.body.error).toEqual(error);
    expect(res.body.data).toBeUndefined();
    expect(Object.keys(res.body)).toEqual(['success', 'error', 'meta']);
  }

  async function transfer(): Promise<TransactionReceipt> {
    const tx = await sender.sendTransaction({ to: recipient, value: 10n ** 15n, gasLimit: 21_000n });
    const receipt = await mined(tx);
    if (!receipt || receipt.status !== 1) throw new Error('transfer failed');
    return receipt;
  }

  beforeAll(async () => {
    chain = await startChain({ chainId: 1 });
    provider = chain.provider;
    const keys = devnetKeys();
    sender = keys.accounts[0]!.connect(provider);
    recipient = keys.accounts[1]!.address;
    hung = await hungServer();
    deadUrl = `http://127.0.0.1:${await deadPort()}`;
    target = await createStoreTarget('sqlite');
    running = await startApi(
      target,
      {},
      {
        chains: [
          chainConfig(1, chain.rpcUrl),
          chainConfig(HUNG_CHAIN_ID, hung.url),
          chainConfig(DEAD_CHAIN_ID, deadUrl),
        ],
      },
    );
    client = await newAccountClient(running.baseUrl, 'tx-status-tester');
  });
  afterAll(async () => {
    await running?.close();
    await target?.cleanup();
    await hung?.close();
    await chain?.stop();
  });

  it('reports a mined transfer as success with its block, confirmations and gas used', async () => {
    const receipt = await transfer();
    const res = await status(receipt.hash);
    expect(res.status).toBe(200);
    expect(res.body.success).toBe(true);
    const latest = await provider.getBlockNumber();
    expect(res.body.data).toEqual({
      hash: receipt.hash.toLowerCase(),
      chainId: 1,
      status: 'success',
      blockNumber: receipt.blockNumber,
      confirmations: latest - receipt.blockNumber + 1,
      gasUsed: '21000',
    });
  });

  it('counts one more confirmation per block mined after the transaction', async () => {
    const receipt = await transfer();
    const before = await status(receipt.hash);
    expect(before.body.data?.confirmations).toBe((await provider.getBlockNumber()) - receipt.blockNumber + 1);
    await chain.mine();
    await chain.mine();
    await chain.mine();
    const after = await status(receipt.hash);
    expect(after.body.data).toEqual({
      ...before.body.data,
      confirmations: before.body.data!.confirmations + 3,
    });
  });

  it('reports a mined transaction that reverted as reverted, with the gas it burnt', async () => {
    const deploy = await sender.sendTransaction({ data: ALWAYS_REVERTS_INIT_CODE, gasLimit: 100_000n });
    const deployed = await mined(deploy);
    const contract = deployed!.contractAddress!;
    expect(await provider.getCode(contract)).toBe('0x60006000fd');
    // An explicit gas limit skips eth_estimateGas, which would refuse the call, so the chain mines the revert.
    const tx = await sender.sendTransaction({ to: contract, data: '0x', gasLimit: 60_000n });
    const receipt = await waitForReceipt(provider, tx.hash);
    expect(receipt?.status).toBe(0);
    const res = await status(tx.hash);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      hash: tx.hash.toLowerCase(),
      chainId: 1,
      status: 'reverted',
      blockNumber: receipt!.blockNumber,
      confirmations: (await provider.getBlockNumber()) - receipt!.blockNumber + 1,
      gasUsed: receipt!.gasUsed.toString(),
    });
    expect(BigInt(res.body.data!.gasUsed!)).toBeGreaterThan(21_000n);
  });

  it('reports a transaction in the mempool as pending, then as success once mined', async () => {
    await chain.pauseMining();
    let hash: string;
    try {
      const tx = await sender.sendTransaction({ to: recipient, value: 1n, gasLimit: 21_000n });
      hash = tx.hash;
      const res = await status(hash);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({
        hash: hash.toLowerCase(),
        chainId: 1,
        status: 'pending',
        blockNumber: null,
        confirmations: 0,
        gasUsed: null,
      });
    } finally {
      await chain.resumeMining();
    }
    const receipt = await waitForReceipt(provider, hash);
    const settled = await status(hash);
    expect(settled.body.data).toMatchObject({
      status: 'success',
      blockNumber: receipt!.blockNumber,
      gasUsed: '21000',
    });
  });

  it('answers not_found for a hash the node does not know', async () => {
    const hash = randomHash();
    const res = await status(hash);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      hash,
      chainId: 1,
      status: 'not_found',
      blockNumber: null,
      confirmations: 0,
      gasUsed: null,
    });
  });

  it('accepts the hash in any hex case and echoes it in lowercase', async () => {
    const receipt = await transfer();
    const mixed = `0x${receipt.hash.slice(2).toUpperCase()}`;
    const res = await status(mixed);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hash: receipt.hash.toLowerCase(), status: 'success' });
  });

  it('ignores query parameters other than chainId', async () => {
    const hash = randomHash();
    const res = await client.get<OnChainStatus>(`/transactions/${hash}?foo=bar&chainId=1&status=pending`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ hash, chainId: 1, status: 'not_found' });
  });

  it.each([
    ['too short', `0x${'a'.repeat(63)}`],
    ['too long', `0x${'a'.repeat(65)}`],
    ['not hex', `0x${'g'.repeat(64)}`],
    ['without 0x', 'a'.repeat(64)],
    ['with 0X', `0X${'a'.repeat(64)}`],
    ['a word', 'abc'],
  ])('refuses a malformed hash (%s) with 400 Invalid transaction hash', async (_label, hash) => {
    await expectError(await status(hash), 400, {
      code: 'VALIDATION_ERROR',
      message: 'Invalid transaction hash',
      details: [{ field: 'hash', message: 'Must be a 0x-prefixed 32-byte hex hash' }],
    });
  });

  it('checks the hash before the query', async () => {
    await expectError(await client.get('/transactions/0x12?chainId=abc'), 400, {
      code: 'VALIDATION_ERROR',
      message: 'Invalid transaction hash',
      details: [{ field: 'hash', message: 'Must be a 0x-prefixed 32-byte hex hash' }],
    });
  });

  it('refuses a missing chainId with 400 Invalid query parameters', async () => {
    await expectError(await client.get(`/transactions/${randomHash()}`), 400, {
      code: 'VALIDATION_ERROR',
      message: 'Invalid query parameters',
      details: [{ field: 'chainId', message: 'Is required' }],
    });
  });

  it.each(['abc', '0', '-1', '1.5', '01', '1e3', '', '0x1'])(
    'refuses chainId=%s with 400 Invalid query parameters',
    async (chainId) => {
      await expectError(await status(randomHash(), chainId), 400, {
        code: 'VALIDATION_ERROR',
        message: 'Invalid query parameters',
        details: [{ field: 'chainId', message: 'Has an invalid format' }],
      });
    },
  );

  it('refuses a repeated chainId with 400 Invalid query parameters', async () => {
    await expectError(await client.get(`/transactions/${randomHash()}?chainId=1&chainId=1`), 400, {
      code: 'VALIDATION_ERROR',
      message: 'Invalid query parameters',
      details: [{ field: 'chainId', message: 'Must be a string' }],
    });
  });

  it('refuses a chain that is not enabled', async () => {
    await expectError(await status(randomHash(), 10), 400, {
      code: 'VALIDATION_ERROR',
      message: 'Chain 10 is not enabled',
      details: [{ field: 'chainId', message: 'Chain 10 is not enabled' }],
    });
  });

  it('answers 500 TX_STATUS_ERROR without the RPC URL when the chain RPC is unreachable', async () => {
    const res = await status(randomHash(), DEAD_CHAIN_ID);
    await expectError(res, 500, {
      code: 'TX_STATUS_ERROR',
      message: `Could not read the transaction status on chain ${DEAD_CHAIN_ID}`,
      details: [],
    });
    expect(res.text).not.toMatch(URL_IN_TEXT);
    expect(JSON.stringify(res.body.error)).not.toContain(deadUrl.split(':').pop());
  });

  it('answers 500 TX_STATUS_ERROR within the RPC timeout when the chain RPC hangs', async () => {
    const started = Date.now();
    const res = await status(randomHash(), HUNG_CHAIN_ID);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expectError(res, 500, {
      code: 'TX_STATUS_ERROR',
      message: `Could not read the transaction status on chain ${HUNG_CHAIN_ID}`,
      details: [],
    });
    expect(res.text).not.toMatch(URL_IN_TEXT);
  });

  it('the chain client behind it gives up on a hung RPC after its timeout', async () => {
    const client = new ChainClient(chainConfig(HUNG_CHAIN_ID, hung.url), { timeoutMs: 300, retries: 0 });
    try {
      const started = Date.now();
      await expect(client.blockNumber()).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      client.close();
    }
  });
});
