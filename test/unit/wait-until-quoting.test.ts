import {
  missingFor,
  waitUntilQuoting,
  type QuoteProbe,
  type QuotingDeps,
} from '../../embedded/wait-until-quoting';

const token = (symbol: string, address: string) => ({ symbol, address, decimals: 18 });
const probe = (chainId: number): QuoteProbe => ({
  chainId,
  tokenIn: token('WETH', `0x${String(chainId).padStart(40, '1')}`),
  tokenOut: token('USDC', `0x${String(chainId).padStart(40, '2')}`),
});

/** A service whose chains become fresh, routable and priced when the test says so. */
function service() {
  const fresh = new Set<number>();
  const routable = new Set<number>();
  const priced = new Set<number>();
  const deps: QuotingDeps = {
    engine: {
      freshness: (chainId) =>
        fresh.has(chainId)
          ? { stale: false, ageMs: 0, blocksBehind: 0 }
          : { stale: true, reason: 'no-state', ageMs: Infinity, blocksBehind: 0 },
      quote: (input) =>
        routable.has(input.chainId)
          ? { blockNumber: 5, quotes: [] as never[], spotAmountOut: 0, gasPriceInTokenOut: 0n }
          : undefined,
    },
    referencePrices: {
      findPair: async (chainId, a, b) =>
        priced.has(chainId) && a === 'WETH' && b === 'USDC'
          ? { chainId, baseSymbol: a, quoteSymbol: b, price: '3000', blockNumber: 5, updatedAt: 0 }
          : undefined,
    },
  };
  return { deps, fresh, routable, priced };
}

describe('the ready gate of npm start', () => {
  it('names what a chain lacks, in the order a client would meet it', async () => {
    const s = service();
    expect(await missingFor(s.deps, probe(1))).toBe('market state no-state');
    s.fresh.add(1);
    expect(await missingFor(s.deps, probe(1))).toBe('no route WETH->USDC');
    s.routable.add(1);
    expect(await missingFor(s.deps, probe(1))).toBe('reference prices not published');
    s.priced.add(1);
    expect(await missingFor(s.deps, probe(1))).toBeUndefined();
  });

  it('resolves only once every chain quotes and is priced, reporting each chain once', async () => {
    const s = service();
    const reported: number[] = [];
    let resolved = false;
    const gate = waitUntilQuoting(s.deps, [probe(1), probe(137)], (id) => reported.push(id), 5_000).then(
      () => (resolved = true),
    );
    for (const id of [1, 137]) [s.fresh, s.routable].forEach((set) => set.add(id));
    s.priced.add(137);
    await new Promise((r) => setTimeout(r, 200));
    expect(resolved).toBe(false);
    expect(reported).toEqual([137]);
    s.priced.add(1);
    await gate;
    expect(reported).toEqual([137, 1]);
  });

  it('fails after its timeout naming each late chain and what it lacks', async () => {
    const s = service();
    s.fresh.add(1);
    s.routable.add(1);
    s.priced.add(1);
    s.fresh.add(56);
    await expect(
      waitUntilQuoting(s.deps, [probe(1), probe(56), probe(137)], () => undefined, 150),
    ).rejects.toThrow(
      'not quoting after 0.15 s (chain 56: no route WETH->USDC; chain 137: market state no-state)',
    );
  });
});
