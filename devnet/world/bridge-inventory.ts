import { tokenSpec, type WorldSpec } from './world-spec';

/**
 * What the devnet's bridges start with on each chain: the relayer's fill inventory and the LockReleaseBridge's
 * release liquidity, per token. Pure data, so tests compute the same targets the world used.
 */

/** USD value of each inventory token the relayer holds: 1M USD is over 300 WETH, so tests fill 10 WETH many times. */
export const RELAYER_INVENTORY_USD = 1_000_000n;
/** USD value of each token the LockReleaseBridge holds for releases. */
export const BRIDGE_LIQUIDITY_USD = 500_000n;
/**
 * USD value of each token the LockReleaseBridge releases at once per hour; beyond it a release waits the bridge's
 * delay (a leaked releaser key takes at most this before the owner rotates it).
 */
export const BRIDGE_RELEASE_LIMIT_USD = 100_000n;

const USD_MICROS = 1_000_000n;

/** The tokens the bridges carry: the wrapped native, the stablecoins, and WETH where it is bridged ether. */
export const BRIDGE_SYMBOLS = ['USDC', 'USDT', 'DAI', 'WETH'] as const;

export interface BridgeInventoryToken {
  symbol: string;
  /** Whether this is the chain's wrapped native (wrapped from native coins, not minted). */
  wrapped: boolean;
  /** Base units the relayer holds. */
  relayer: bigint;
  /** Base units the LockReleaseBridge holds. */
  bridge: bigint;
  /** Base units the LockReleaseBridge releases at once per hour. */
  releaseLimit: bigint;
}

function unitsWorth(spec: WorldSpec, symbol: string, usd: bigint): bigint {
  const token = tokenSpec(spec, symbol);
  return (usd * USD_MICROS * 10n ** BigInt(token.decimals)) / token.usdMicros;
}

/** The wrapped native first, then each bridged token the world has (WETH is the wrapped native on ether chains). */
export function bridgeInventory(spec: WorldSpec): BridgeInventoryToken[] {
  const symbols = [
    spec.wrapped.symbol,
    ...BRIDGE_SYMBOLS.filter((s) => s !== spec.wrapped.symbol && spec.tokens.some((t) => t.symbol === s)),
  ];
  return symbols.map((symbol) => ({
    symbol,
    wrapped: symbol === spec.wrapped.symbol,
    relayer: unitsWorth(spec, symbol, RELAYER_INVENTORY_USD),
    bridge: unitsWorth(spec, symbol, BRIDGE_LIQUIDITY_USD),
    releaseLimit: unitsWorth(spec, symbol, BRIDGE_RELEASE_LIMIT_USD),
  }));
}
