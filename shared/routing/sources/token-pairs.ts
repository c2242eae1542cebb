/** Every unordered pair of distinct tokens, lowercase and each pair sorted (token0 < token1 as Uniswap sorts). */
export function tokenPairs(tokens: readonly string[]): Array<[string, string]> {
  const unique = [...new Set(tokens.map((t) => t.toLowerCase()))].sort((a, b) =>
    BigInt(a) < BigInt(b) ? -1 : BigInt(a) > BigInt(b) ? 1 : 0,
  );
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i < unique.length; i++) {
    for (let j = i + 1; j < unique.length; j++) pairs.push([unique[i]!, unique[j]!]);
  }
  return pairs;
}
