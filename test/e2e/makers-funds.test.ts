import { Contract, ContractFactory, getAddress, parseUnits, Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import type { ManifestToken } from '../../devnet/manifest';
import { ERC20_ABI } from '../../shared/chain/contract-interfaces';
import { NATIVE_TOKEN_ADDRESS } from '../../shared/domain/addresses';
import { pairAuthorizationTypedData, PAIR_AUTHORIZATION_TYPES } from '../../shared/domain/pair-authorization';
import { limitOrderBody, limitOrderTokens } from '../factories/limit-orders';
import { newAccountClient, type ApiClient } from '../helpers/api-client';
import { startWethUsdcKeeperE2e, type WethUsdcKeeperE2e } from '../helpers/keeper-e2e';
import {
  approveExecutor,
  balanceOf,
  baseUnits,
  createLimitOrder,
  createStrategy,
  feeCap,
  marketPrice,
  pollUntil,
  priceString,
  strategyOrders,
  token,
  waitForLimitOrder,
  type DcaOrderJson,
} from '../helpers/maker';
import { mined } from '../../devnet/wait-for-receipt';

/**
 * Makers' funds against the attacks of issue 21, through the public API and the chain: a stranger's API key
 * cannot use a maker's (public) pair signature, contract wallets (ERC-1271) are makers like any other, and a
 * maker whose wallet refuses or burns the native coin fails nobody else's orders.
 */

jest.setTimeout(180_000);

let e2e: WethUsdcKeeperE2e;
let usdt: ManifestToken;

beforeAll(async () => {
  e2e = await startWethUsdcKeeperE2e();
  usdt = token(e2e.chain, 'USDT');
}, 150_000);

afterAll(async () => {
  await e2e?.service.close();
});

/** The maker's pair authorization for one API key, signed by `signer` (the maker itself, or a wallet's owner). */
function signFor(signer: Wallet, maker: string, tokenIn: string, tokenOut: string, client: ApiClient) {
  const typed = pairAuthorizationTypedData(
    e2e.chain.chainId,
    e2e.chain.contracts.orderExecutor,
    { maker, tokenIn, tokenOut },
    client.credentials.apiKey,
    // The contract's cap now, as GET /order-authorization offers it.
    Number(e2e.capBps),
  );
  return signer.signTypedData(typed.domain, PAIR_AUTHORIZATION_TYPES, typed.message);
}

/**
 * POST /limit-order selling `amount` WETH for USDC as `accountTo`, at a trigger (and slippage) the market meets now
 * unless `terms` says otherwise.
 */
async function createWethOrder(
  client: ApiClient,
  accountTo: string,
  amount: string,
  signature: string,
  terms: { priceTrigger?: string; slippage?: string } = {},
) {
  const { chain, weth, usdc, service } = e2e;
  const trigger =
    terms.priceTrigger ?? priceString((await marketPrice(service.provider, chain, weth, usdc)) * 0.9);
  return createLimitOrder(
    client,
    limitOrderBody({
      accountTo,
      chainId: chain.chainId,
      ...limitOrderTokens(weth, usdc),
      amount,
      priceTrigger: trigger,
      price: trigger,
      gasPrice: '1',
      slippage: terms.slippage ?? '1',
      signature,
    }),
  );
}

/** A TestContractWallet owned by `owner`, holding `amount` of `tokenIn` and approving the OrderExecutor for it. */
async function contractWallet(owner: Wallet, tokenIn: ManifestToken, amount: bigint, allowance: bigint) {
  const artifact = loadArtifact('TestContractWallet');
  const deployed = await new ContractFactory(artifact.abi, artifact.bytecode, owner).deploy(owner.address);
  await deployed.waitForDeployment();
  const wallet = new Contract(await deployed.getAddress(), artifact.abi, owner);
  const address = getAddress(await wallet.getAddress());
  const erc20 = new Contract(tokenIn.address, ERC20_ABI, owner);
  await mined(erc20.getFunction('transfer')(address, amount));
  const approve = erc20.interface.encodeFunctionData('approve', [
    e2e.chain.contracts.orderExecutor,
    allowance,
  ]);
  await mined(wallet.getFunction('execute')(tokenIn.address, 0n, approve));
  return { wallet, address };
}

describe('a pair signature serves only the API key it was granted to', () => {
  it("fails a stranger's order carrying a maker's signature with BAD_SIGNATURE and moves nothing", async () => {
    const { chain, client, makers, weth, usdc, capBps, balances, service } = e2e;
    const maker = makers[0]!;
    const amountIn = baseUnits('0.05', weth);
    await approveExecutor(maker, chain, weth.address, amountIn * 4n + feeCap(amountIn, capBps) * 4n);
    // The maker's own integrator executes an order: its signature is now public in the batch's calldata.
    const signature = await signFor(maker, maker.address, weth.address, usdc.address, client);
    const own = await createWethOrder(client, maker.address, '0.05', signature);
    expect((await waitForLimitOrder(client, own.id, ['completed'], 60_000)).status).toBe('completed');

    const before = await balances(maker.address);
    const stranger = await newAccountClient(service.api.baseUrl);
    const stolen = await createWethOrder(stranger, maker.address, '0.05', signature, {
      priceTrigger: '0.000001',
      slippage: '99',
    });
    // Accepted at creation (the spec: signatures are not verified then), failed at execution.
    expect(stolen.status).toBe('pending');
    const failed = await waitForLimitOrder(stranger, stolen.id, ['failed', 'completed'], 60_000);
    expect(failed).toMatchObject({ status: 'failed', txHash: '', reasonFail: ['BAD_SIGNATURE'] });
    expect(await balances(maker.address)).toEqual(before);
  });
});

describe('contract-wallet makers (ERC-1271)', () => {
  it("executes a 1-of-1 wallet's limit order and DCA strategy, its owner's key signing for the wallet", async () => {
    const { chain, client, makers, weth, usdc, capBps, service } = e2e;
    const owner = makers[1]!;
    const amountIn = baseUnits('0.04', weth);
    const perIteration = baseUnits('0.02', weth);
    const needed = amountIn + feeCap(amountIn, capBps) + 2n * (perIteration + feeCap(perIteration, capBps));
    const { address } = await contractWallet(owner, weth, needed, needed);
    const signature = await signFor(owner, address, weth.address, usdc.address, client);

    const order = await createWethOrder(client, address, '0.04', signature);
    const done = await waitForLimitOrder(client, order.id, ['completed', 'failed'], 60_000);
    expect(done).toMatchObject({ status: 'completed', reasonFail: [] });
    expect(await balanceOf(service.provider, usdc.address, address)).toBeGreaterThan(0n);

    const strategy = await createStrategy(client, {
      accountTo: address,
      chainIdFrom: chain.chainId,
      chainIdTo: chain.chainId,
      tokenAddressFrom: weth.address,
      tokenAddressTo: usdc.address,
      tokenSymbolFrom: 'WETH',
      tokenSymbolTo: 'USDC',
      pair: 'WETH/USDC',
      totalAmount: 0.04,
      iterations: 2,
      frequency: 2,
      slippage: 1,
      signature,
    });
    const orders = await pollUntil(
      `strategy ${strategy.id} to run both iterations`,
      () => strategyOrders(client, strategy.id),
      (list) => list.length === 2 && list.every((o) => o.status !== 'pending' && o.status !== 'executing'),
      { timeoutMs: 60_000 },
    );
    expect(orders.map((o) => o.status)).toEqual(['successful', 'successful']);
  });
});

describe('EIP-7702 accounts as makers', () => {
  it("executes the limit order of an account delegated to wallet code, signed with the account's own key", async () => {
    const { chain, client, makers, weth, usdc, capBps, service } = e2e;
    const funder = makers[0]!;
    const account = new Wallet(Wallet.createRandom().privateKey, service.provider);
    const amountIn = baseUnits('0.03', weth);
    await mined(funder.sendTransaction({ to: account.address, value: 10n ** 18n }));
    const wethToken = new Contract(weth.address, ERC20_ABI, funder);
    await mined(wethToken.getFunction('transfer')(account.address, amountIn * 2n));
    await approveExecutor(account, chain, weth.address, amountIn + feeCap(amountIn, capBps));
    // Delegate the account to a TestContractWallet's code (EIP-7702, type-4 transaction sent by another wallet).
    const artifact = loadArtifact('TestContractWallet');
    const implementation = await new ContractFactory(artifact.abi, artifact.bytecode, funder).deploy(
      funder.address,
    );
    await implementation.waitForDeployment();
    const authorization = await account.authorize({
      address: await implementation.getAddress(),
      nonce: await service.provider.getTransactionCount(account.address),
      chainId: BigInt(chain.chainId),
    });
    await mined(
      funder.sendTransaction({
        type: 4,
        to: account.address,
        authorizationList: [authorization],
        gasLimit: 100_000n,
      }),
    );
    expect((await service.provider.getCode(account.address)).slice(0, 8)).toBe('0xef0100');

    const signature = await signFor(account, account.address, weth.address, usdc.address, client);
    const order = await createWethOrder(client, account.address, '0.03', signature);
    const done = await waitForLimitOrder(client, order.id, ['completed', 'failed'], 60_000);
    expect(done).toMatchObject({ status: 'completed', reasonFail: [] });
    expect(await balanceOf(service.provider, usdc.address, account.address)).toBeGreaterThan(0n);
  });
});

describe('a maker cannot fail the orders of others', () => {
  it('pays a wallet that refuses the native coin and one that burns its gas in WETH, and the honest maker in the coin', async () => {
    const { chain, client, makers, capBps, service } = e2e;
    const owner = makers[2]!;
    const honest = makers[3]!;
    const weth = token(chain, 'WETH');
    const amount = parseUnits('300', usdt.decimals);
    const allowance = amount + feeCap(amount, capBps);
    const refusing = await contractWallet(owner, usdt, allowance, allowance);
    const burning = await contractWallet(owner, usdt, allowance, allowance);
    await mined(refusing.wallet.getFunction('setReceiveMode')(1));
    await mined(burning.wallet.getFunction('setReceiveMode')(2));
    await approveExecutor(honest, chain, usdt.address, allowance);

    const native = getAddress(NATIVE_TOKEN_ADDRESS);
    const strategyFor = async (maker: string, signer: Wallet) =>
      createStrategy(client, {
        accountTo: maker,
        chainIdFrom: chain.chainId,
        chainIdTo: chain.chainId,
        tokenAddressFrom: usdt.address,
        tokenAddressTo: native,
        tokenSymbolFrom: 'USDT',
        tokenSymbolTo: 'ETH',
        pair: 'USDT/ETH',
        totalAmount: 300,
        iterations: 1,
        frequency: 60,
        slippage: 2,
        signature: await signFor(signer, maker, usdt.address, native, client),
      });
    const before = {
      honestNative: await service.provider.getBalance(honest.address),
      refusingWeth: await balanceOf(service.provider, weth.address, refusing.address),
      burningWeth: await balanceOf(service.provider, weth.address, burning.address),
    };
    // With the keeper stopped, the three iterations come due together: the next keeper sends them in one group.
    await service.stopKeeper(service.keepers[0]!);
    const strategies = [
      await strategyFor(refusing.address, owner),
      await strategyFor(burning.address, owner),
      await strategyFor(honest.address, honest),
    ];
    await service.startKeeper();
    const settled: DcaOrderJson[] = [];
    for (const s of strategies) {
      const [order] = await pollUntil(
        `strategy ${s.id}'s iteration to settle`,
        () => strategyOrders(client, s.id),
        (list) => list.length === 1 && !['pending', 'executing'].includes(list[0]!.status),
        { timeoutMs: 90_000 },
      );
      settled.push(order!);
    }
    expect(settled.map((o) => [o.status, o.errorMessage])).toEqual([
      ['successful', undefined],
      ['successful', undefined],
      ['successful', undefined],
    ]);
    expect(new Set(settled.map((o) => o.transactionHash)).size).toBe(1);
    expect(await service.provider.getBalance(honest.address)).toBeGreaterThan(before.honestNative);
    expect(await balanceOf(service.provider, weth.address, refusing.address)).toBeGreaterThan(
      before.refusingWeth,
    );
    expect(await balanceOf(service.provider, weth.address, burning.address)).toBeGreaterThan(
      before.burningWeth,
    );
    expect(await service.provider.getBalance(refusing.address)).toBe(0n);
  });
});
