import { formatUnits, getAddress } from 'ethers';
import type { Token } from '../types';

/** Base units as `1.5 WETH (1500000000000000000)`: the readable amount and the exact one. */
export function amountText(baseUnits: string | bigint | null | undefined, token: Token): string {
  if (baseUnits === null || baseUnits === undefined || baseUnits === '') return '-';
  try {
    return `${formatUnits(BigInt(baseUnits), token.decimals)} ${token.symbol} (${String(baseUnits)})`;
  } catch {
    return String(baseUnits);
  }
}

/** `symbol address`, as tokens are shown. */
export function tokenText(token: Token): string {
  return `${token.symbol} ${token.address}`;
}

/** Units of `buy` per 1 `sell`, to 8 significant digits (display only). */
export function priceText(outBaseUnits: string, buy: Token, amount: string, sell: Token): string {
  const price = Number(formatUnits(BigInt(outBaseUnits), buy.decimals)) / Number(amount);
  return Number.isFinite(price) ? `${Number(price.toPrecision(8))} ${buy.symbol} per ${sell.symbol}` : '-';
}

/**
 * An address in EIP-55 form (the API stores makers as sent and filters on them case-sensitively); anything that is
 * not an address is passed on as typed, for the API to explain.
 */
export function checksummed(address: string): string {
  try {
    return getAddress(address.trim());
  } catch {
    return address;
  }
}

/** Unix milliseconds (as `expired` holds them) with their ISO 8601 form. */
export function millisText(ms: string): string {
  const date = /^\d{1,15}$/.test(ms) ? new Date(Number(ms)) : undefined;
  return date && !Number.isNaN(date.getTime()) ? `${ms} (${date.toISOString()})` : ms;
}
