/** The spec's enabled chains with the native coin and wrapped native each must have (issue 10), as tests expect. */
export const SPEC_CHAINS: ReadonlyArray<
  [chainId: number, native: string, wrapped: string, wrappedName: string]
> = [
  [1, 'ETH', 'WETH', 'Wrapped Ether'],
  [10, 'ETH', 'WETH', 'Wrapped Ether'],
  [56, 'BNB', 'WBNB', 'Wrapped BNB'],
  [137, 'POL', 'WPOL', 'Wrapped Polygon Ecosystem Token'],
  [8453, 'ETH', 'WETH', 'Wrapped Ether'],
  [42161, 'ETH', 'WETH', 'Wrapped Ether'],
  [43114, 'AVAX', 'WAVAX', 'Wrapped AVAX'],
  [59144, 'ETH', 'WETH', 'Wrapped Ether'],
];
