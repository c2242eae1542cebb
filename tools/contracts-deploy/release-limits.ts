import { Contract, getAddress, type ContractRunner } from 'ethers';
import { ERC20_ABI } from '../../shared/chain/contract-interfaces';
import { toBaseUnits } from '../../shared/domain/amount-bounds';

/** A `--release-limit TOKEN=AMOUNT` as given: the amount in whole tokens (a decimal), not base units. */
export interface ReleaseLimitArg {
  token: string;
  amount: string;
}

/** A token's hourly release limit on the LockReleaseBridge, in its base units. */
export interface ReleaseLimit {
  token: string;
  limit: bigint;
}

const AMOUNT = /^(0|[1-9]\d*)(\.\d+)?$/;

/**
 * Parses `--release-limit` values (`TOKEN=AMOUNT`, each flag once per token): the token's address and an amount of
 * whole tokens. Refuses a malformed value, naming it, and a token given twice.
 */
export function parseReleaseLimits(values: readonly string[]): ReleaseLimitArg[] {
  const seen = new Set<string>();
  return values.map((value) => {
    const [tokenPart, amount, ...rest] = value.split('=');
    let token: string;
    try {
      token = getAddress((tokenPart ?? '').trim());
    } catch {
      throw new Error(`--release-limit ${value}: expected TOKEN=AMOUNT with TOKEN an address`);
    }
    if (rest.length > 0 || amount === undefined || !AMOUNT.test(amount.trim())) {
      throw new Error(
        `--release-limit ${value}: expected TOKEN=AMOUNT with AMOUNT a decimal number of tokens`,
      );
    }
    if (seen.has(token)) throw new Error(`--release-limit: ${token} is given more than once`);
    seen.add(token);
    return { token, amount: amount.trim() };
  });
}

/** The limits in base units, each token's decimals read from the token itself. */
export async function resolveReleaseLimits(
  runner: ContractRunner,
  args: readonly ReleaseLimitArg[],
): Promise<ReleaseLimit[]> {
  const limits: ReleaseLimit[] = [];
  for (const { token, amount } of args) {
    let decimals: number;
    try {
      const erc20 = new Contract(token, ERC20_ABI, runner);
      decimals = Number(await erc20.getFunction('decimals')());
    } catch {
      throw new Error(`--release-limit: ${token} answers no decimals(): is it a token on this chain?`);
    }
    let limit: bigint;
    try {
      limit = toBaseUnits(amount, decimals);
    } catch {
      throw new Error(`--release-limit: ${amount} has more decimals than ${token}'s ${decimals}`);
    }
    // The bridge keeps limits in 192 bits (and refuses more).
    if (limit >= 1n << 192n) throw new Error(`--release-limit: ${amount} of ${token} is too large`);
    limits.push({ token, limit });
  }
  return limits;
}
