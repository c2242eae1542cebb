import { keccak256 } from 'ethers';
import { SUSHISWAP_CONTRACTS, compileSushiswap } from '../../contracts-abi/external/compile-sushiswap';
import { loadSushiswapArtifact } from '../../contracts-abi/external/sushiswap-artifacts';
import { SUSHISWAP_V2_PAIR_INIT_CODE_HASH } from '../../devnet/world/venue-pool-address';

// solc 0.6.12 (solc-js) compiles the factory with the pair inside: a few seconds.
jest.setTimeout(60_000);

describe('the committed SushiSwap V2 build (contracts-abi/external/sushiswap-v2)', () => {
  const fresh = compileSushiswap();

  it.each(SUSHISWAP_CONTRACTS.map((name) => [name]))(
    '%s matches a fresh solc 0.6.12 compile of @sushiswap/core (run contracts-abi/external/build-sushiswap.ts if not)',
    (name) => {
      const compiled = fresh.find((a) => a.contractName === name)!;
      const committed = loadSushiswapArtifact(name);
      expect(committed.abi).toEqual(compiled.abi);
      expect(committed.bytecode).toBe(compiled.bytecode);
      expect(committed.deployedBytecode).toBe(compiled.deployedBytecode);
    },
  );

  it('has the pair init-code hash the devnet exports, and the factory creates exactly that pair code', () => {
    const pair = loadSushiswapArtifact('UniswapV2Pair');
    expect(keccak256(pair.bytecode)).toBe(SUSHISWAP_V2_PAIR_INIT_CODE_HASH);
    // type(UniswapV2Pair).creationCode is embedded in the factory's runtime code (createPair deploys it).
    expect(loadSushiswapArtifact('UniswapV2Factory').deployedBytecode).toContain(pair.bytecode.slice(2));
    // SushiSwap's own pair, not Uniswap's: Uniswap V2's hash is 0x96e8ac42…, mainnet SushiSwap's 0xe18a34eb….
    expect(SUSHISWAP_V2_PAIR_INIT_CODE_HASH).not.toMatch(/^0x(96e8ac42|e18a34eb)/);
  });
});
