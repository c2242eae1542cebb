/**
 * A cross-chain provider: quotes a transfer, builds the source-chain transaction that starts it, and reports the
 * transfer's status. The devnet's intent bridge (Across V3 SpokePools, our keeper as relayer), its lock-and-release
 * bridge and LI.FI each implement it; the api ranks their quotes by output and never knows their mechanics.
 */

/** One end of a transfer as the request named it, resolved by the service. */
export interface TransferToken {
  chainId: number;
  /** Exactly as the request sent it (the native pseudo-address included). */
  address: string;
  symbol: string;
  decimals: number;
  /** The chain's native coin (sent as the 0xeeee…eeee pseudo-address). */
  native: boolean;
}

export interface CrossChainRequest {
  fromChainId: number;
  toChainId: number;
  tokenIn: TransferToken;
  tokenOut: TransferToken;
  /** What the account spends, in base units of tokenIn, fees included. */
  amountIn: bigint;
  /** Percent as sent (`0.5` = 0.5%). */
  slippage: string;
  /** The service's protocol fee in pips (1/1,000,000) and the integrator's fee, both taken from the input. */
  protocolFeePips: number;
  integratorFeeBps: number;
  integratorFeeRecipient?: string;
}

export interface CrossChainSwapRequest extends CrossChainRequest {
  /** The wallet that sends the source transaction; it receives the output on the destination. */
  account: string;
  /** Wall-clock milliseconds, for deadlines. */
  now: number;
}

/** An asset of the route with its decimals (the spec's `middlewareRoute`). */
export interface RouteAsset {
  chainId: number;
  address: string;
  symbol: string;
  decimals: number;
}

export interface CrossChainQuote {
  providerId: string;
  /** The bridge chosen (`bridgeInfo.displayName`). */
  bridgeName: string;
  /** Expected output in base units of tokenOut, every fee deducted. */
  amountOut: bigint;
  /** The least the account receives (the slippage applied), base units of tokenOut. */
  minimumReceived: bigint;
  /** Fees taken from the input, base units of tokenIn. */
  protocolFeeAmount: bigint;
  integratorFeeAmount: bigint;
  /** Provider-dependent: gas units of the source transaction, or a wei amount (display only). */
  estimatedGas: bigint;
  /** USD decimal string of the provider's cost estimate (relayer fee, destination gas…); null when unknown. */
  estimateCostInUSD: string | null;
  /** Expected seconds from the source receipt to the output on the destination. */
  estimatedSeconds: number;
  route: RouteAsset[];
}

/** The unsigned source-chain transaction that starts the transfer. */
export interface CrossChainSwap {
  to: string;
  data: string;
  /** Wei of the source chain's native coin. */
  value: bigint;
  /** The ERC-20 spender the account approves for tokenIn; absent for a native input. */
  contractToApprove?: string;
  estimatedGas: bigint;
  amountOut: bigint;
  minimumReceived: bigint;
}

/** The transfer's status in the provider's vocabulary (see TRANSFER_SUCCESS_STATUSES / FAILURE in the api). */
export interface TransferStatusReport {
  fromChainId: number;
  /** Null only when the source transaction names no destination (status INVALID: not a transfer at all). */
  toChainId: number | null;
  fromTxHash: string | null;
  toTxHash: string | null;
  fromAmount: string | null;
  toAmount: string | null;
  fromTokenAddress: string | null;
  toTokenAddress: string | null;
  bridgeHash: string | null;
  status: string;
  detailStatus: string | null;
}

/** Why a provider gives no status: the api answers 500 TX_STATUS_ERROR with this message. */
export class NoTransferStatus extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'NoTransferStatus';
  }
}

export interface CrossChainProvider {
  /** Opaque `aggregatorId`. */
  readonly id: string;
  /** Lowercase `dexHash` the swap hands out, so POST /tx-status finds this provider again. */
  readonly dexHash: string;
  /** Whether the provider runs between these chains at all (no network call). */
  serves(fromChainId: number, toChainId: number): boolean;
  /** undefined: the provider cannot move this pair and amount (no route, or not enough inventory or liquidity). */
  quote(request: CrossChainRequest): Promise<CrossChainQuote | undefined>;
  /** undefined: no route any more (the api answers 422 NO_ROUTE); a throw: the calldata could not be built. */
  buildSwap(request: CrossChainSwapRequest): Promise<CrossChainSwap | undefined>;
  /** Throws NoTransferStatus while the provider has no status yet (or cannot give one). */
  status(query: { hash: string; chainId: number }): Promise<TransferStatusReport>;
}
