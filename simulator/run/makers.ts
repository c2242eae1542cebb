import { Contract, parseUnits, type Wallet } from 'ethers';
import { ERC20_ABI, orderExecutorInterface } from '../../shared/chain/contract-interfaces';
import { plainDecimalOf } from '../../shared/domain/amount-bounds';
import { PAIR_AUTHORIZATION_TYPES, pairAuthorizationTypedData } from '../../shared/domain/pair-authorization';
import type { ChainHandle } from '../../devnet/engine/devnet-chain';
import type { ManifestChain, ManifestToken } from '../../devnet/manifest';
import type { PlannedOrders } from '../scenario/scenario-types';
import type { TokenFunding } from './token-funding';
import { succeeded } from './mined-receipt';

const APPROVE_GAS = 100_000n;
/** Native coins each maker gets for its approvals. */
const MAKER_GAS_WEI = 10n ** 19n;

export function tokenOf(chain: ManifestChain, symbol: string): ManifestToken {
  const token = chain.tokens.find((t) => t.symbol === symbol);
  if (!token) throw new Error(`chain ${chain.chainId} has no token ${symbol}`);
  return token;
}

/** A maker's pair signatures on one chain, by "tokenIn:tokenOut" (lowercase addresses). */
export type PairSignatures = Map<string, string>;

export const pairKey = (maker: string, tokenIn: string, tokenOut: string): string =>
  `${maker}:${tokenIn}:${tokenOut}`.toLowerCase();

/**
 * Sets the run's makers up on one chain as integrators would: each holds what its orders sell (plus the most the
 * execution fees can take, the OrderExecutor's fee cap), approves the OrderExecutor for exactly that, and signs one
 * EIP-712 pair authorization per pair it trades, granted to `apiKey` (the key id of the run's API account, which
 * places every order). Returns the signatures by maker and pair.
 */
export async function prepareMakers(
  chain: ChainHandle,
  manifest: ManifestChain,
  plan: PlannedOrders,
  makers: readonly Wallet[],
  funding: TokenFunding,
  apiKey: string,
): Promise<PairSignatures> {
  const { chainId } = manifest;
  const executor = manifest.contracts.orderExecutor;
  const feeBps = await maxFeeBps(chain, executor);
  // What each maker sells per token, in base units.
  const needs = new Map<string, { maker: number; token: ManifestToken; amount: bigint }>();
  const pairs = new Map<string, { maker: number; sell: ManifestToken; buy: ManifestToken }>();
  const need = (maker: number, sell: string, buy: string, amount: bigint): void => {
    const token = tokenOf(manifest, sell);
    const key = `${maker}:${token.address}`;
    const entry = needs.get(key) ?? { maker, token, amount: 0n };
    entry.amount += amount;
    needs.set(key, entry);
    pairs.set(`${maker}:${sell}:${buy}`, { maker, sell: token, buy: tokenOf(manifest, buy) });
  };
  for (const order of plan.limit.filter((o) => o.chainId === chainId)) {
    need(
      order.maker,
      order.sell,
      order.buy,
      parseUnits(order.amount, tokenOf(manifest, order.sell).decimals),
    );
  }
  for (const dca of plan.dca.filter((d) => d.chainId === chainId)) {
    need(
      dca.maker,
      dca.sell,
      dca.buy,
      parseUnits(plainDecimalOf(dca.totalAmount), tokenOf(manifest, dca.sell).decimals),
    );
  }
  const used = new Set([...needs.values()].map((n) => n.maker));
  for (const maker of used) await funding.setNative(makers[maker].address, MAKER_GAS_WEI);
  for (const { maker, token, amount } of needs.values()) {
    const covered = amount + (amount * feeBps) / 10_000n + 1n;
    const wallet = makers[maker].connect(chain.provider);
    await funding.fund(token.address, wallet.address, covered);
    const tx = await new Contract(token.address, ERC20_ABI, wallet).getFunction('approve')(
      executor,
      covered,
      {
        gasLimit: APPROVE_GAS,
      },
    );
    if (!(await succeeded(chain.provider, tx.hash as string)))
      throw new Error(`maker ${wallet.address}'s approval of ${token.symbol} failed`);
  }
  const signatures: PairSignatures = new Map();
  for (const { maker, sell, buy } of pairs.values()) {
    const wallet = makers[maker];
    const typed = pairAuthorizationTypedData(
      chainId,
      executor,
      { maker: wallet.address, tokenIn: sell.address, tokenOut: buy.address },
      apiKey,
      Number(feeBps),
    );
    const signature = await wallet.signTypedData(typed.domain, PAIR_AUTHORIZATION_TYPES, typed.message);
    signatures.set(pairKey(wallet.address, sell.address, buy.address), signature);
  }
  return signatures;
}

/** The OrderExecutor's fee cap (basis points of an order's amount). */
export async function maxFeeBps(chain: ChainHandle, executor: string): Promise<bigint> {
  const iface = orderExecutorInterface();
  const raw = await chain.provider.call({ to: executor, data: iface.encodeFunctionData('maxFeeBps', []) });
  return BigInt(iface.decodeFunctionResult('maxFeeBps', raw)[0] as bigint);
}
