import { readFileSync } from 'node:fs';
import { getAddress } from 'ethers';
import type { ChainConfig } from '../config/config-schema';
import { NATIVE_TOKEN_KEY } from '../domain/addresses';
import type { TokenRecord } from '../store/repositories/tokens-repository';

/** The part of the Uniswap Token Lists format that we read. */
interface TokenListFile {
  tokens: Array<{
    chainId: number;
    address: string;
    symbol: string;
    name: string;
    decimals: number;
    logoURI?: string;
  }>;
}

/**
 * The tokens of one chain: the native coin first (pseudo-address, lowercase), then the list's entries for
 * that chain, with checksummed addresses and without duplicates.
 */
export function tokensOfChain(chain: ChainConfig): TokenRecord[] {
  const tokens: TokenRecord[] = [
    {
      chainId: chain.chainId,
      address: NATIVE_TOKEN_KEY,
      symbol: chain.nativeSymbol,
      name: chain.nativeSymbol,
      decimals: chain.nativeDecimals,
      native: true,
    },
  ];
  if (!chain.tokenList) return tokens;
  let list: TokenListFile;
  try {
    list = JSON.parse(readFileSync(chain.tokenList, 'utf8')) as TokenListFile;
  } catch (err) {
    throw new Error(
      `Token list ${chain.tokenList} of chain ${chain.chainId} cannot be read: ${(err as Error).message}`,
    );
  }
  const seen = new Set([NATIVE_TOKEN_KEY]);
  for (const t of list.tokens ?? []) {
    if (t.chainId !== chain.chainId) continue;
    const address = getAddress(t.address);
    if (seen.has(address.toLowerCase())) continue;
    seen.add(address.toLowerCase());
    tokens.push({
      chainId: chain.chainId,
      address,
      symbol: t.symbol,
      name: t.name,
      decimals: t.decimals,
      ...(t.logoURI ? { logoURI: t.logoURI } : {}),
      native: false,
    });
  }
  return tokens;
}
