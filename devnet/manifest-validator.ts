import { getAddress, Wallet, ZeroAddress } from 'ethers';

/**
 * Checks a parsed devnet.json against the manifest format exactly: the keys and their order at every level,
 * EIP-55 addresses, a private key per account that really belongs to its address. Returns every problem
 * found (empty = valid), each prefixed with its JSON path.
 */
export function manifestErrors(value: unknown): string[] {
  const errors: string[] = [];
  if (!exactKeys(value, ['version', 'chains'], '$', errors)) return errors;
  if (value.version !== 1) errors.push('$.version must be 1');
  if (!Array.isArray(value.chains) || value.chains.length === 0) {
    errors.push('$.chains must be a non-empty array');
    return errors;
  }
  const chainIds = new Set<unknown>();
  value.chains.forEach((chain: unknown, i: number) => {
    const path = `$.chains[${i}]`;
    if (!exactKeys(chain, CHAIN_KEYS, path, errors)) return;
    if (!Number.isSafeInteger(chain.chainId) || (chain.chainId as number) <= 0) {
      errors.push(`${path}.chainId must be a positive integer`);
    }
    if (chainIds.has(chain.chainId)) errors.push(`${path}.chainId ${String(chain.chainId)} is listed twice`);
    chainIds.add(chain.chainId);
    nonEmptyString(chain.name, `${path}.name`, errors);
    nonEmptyString(chain.nativeSymbol, `${path}.nativeSymbol`, errors);
    if (typeof chain.rpcUrl !== 'string' || !/^(https?|wss?):\/\/[^\s]+$/.test(chain.rpcUrl)) {
      errors.push(`${path}.rpcUrl must be an http(s) or ws(s) URL`);
    }
    const contractKeys = expectedContractKeys(chain.contracts);
    if (exactKeys(chain.contracts, contractKeys, `${path}.contracts`, errors)) {
      for (const key of contractKeys) checksummed(chain.contracts[key], `${path}.contracts.${key}`, errors);
    }
    tokens(chain.tokens, `${path}.tokens`, errors);
    accounts(chain.accounts, `${path}.accounts`, errors);
  });
  return errors;
}

export function assertManifest(value: unknown): void {
  const errors = manifestErrors(value);
  if (errors.length > 0) throw new Error(`invalid devnet manifest: ${errors.join('; ')}`);
}

const CHAIN_KEYS = ['chainId', 'name', 'rpcUrl', 'nativeSymbol', 'contracts', 'tokens', 'accounts'];
/** The contract keys every manifest chain has. */
export const MANIFEST_BASE_CONTRACT_KEYS = [
  'weth',
  'multicall',
  'uniswapV2Factory',
  'uniswapV2Router02',
  'uniswapV3Factory',
  'uniswapV3QuoterV2',
  'uniswapV3SwapRouter',
  'swapRouter',
  'spender',
  'orderExecutor',
] as const;
/**
 * The other liquidity venues, each listed where the chain has it: Uniswap V4 needs Cancun (not on ganache), a fork
 * has only the real venues of its chain (no StableSwap of ours).
 */
export const MANIFEST_VENUE_KEYS = [
  'sushiswapV2Factory',
  'uniswapV4PoolManager',
  'balancerVault',
  'balancerWeightedPoolFactory',
  'stableSwapFactory',
] as const;
/**
 * The bridges' keys, all four or none: a chain whose engine cannot run the Across SpokePool (ganache stops before
 * Cancun's MCOPY) has no bridges.
 */
export const MANIFEST_BRIDGE_KEYS = [
  'spokePool',
  'crossChainEntry',
  'lockReleaseBridge',
  'rootBundleAdmin',
] as const;
/** Every contract key a manifest chain may have, in file order: the venues after Uniswap's, the bridges last. */
export const MANIFEST_CONTRACT_KEYS = [
  ...MANIFEST_BASE_CONTRACT_KEYS.slice(0, 7),
  ...MANIFEST_VENUE_KEYS,
  ...MANIFEST_BASE_CONTRACT_KEYS.slice(7),
  ...MANIFEST_BRIDGE_KEYS,
] as const;

export type ManifestContractKey = (typeof MANIFEST_CONTRACT_KEYS)[number];

/** Optional keys that come together or not at all (a Balancer Vault is only quoted with its pool factory). */
const OPTIONAL_GROUPS: ReadonlyArray<readonly ManifestContractKey[]> = [
  ['sushiswapV2Factory'],
  ['uniswapV4PoolManager'],
  ['balancerVault', 'balancerWeightedPoolFactory'],
  ['stableSwapFactory'],
  MANIFEST_BRIDGE_KEYS,
];

/**
 * The keys a contracts object must have, in file order: the base keys, and every optional group it names any key
 * of (then all of the group's keys).
 */
export function expectedContractKeys(contracts: unknown): ManifestContractKey[] {
  const has = (key: string) =>
    typeof contracts === 'object' &&
    contracts !== null &&
    Object.prototype.hasOwnProperty.call(contracts, key) &&
    (contracts as Record<string, unknown>)[key] !== undefined;
  const named = new Set(OPTIONAL_GROUPS.filter((group) => group.some(has)).flat());
  return MANIFEST_CONTRACT_KEYS.filter(
    (key) => (MANIFEST_BASE_CONTRACT_KEYS as readonly string[]).includes(key) || named.has(key),
  );
}

function tokens(value: unknown, path: string, errors: string[]): void {
  if (!Array.isArray(value) || value.length === 0) {
    errors.push(`${path} must be a non-empty array`);
    return;
  }
  const symbols = new Set<unknown>();
  const addresses = new Set<unknown>();
  value.forEach((token: unknown, i: number) => {
    const at = `${path}[${i}]`;
    if (!exactKeys(token, ['symbol', 'address', 'decimals'], at, errors)) return;
    nonEmptyString(token.symbol, `${at}.symbol`, errors);
    checksummed(token.address, `${at}.address`, errors);
    if (
      !Number.isInteger(token.decimals) ||
      (token.decimals as number) < 0 ||
      (token.decimals as number) > 255
    ) {
      errors.push(`${at}.decimals must be an integer 0..255`);
    }
    if (symbols.has(token.symbol)) errors.push(`${at}.symbol ${String(token.symbol)} is listed twice`);
    if (addresses.has(token.address)) errors.push(`${at}.address ${String(token.address)} is listed twice`);
    symbols.add(token.symbol);
    addresses.add(token.address);
  });
}

function accounts(value: unknown, path: string, errors: string[]): void {
  if (!Array.isArray(value)) {
    errors.push(`${path} must be an array`);
    return;
  }
  value.forEach((account: unknown, i: number) => {
    const at = `${path}[${i}]`;
    if (!exactKeys(account, ['address', 'privateKey'], at, errors)) return;
    checksummed(account.address, `${at}.address`, errors);
    if (typeof account.privateKey !== 'string' || !/^0x[0-9a-f]{64}$/.test(account.privateKey)) {
      errors.push(`${at}.privateKey must be 0x and 64 lowercase hex digits`);
    } else if (new Wallet(account.privateKey).address !== account.address) {
      errors.push(`${at}.privateKey does not belong to ${String(account.address)}`);
    }
  });
}

/** Narrows to a record and checks that its keys are exactly `keys`, in that order. */
function exactKeys(
  value: unknown,
  keys: readonly string[],
  path: string,
  errors: string[],
): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    errors.push(`${path} must be an object`);
    return false;
  }
  const actual = Object.keys(value);
  if (actual.join(',') !== keys.join(',')) {
    errors.push(
      `${path} must have exactly the keys ${keys.join(', ')} in this order (has ${actual.join(', ')})`,
    );
    return false;
  }
  return true;
}

function checksummed(value: unknown, path: string, errors: string[]): void {
  let ok = false;
  try {
    ok = typeof value === 'string' && getAddress(value) === value && value !== ZeroAddress;
  } catch {
    ok = false;
  }
  if (!ok) errors.push(`${path} must be a non-zero EIP-55 checksummed address`);
}

function nonEmptyString(value: unknown, path: string, errors: string[]): void {
  if (typeof value !== 'string' || value.length === 0) errors.push(`${path} must be a non-empty string`);
}
