/**
 * The eight chains of the spec (chain ids 1, 10, 56, 137, 8453, 42161, 43114, 59144) and the real venues each one
 * has: the built-in defaults of `contracts:deploy`, which `--venues FILE` overrides key by key. A venue a chain does
 * not have, or whose address no source below confirms, is left out (the service then does not quote it); a wrong
 * address would be worse than none. `stableSwapFactory` is ours and is never here: the tool deploys it or not.
 *
 * Names, native symbols, wrapped natives and block times are those of config/chains.json (a unit test holds them
 * equal). `multicall` is Uniswap's UniswapInterfaceMulticall (`multicall((address,uint256,bytes)[])`, what
 * shared/chain/multicall.ts calls), not Multicall3: each chain has its own deployment of it.
 *
 * Sources, read for each address (none from memory):
 * - [fork] devnet/fork-addresses.ts (FORK_CONTRACTS, FORK_BALANCER_FACTORY_BLOCKS): chains 1 and 137, already
 *   checked against those forks; this table repeats them (a unit test holds the two equal).
 * - [uni-v2] docs.uniswap.org v2 deployments (Uniswap/docs content/protocols/v2/deployments.mdx) and
 *   @uniswap/sdk-core 7.19.4 V2_FACTORY_ADDRESSES (node_modules).
 * - [uni-v3] docs.uniswap.org v3 deployments, one page per chain (Uniswap/docs content/protocols/v3/deployments/
 *   v3-<chain>-deployments.mdx: UniswapV3Factory, Multicall, QuoterV2), and @uniswap/sdk-core CHAIN_TO_ADDRESSES_MAP
 *   (v3CoreFactoryAddress, multicallAddress).
 * - [uni-v4] docs.uniswap.org v4 deployments (Uniswap/docs content/protocols/v4/deployments.mdx, PoolManager) and
 *   @uniswap/sdk-core v4PoolManagerAddress.
 * - [uni-contracts] Uniswap/contracts deployments/<chainId>.md: Uniswap's own deployment record, for Linea (not on
 *   the docs pages): UniswapV2Factory, UniswapV3Factory, QuoterV2, UniswapInterfaceMulticall, PoolManager.
 * - [sushi] sushi-labs/sushi src/evm/config/features/sushiswap-v2.ts (SUSHISWAP_V2_FACTORY_ADDRESS).
 * - [balancer] balancer/balancer-deployments v2/tasks/20210418-vault/output/<network>.json (Vault) and
 *   v2/tasks/20230320-weighted-pool-v4/output/<network>.json (WeightedPoolFactory v4, the one FORK_CONTRACTS uses).
 *   The installed @balancer-labs/v2-deployments 3.2.0 stops at weighted pool v3, so it is not the source here.
 *   Balancer v2 has no deployment on Linea.
 * - [across] @across-protocol/contracts 5.0.27 dist/broadcast/deployed-addresses.json (SpokePool, the proxy).
 *
 * `balancerFromBlock` (the weighted pool factory's deployment block, where the api starts reading PoolCreated logs)
 * is known only for chains 1 and 137 [fork]; elsewhere it is left out and the api reads from block 0.
 */

export const VENUE_KEYS = [
  'weth',
  'multicall',
  'uniswapV2Factory',
  'uniswapV3Factory',
  'uniswapV3QuoterV2',
  'sushiswapV2Factory',
  'uniswapV4PoolManager',
  'balancerVault',
  'balancerWeightedPoolFactory',
  'stableSwapFactory',
  'spokePool',
] as const;

export type VenueKey = (typeof VENUE_KEYS)[number];

export type Venues = Partial<Record<VenueKey, string>>;

export interface KnownChain {
  chainId: number;
  name: string;
  nativeSymbol: string;
  nativeDecimals: number;
  blockTimeSeconds: number;
  /** `weth` is the chain's wrapped native token, whatever its symbol (WBNB, WPOL, WAVAX). */
  venues: Venues;
  /** The block the chain's `balancerWeightedPoolFactory` was deployed at, when known. */
  balancerFromBlock?: number;
}

/** Balancer's Vault: one address on every chain Balancer v2 runs on [balancer]. */
const BALANCER_VAULT = '0xBA12222222228d8Ba445958a75a0704d566BF2C8';

export const KNOWN_CHAINS: Readonly<Record<number, KnownChain>> = {
  // Ethereum. Everything but spokePool: [fork] (Uniswap v2/v3/v4, SushiSwap, Balancer v4 factory and its block).
  // spokePool: [across].
  1: {
    chainId: 1,
    name: 'Ethereum',
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    blockTimeSeconds: 12,
    venues: {
      weth: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
      multicall: '0x1F98415757620B543A52E61c46B32eB19261F984',
      uniswapV2Factory: '0x5C69bEe701ef814a2B6a3EDD4B1652CB9cc5aA6f',
      uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
      uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
      sushiswapV2Factory: '0xC0AEe478e3658e2610c5F7A4A2E1777cE9e4f2Ac',
      uniswapV4PoolManager: '0x000000000004444c5dc75cB358380D2e3dE08A90',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0x897888115Ada5773E02aA29F775430BFB5F34c51',
      spokePool: '0x5c7BCd6E7De5423a257D81B442095A1a6ced35C5',
    },
    balancerFromBlock: 16_878_323,
  },
  // OP Mainnet. weth: the OP Stack predeploy (config/chains.json, docs.uniswap.org v3 Optimism page). uniswapV2Factory:
  // [uni-v2]. uniswapV3Factory, multicall, uniswapV3QuoterV2: [uni-v3] Optimism page. uniswapV4PoolManager: [uni-v4].
  // sushiswapV2Factory: [sushi]. balancerVault, balancerWeightedPoolFactory: [balancer] optimism. spokePool: [across].
  10: {
    chainId: 10,
    name: 'OP Mainnet',
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    blockTimeSeconds: 2,
    venues: {
      weth: '0x4200000000000000000000000000000000000006',
      multicall: '0x1F98415757620B543A52E61c46B32eB19261F984',
      uniswapV2Factory: '0x0c3c1c532F1e39EdF36BE9Fe0bE1410313E074Bf',
      uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
      uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
      sushiswapV2Factory: '0xFbc12984689e5f15626Bad03Ad60160Fe98B303C',
      uniswapV4PoolManager: '0x9a13F98Cb987694C9F086b1F5eB990EeA8264Ec3',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0x230a59F4d9ADc147480f03B0D3fFfeCd56c3289a',
      spokePool: '0x6f26Bf09B1C792e3228e5467807a900A503c0281',
    },
  },
  // BNB Smart Chain. weth (WBNB): config/chains.json and the docs.uniswap.org v3 BNB page. uniswapV2Factory: [uni-v2].
  // uniswapV3Factory, multicall, uniswapV3QuoterV2: [uni-v3] BNB page. uniswapV4PoolManager: [uni-v4].
  // sushiswapV2Factory: [sushi]. balancerVault, balancerWeightedPoolFactory: [balancer] bsc. spokePool: [across].
  56: {
    chainId: 56,
    name: 'BNB Smart Chain',
    nativeSymbol: 'BNB',
    nativeDecimals: 18,
    blockTimeSeconds: 3,
    venues: {
      weth: '0xbb4CdB9CBd36B01bD1cBaEBF2De08d9173bc095c',
      multicall: '0x963Df249eD09c358A4819E39d9Cd5736c3087184',
      uniswapV2Factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
      uniswapV3Factory: '0xdB1d10011AD0Ff90774D0C6Bb92e5C5c8b4461F7',
      uniswapV3QuoterV2: '0x78D78E420Da98ad378D7799bE8f4AF69033EB077',
      sushiswapV2Factory: '0xc35DADB65012eC5796536bD9864eD8773aBc74C4',
      uniswapV4PoolManager: '0x28e2Ea090877bF75740558f6BFB36A5ffeE9e9dF',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0x230a59F4d9ADc147480f03B0D3fFfeCd56c3289a',
      spokePool: '0x4e8E101924eDE233C13e2D8622DC8aED2872d505',
    },
  },
  // Polygon. Everything but spokePool: [fork] (its V2-style exchange is QuickSwap's factory, as on the fork; Uniswap's
  // own V2 on Polygon is thin). spokePool: [across].
  137: {
    chainId: 137,
    name: 'Polygon',
    nativeSymbol: 'POL',
    nativeDecimals: 18,
    blockTimeSeconds: 2,
    venues: {
      weth: '0x0d500B1d8E8eF31E21C99d1Db9A6444d3ADf1270',
      multicall: '0x1F98415757620B543A52E61c46B32eB19261F984',
      uniswapV2Factory: '0x5757371414417b8C6CAad45bAeF941aBc7d3Ab32',
      uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
      uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
      sushiswapV2Factory: '0xc35DADB65012eC5796536bD9864eD8773aBc74C4',
      uniswapV4PoolManager: '0x67366782805870060151383F4BbFF9daB53e5cD6',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0xFc8a407Bba312ac761D8BFe04CE1201904842B76',
      spokePool: '0x9295ee1d8C5b022Be115A2AD3c30C72E34e7F096',
    },
    balancerFromBlock: 40_611_103,
  },
  // Base. weth: the OP Stack predeploy (config/chains.json). uniswapV2Factory: [uni-v2]. uniswapV3Factory, multicall,
  // uniswapV3QuoterV2: [uni-v3] Base page (also docs.base.org's contracts page). uniswapV4PoolManager: [uni-v4].
  // sushiswapV2Factory: [sushi]. balancerVault, balancerWeightedPoolFactory: [balancer] base. spokePool: [across].
  8453: {
    chainId: 8453,
    name: 'Base',
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    blockTimeSeconds: 2,
    venues: {
      weth: '0x4200000000000000000000000000000000000006',
      multicall: '0x091e99cb1C49331a94dD62755D168E941AbD0693',
      uniswapV2Factory: '0x8909Dc15e40173Ff4699343b6eB8132c65e18eC6',
      uniswapV3Factory: '0x33128a8fC17869897dcE68Ed026d694621f6FDfD',
      uniswapV3QuoterV2: '0x3d4e44Eb1374240CE5F1B871ab261CD16335B76a',
      sushiswapV2Factory: '0x71524B4f93c58fcbF659783284E38825f0622859',
      uniswapV4PoolManager: '0x498581fF718922c3f8e6A244956aF099B2652b2b',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0x4C32a8a8fDa4E24139B51b456B42290f51d6A1c4',
      spokePool: '0x09aea4b2242abC8bb4BB78D537A67a245A7bEC64',
    },
  },
  // Arbitrum One. weth: config/chains.json and the docs.uniswap.org v3 Arbitrum page. uniswapV2Factory: [uni-v2].
  // uniswapV3Factory, multicall, uniswapV3QuoterV2: [uni-v3] Arbitrum page (its multicall is Arbitrum's own
  // deployment, not the 0x1F98415757… of the other chains). uniswapV4PoolManager: [uni-v4]. sushiswapV2Factory:
  // [sushi]. balancerVault, balancerWeightedPoolFactory: [balancer] arbitrum. spokePool: [across].
  42161: {
    chainId: 42161,
    name: 'Arbitrum One',
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    blockTimeSeconds: 0.25,
    venues: {
      weth: '0x82aF49447D8a07e3bd95BD0d56f35241523fBab1',
      multicall: '0xadF885960B47eA2CD9B55E6DAc6B42b7Cb2806dB',
      uniswapV2Factory: '0xf1D7CC64Fb4452F05c498126312eBE29f30Fbcf9',
      uniswapV3Factory: '0x1F98431c8aD98523631AE4a59f267346ea31F984',
      uniswapV3QuoterV2: '0x61fFE014bA17989E743c5F6cB21bF9697530B21e',
      sushiswapV2Factory: '0xc35DADB65012eC5796536bD9864eD8773aBc74C4',
      uniswapV4PoolManager: '0x360E68faCcca8cA495c1B759Fd9EEe466db9FB32',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0xc7E5ED1054A24Ef31D827E6F86caA58B3Bc168d7',
      spokePool: '0xe35e9842fceaCA96570B734083f4a58e8F7C5f2A',
    },
  },
  // Avalanche C-Chain. weth (WAVAX): config/chains.json and the docs.uniswap.org v3 Avalanche page. uniswapV2Factory:
  // [uni-v2]. uniswapV3Factory, multicall, uniswapV3QuoterV2: [uni-v3] Avalanche page. uniswapV4PoolManager:
  // [uni-v4]. sushiswapV2Factory: [sushi]. balancerVault, balancerWeightedPoolFactory: [balancer] avalanche.
  // spokePool: [across].
  43114: {
    chainId: 43114,
    name: 'Avalanche C-Chain',
    nativeSymbol: 'AVAX',
    nativeDecimals: 18,
    blockTimeSeconds: 2,
    venues: {
      weth: '0xB31f66AA3C1e785363F0875A1B74E27b85FD66c7',
      multicall: '0x0139141Cd4Ee88dF3Cdb65881D411bAE271Ef0C2',
      uniswapV2Factory: '0x9e5A52f57b3038F1B8EeE45F28b3C1967e22799C',
      uniswapV3Factory: '0x740b1c1de25031C31FF4fC9A62f554A55cdC1baD',
      uniswapV3QuoterV2: '0xbe0F5544EC67e9B3b2D979aaA43f18Fd87E6257F',
      sushiswapV2Factory: '0xc35DADB65012eC5796536bD9864eD8773aBc74C4',
      uniswapV4PoolManager: '0x06380C0e0912312B5150364B9DC4542BA0DbBc85',
      balancerVault: BALANCER_VAULT,
      balancerWeightedPoolFactory: '0x230a59F4d9ADc147480f03B0D3fFfeCd56c3289a',
      spokePool: '0xFE9D541c92E4e90437C7152A00244886dE37a658',
    },
  },
  // Linea. weth: config/chains.json. uniswapV2Factory, uniswapV3Factory, uniswapV3QuoterV2, multicall,
  // uniswapV4PoolManager: [uni-contracts] deployments/59144.md (factories, multicall and PoolManager also in
  // @uniswap/sdk-core's LINEA_ADDRESSES; its `quoterAddress` there is the v1-style Quoter, not QuoterV2).
  // sushiswapV2Factory: [sushi]. No Balancer v2 on Linea. spokePool: [across].
  59144: {
    chainId: 59144,
    name: 'Linea',
    nativeSymbol: 'ETH',
    nativeDecimals: 18,
    blockTimeSeconds: 2,
    venues: {
      weth: '0xe5D7C2a44FfDDf6b295A15c148167daaAf5Cf34f',
      multicall: '0x93e253D101519578A8DF0BCe2A43D8292BFb3A1F',
      uniswapV2Factory: '0x114A43DF6C5f54EBB8A9d70Cd1951D3dD68004c7',
      uniswapV3Factory: '0x31FAfd4889FA1269F7a13A66eE0fB458f27D72A9',
      uniswapV3QuoterV2: '0x42bE4D6527829FeFA1493e1fb9F3676d2425C3C1',
      sushiswapV2Factory: '0xFbc12984689e5f15626Bad03Ad60160Fe98B303C',
      uniswapV4PoolManager: '0x248083Fb965359d82b06C1F5322480Dcfc1AD857',
      spokePool: '0x7E63A5f1a8F0B4d0934B2f2327DAED3F6bb2ee75',
    },
  },
};

/** The built-in entry of a spec chain, or undefined for any other chain (its venues then come from `--venues`). */
export function knownChain(chainId: number): KnownChain | undefined {
  return Object.hasOwn(KNOWN_CHAINS, chainId) ? KNOWN_CHAINS[chainId] : undefined;
}
