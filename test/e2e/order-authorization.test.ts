import {
  id,
  JsonRpcProvider,
  MaxUint256,
  parseUnits,
  TypedDataEncoder,
  verifyTypedData,
  Wallet,
} from 'ethers';
import type { OrderAuthorization } from '../../api/routes/order-authorization/get-order-authorization';
import { dcaStrategyTokens } from '../factories/dca-strategies';
import { limitOrderBody, limitOrderTokens } from '../factories/limit-orders';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { useEmbeddedService } from '../helpers/embedded-service';
import { approveExecutor, balanceOf, feeCap, maxFeeBps, signPair, token } from '../helpers/maker';

/**
 * GET /order-authorization against `npm start`: what a maker must approve and sign, read from the API alone, and
 * what its open orders already need. Orders here never cross (triggers far above the market), so they stay open.
 */

jest.setTimeout(120_000);

const query = (q: Record<string, string | number>): string =>
  `/order-authorization?${new URLSearchParams(Object.entries(q).map(([k, v]): [string, string] => [k, String(v)]))}`;

describe('GET /order-authorization', () => {
  const service = useEmbeddedService();
  let client: ApiClient;
  let provider: JsonRpcProvider;
  let maker: Wallet;

  beforeAll(async () => {
    const { baseUrl, chain } = service();
    client = await newAccountClient(baseUrl);
    provider = new JsonRpcProvider(chain.rpcUrl, chain.chainId, { staticNetwork: true, cacheTimeout: -1 });
    maker = new Wallet(chain.accounts[1]!.privateKey, provider);
  });
  afterAll(() => provider?.destroy());

  const pairQuery = (tokenIn = 'WETH', tokenOut = 'USDC') => {
    const { chain } = service();
    return {
      chainId: chain.chainId,
      accountTo: maker.address,
      tokenIn: token(chain, tokenIn).address,
      tokenOut: token(chain, tokenOut).address,
    };
  };

  it('names the spender and the typed data to sign; the signature it asks for is the one orders execute with', async () => {
    const { chain } = service();
    const weth = token(chain, 'WETH');
    const usdc = token(chain, 'USDC');
    await approveExecutor(maker, chain, weth.address, 0n);
    const res = await client.get<OrderAuthorization>(query(pairQuery()));
    expect(res.body.error).toBeUndefined();
    expect(res.status).toBe(200);
    const data = res.body.data!;
    expect(data).toEqual({
      chainId: 1,
      accountTo: maker.address,
      tokenIn: weth.address,
      tokenOut: usdc.address,
      spender: chain.contracts.orderExecutor,
      typedData: {
        domain: {
          name: 'TradeAggregationService',
          version: '1',
          chainId: 1,
          verifyingContract: chain.contracts.orderExecutor,
        },
        types: {
          EIP712Domain: [
            { name: 'name', type: 'string' },
            { name: 'version', type: 'string' },
            { name: 'chainId', type: 'uint256' },
            { name: 'verifyingContract', type: 'address' },
          ],
          PairAuthorization: [
            { name: 'maker', type: 'address' },
            { name: 'tokenIn', type: 'address' },
            { name: 'tokenOut', type: 'address' },
            { name: 'integrator', type: 'bytes32' },
            { name: 'maxDeviationBps', type: 'uint16' },
            { name: 'maxFeeBps', type: 'uint16' },
          ],
        },
        primaryType: 'PairAuthorization',
        // Granted to the calling key: keccak256 of its key id; 0 = the contract's own price bound; the fee cap
        // the contract has now.
        message: {
          maker: maker.address,
          tokenIn: weth.address,
          tokenOut: usdc.address,
          integrator: id(client.credentials.apiKey),
          maxDeviationBps: 0,
          maxFeeBps: Number(await maxFeeBps(provider, chain)),
        },
      },
      allowance: '0',
      balance: String(await balanceOf(provider, weth.address, maker.address)),
      required: '0',
      estimatedFeePerOrder: expect.stringMatching(/^[1-9][0-9]*$/),
      maxFeeBps: Number(await maxFeeBps(provider, chain)),
      openLimitOrders: 0,
      activeStrategies: 0,
      validSignatureHeld: false,
    });
    // Signed from the answer alone, it is exactly the signature the test helpers (and the contract) use.
    // ethers takes the message's types without EIP712Domain (it derives the domain's type itself).
    const types = { PairAuthorization: data.typedData.types.PairAuthorization };
    const signature = await maker.signTypedData(data.typedData.domain, types, data.typedData.message);
    expect(signature).toBe(
      await signPair(maker, chain, maker.address, weth.address, usdc.address, client.credentials.apiKey),
    );
    expect(verifyTypedData(data.typedData.domain, types, data.typedData.message, signature)).toBe(
      maker.address,
    );
    // The payload eth_signTypedData_v4 hashes is the same as ethers' own.
    expect(TypedDataEncoder.from(types).hash(data.typedData.message)).toBe(
      TypedDataEncoder.from(types).hash({
        maker: maker.address,
        tokenIn: weth.address,
        tokenOut: usdc.address,
        integrator: id(client.credentials.apiKey),
        maxDeviationBps: 0,
        maxFeeBps: data.maxFeeBps,
      }),
    );
    // Another key is another integrator: its answer asks for another signature.
    const { baseUrl } = service();
    const stranger = await newAccountClient(baseUrl);
    const theirs = (await stranger.get<OrderAuthorization>(query(pairQuery()))).body.data!;
    expect(theirs.typedData.message).toEqual({
      ...data.typedData.message,
      integrator: id(stranger.credentials.apiKey),
    });
    const theirSignature = await maker.signTypedData(
      theirs.typedData.domain,
      types,
      theirs.typedData.message,
    );
    expect(theirSignature).not.toBe(signature);
    expect(theirSignature).toBe(
      await signPair(maker, chain, maker.address, weth.address, usdc.address, stranger.credentials.apiKey),
    );
  });

  it("counts this key's open orders and active strategies selling the token, with their fees, and the signature it holds", async () => {
    const { chain, baseUrl } = service();
    const weth = token(chain, 'WETH');
    const usdc = token(chain, 'USDC');
    const link = token(chain, 'LINK');
    const signature = await signPair(
      maker,
      chain,
      maker.address,
      weth.address,
      usdc.address,
      client.credentials.apiKey,
    );
    await approveExecutor(maker, chain, weth.address, MaxUint256);
    const order = (amount: string, tokenOut = usdc, sig = signature) =>
      limitOrderBody({
        accountTo: maker.address,
        chainId: 1,
        ...limitOrderTokens(weth, tokenOut),
        amount,
        priceTrigger: '1000000',
        price: '1000000',
        gasPrice: '30',
        slippage: '1',
        signature: sig,
      });
    const created = await Promise.all(
      [order('0.5'), order('0.25')].map((b) => client.post('/limit-order', b)),
    );
    expect(created.map((r) => r.status)).toEqual([200, 200]);
    // Another pair selling WETH counts too (one allowance per token); its bad signature is not this pair's.
    const other = await client.post('/limit-order', order('0.125', link, '0x' + '11'.repeat(65)));
    expect(other.status).toBe(200);
    const strategy = await client.post<{ id: string }>('/dca-order/strategies', {
      accountTo: maker.address,
      chainIdFrom: 1,
      chainIdTo: 1,
      ...dcaStrategyTokens(weth, usdc),
      totalAmount: 0.3,
      iterations: 3,
      frequency: 3600,
      slippage: 1,
      // Far above the market: no iteration runs while the test reads.
      minPrice: 1000000,
      signature,
    });
    expect(strategy.status).toBe(200);
    // Another key's orders of the same maker are not this key's to count.
    const stranger = await newAccountClient(baseUrl);
    expect((await stranger.post('/limit-order', order('7'))).status).toBe(200);

    const data = (await client.get<OrderAuthorization>(query(pairQuery()))).body.data!;
    const fee = BigInt(data.estimatedFeePerOrder!);
    const bps = BigInt(data.maxFeeBps);
    const withFee = (amount: bigint) => amount + (fee < feeCap(amount, bps) ? fee : feeCap(amount, bps));
    const e18 = (v: string) => parseUnits(v, 18);
    const expected =
      withFee(e18('0.5')) + withFee(e18('0.25')) + withFee(e18('0.125')) + 3n * withFee(e18('0.1'));
    expect(data).toMatchObject({
      allowance: MaxUint256.toString(),
      required: expected.toString(),
      openLimitOrders: 3,
      activeStrategies: 1,
      validSignatureHeld: true,
    });
    // The stranger's order carries the maker's grant to this key, which is no valid signature for the stranger's.
    const theirs = (await stranger.get<OrderAuthorization>(query(pairQuery()))).body.data!;
    expect(theirs).toMatchObject({ openLimitOrders: 1, activeStrategies: 0, validSignatureHeld: false });
    // The bad signature is on the WETH/LINK pair: the service holds no valid signature for it.
    const linkPair = (await client.get<OrderAuthorization>(query(pairQuery('WETH', 'LINK')))).body.data!;
    expect(linkPair).toMatchObject({ required: expected.toString(), validSignatureHeld: false });

    // A cancelled order and a cancelled strategy need nothing any more.
    await client.delete(`/limit-order/${(created[0]!.body.data as { id: string }).id}`);
    await client.patch(`/dca-order/strategies/${strategy.body.data!.id}`, { status: 'cancelled' });
    const after = (await client.get<OrderAuthorization>(query(pairQuery()))).body.data!;
    expect(after).toMatchObject({
      required: (withFee(e18('0.25')) + withFee(e18('0.125'))).toString(),
      openLimitOrders: 2,
      activeStrategies: 0,
      validSignatureHeld: true,
    });
  });

  it('holds a signature valid for the fee cap its order was sent with, not for another', async () => {
    const { chain, baseUrl } = service();
    const weth = token(chain, 'WETH');
    const link = token(chain, 'LINK');
    const fresh = await newAccountClient(baseUrl);
    const cap = Number(await maxFeeBps(provider, chain));
    const signedFor = (bps: number) =>
      signPair(maker, chain, maker.address, weth.address, link.address, fresh.credentials.apiKey, bps);
    const order = async (signature: string, over: { maxFeeBps?: number } = {}) => {
      const res = await fresh.post(
        '/limit-order',
        limitOrderBody({
          accountTo: maker.address,
          chainId: 1,
          ...limitOrderTokens(weth, link),
          amount: '0.01',
          priceTrigger: '1000000',
          price: '1000000',
          gasPrice: '30',
          slippage: '1',
          signature,
          ...over,
        }),
      );
      expect(res.status).toBe(200);
    };
    const held = async () =>
      (await fresh.get<OrderAuthorization>(query(pairQuery('WETH', 'LINK')))).body.data!.validSignatureHeld;
    const at30 = await signedFor(30);
    // Signed for 30 bps but sent without the cap: the keeper would check it against the contract's cap.
    await order(at30);
    expect(await held()).toBe(false);
    // Sent with the cap it was signed for: held, though the contract's cap is another.
    expect(cap).not.toBe(30);
    await order(at30, { maxFeeBps: 30 });
    expect(await held()).toBe(true);
  });

  it('prices the fee of a token other than the native coin from the pools', async () => {
    const data = (await client.get<OrderAuthorization>(query(pairQuery('USDC', 'WETH')))).body.data!;
    // ~195k gas at a devnet gas price of a few gwei, at ~3,000 USDC per ETH: cents to a few dollars, in 6 decimals.
    const fee = BigInt(data.estimatedFeePerOrder!);
    expect(fee).toBeGreaterThan(0n);
    expect(fee).toBeLessThan(100_000_000n);
  });

  it('refuses bad queries with the spec’s validation errors', async () => {
    const { chain } = service();
    const good = pairQuery();
    const cases: Array<[Record<string, string | number>, string, Array<{ field: string; message: string }>]> =
      [
        [
          { chainId: 1 },
          'Invalid query parameters',
          [
            { field: 'accountTo', message: expect.any(String) },
            { field: 'tokenIn', message: expect.any(String) },
            { field: 'tokenOut', message: expect.any(String) },
          ],
        ],
        [
          { ...good, accountTo: good.accountTo.toLowerCase().replace('0x', '0X') },
          'Invalid query parameters',
          [{ field: 'accountTo', message: 'Must be a valid EVM address' }],
        ],
        [
          { ...good, tokenIn: '0x' + 'e'.repeat(40) },
          'Invalid query parameters',
          [
            {
              field: 'tokenIn',
              message:
                'Must be a valid ERC-20 token address (the native token cannot be sold; use the wrapped token)',
            },
          ],
        ],
        [
          { ...good, tokenOut: good.tokenIn },
          'Invalid query parameters',
          [{ field: 'tokenOut', message: 'Must differ from tokenIn' }],
        ],
        [
          { ...good, tokenIn: '0x' + '12'.repeat(20) },
          'Invalid query parameters',
          [{ field: 'tokenIn', message: 'Must be a token listed for chain 1 (see GET /tokens)' }],
        ],
        [
          { ...good, chainId: 5 },
          'Chain 5 is not enabled',
          [{ field: 'chainId', message: 'Chain 5 is not enabled' }],
        ],
      ];
    for (const [q, message, details] of cases) {
      const res = await client.get(query(q));
      expect({ q, status: res.status, error: res.body.error }).toEqual({
        q,
        status: 400,
        error: { code: 'VALIDATION_ERROR', message, details },
      });
    }
    const unknown = await client.get(`${query(good)}&amount=1`);
    expect(unknown.status).toBe(400);
    expect(chain.chainId).toBe(1);
  });
});
