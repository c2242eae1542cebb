import { readFileSync } from 'node:fs';
import { getAddress, type Provider } from 'ethers';
import { hasCode } from './create2';
import { knownChain, VENUE_KEYS, type VenueKey, type Venues } from './known-chains';

/** Venues every chain entry needs (the chains file requires them); the others are quoted where present. */
const REQUIRED: readonly VenueKey[] = ['weth', 'multicall', 'uniswapV2Factory', 'uniswapV3Factory'];

export type ChainVenues = Venues &
  Record<'weth' | 'multicall' | 'uniswapV2Factory' | 'uniswapV3Factory', string>;

/** `--venues FILE`: a JSON object of venue keys to addresses; an unknown key or a bad address is refused. */
export function readVenuesFile(file: string): Venues {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`--venues ${file} cannot be read as JSON: ${(err as Error).message}`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new Error(`--venues ${file} must hold a JSON object of venue addresses`);
  const venues: Venues = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!(VENUE_KEYS as readonly string[]).includes(key))
      throw new Error(`--venues ${file}: unknown key ${key} (known: ${VENUE_KEYS.join(', ')})`);
    if (typeof value !== 'string') throw new Error(`--venues ${file}: ${key} must be an address`);
    try {
      venues[key as VenueKey] = getAddress(value);
    } catch {
      throw new Error(`--venues ${file}: ${key} is not an address`);
    }
  }
  return venues;
}

/**
 * The chain's venues: the built-in addresses of a spec chain overridden by `--venues`. A venue named in the file
 * must have code on the chain (an address of another chain, a wrong RPC URL, is refused before anything is
 * deployed); a built-in one without code is left out and reported (a chain without that venue yet, a fork of an
 * older block). The required ones must be there either way.
 */
export async function chainVenues(
  provider: Provider,
  chainId: number,
  file: Venues = {},
): Promise<{ venues: ChainVenues; leftOut: string[] }> {
  const merged: Venues = { ...knownChain(chainId)?.venues, ...file };
  const entries = Object.entries(merged) as Array<[VenueKey, string]>;
  const codes = await Promise.all(entries.map(([, address]) => hasCode(provider, address)));
  const missing = entries.filter(([key], i) => !codes[i] && (key in file || REQUIRED.includes(key)));
  if (missing.length > 0) {
    throw new Error(
      `chain ${chainId} has no code at ${missing.map(([key, address]) => `${key} ${address}`).join(', ')}: ` +
        'is the RPC URL the chain these venues are on?',
    );
  }
  const venues: Venues = Object.fromEntries(entries.filter((_, i) => codes[i]));
  const leftOut = entries.filter((_, i) => !codes[i]).map(([key, address]) => `${key} ${address}`);
  // A Balancer Vault is quoted (and executed) only with its weighted pool factory.
  if (!venues.balancerVault || !venues.balancerWeightedPoolFactory) {
    if (venues.balancerVault || venues.balancerWeightedPoolFactory)
      leftOut.push('balancerVault and balancerWeightedPoolFactory (they come together)');
    delete venues.balancerVault;
    delete venues.balancerWeightedPoolFactory;
  }
  for (const key of REQUIRED) {
    if (!venues[key])
      throw new Error(
        `chain ${chainId} has no built-in ${key}: give it in --venues FILE (keys: ${VENUE_KEYS.join(', ')})`,
      );
  }
  return { venues: venues as ChainVenues, leftOut };
}
