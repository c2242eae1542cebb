import type { DeployedWorld } from './deploy-world';
import { tokenSpec, worldSpec } from './world-spec';

/** A Uniswap Token Lists document (https://uniswap.org/tokenlist.schema.json), the fields the devnet fills. */
export interface TokenList {
  name: string;
  timestamp: string;
  version: { major: number; minor: number; patch: number };
  keywords: string[];
  tokens: Array<{ chainId: number; address: string; symbol: string; name: string; decimals: number }>;
}

/**
 * The token list of a devnet chain: every ERC-20 of its world (the native coin itself is not an ERC-20 and is
 * not listed), named as the world spec names them, which is also what their contracts' name() returns.
 * `timestamp` is a parameter so a rewritten list can stay byte-identical.
 */
export function tokenListOf(
  world: Pick<DeployedWorld, 'chainId' | 'tokens'>,
  chainName: string,
  timestamp = new Date().toISOString(),
): TokenList {
  const spec = worldSpec(world.chainId);
  return {
    // The schema allows at most 30 characters.
    name: `Devnet ${chainName}`.slice(0, 30),
    timestamp,
    version: { major: 1, minor: 0, patch: 0 },
    keywords: ['devnet'],
    tokens: world.tokens.map((t) => ({
      chainId: world.chainId,
      address: t.address,
      symbol: t.symbol,
      name: tokenSpec(spec, t.symbol).name,
      decimals: t.decimals,
    })),
  };
}
