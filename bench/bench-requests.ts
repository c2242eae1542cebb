/** A valid limit order for chain 1 (tokens of config/tokenlists/1.json), expiring in a day. */
export function limitOrderBody(): Record<string, unknown> {
  return {
    accountTo: '0x90F79bf6EB2c4f870365E785982E1f101E93b906',
    chainId: 1,
    inTokenAddress: '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2',
    outTokenAddress: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48',
    tokenASymbol: 'WETH',
    tokenBSymbol: 'USDC',
    amount: '1.5',
    priceTrigger: '3500',
    price: '3500',
    expired: String(Date.now() + 86_400_000),
    gasPrice: '20',
    slippage: '0.5',
    signature: `0x${'ab'.repeat(65)}`,
  };
}
