/**
 * What the factories' bodies are made of: chains 1 and 137 of the repo's config/chains.json with tokens of
 * config/tokenlists/1.json and 137.json (the chains every in-process api of the tests enables), and a maker that
 * signs nothing: the service does not check the pair signature at creation (spec, "Order signature").
 */

/** A hardhat/anvil test account, EIP-55, so it passes the maker-address format. */
export const FACTORY_MAKER = '0x90F79bf6EB2c4f870365E785982E1f101E93b906';
/** 65 bytes of hex: the shape of a pair signature, not a valid one. */
export const PLACEHOLDER_SIGNATURE = `0x${'ab'.repeat(65)}`;
export const DAY_MS = 86_400_000;

/** A token as the factories name one: address for the body, symbol for the reference price and the pair. */
export interface TokenRef {
  address: string;
  symbol: string;
}

export const CHAIN_1 = {
  chainId: 1,
  WETH: { address: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2', symbol: 'WETH' },
  USDC: { address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', symbol: 'USDC' },
} as const;

export const CHAIN_137 = {
  chainId: 137,
  WETH: { address: '0x7ceB23fD6bC0adD59E62ac25578270cFf1b9f619', symbol: 'WETH' },
  USDC: { address: '0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359', symbol: 'USDC' },
} as const;
