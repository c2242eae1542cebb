/**
 * The parts of LI.FI's documented answers we use (https://docs.li.fi, GET /v1/quote returns a Step, GET /v1/status a
 * StatusResponse), read from the untrusted body with every field checked. Fields we do not use are not read, so
 * LI.FI adding or dropping them changes nothing here.
 */
import { JsonReader } from './lifi-reader';

export interface LifiToken {
  address: string;
  chainId: number;
  symbol: string;
  decimals: number;
}

export interface LifiFeeCost {
  name: string;
  amount: bigint;
  amountUSD: string | null;
  /** true: already deducted from toAmount; false: paid on top (e.g. in the transaction's value). */
  included: boolean | null;
}

export interface LifiGasCost {
  /** SEND, APPROVE, FEE… */
  type: string;
  /** Gas units. */
  estimate: bigint;
  limit: bigint | null;
  /** Wei of the gas token. */
  amount: bigint;
  amountUSD: string | null;
}

export interface LifiTransactionRequest {
  to: string;
  data: string;
  value: bigint;
  gasLimit: bigint | null;
  from: string | null;
  chainId: number | null;
}

/** A Step as GET /v1/quote returns it. */
export interface LifiStep {
  /** The tool's key ("across", "relay"). */
  tool: string;
  /** Its display name (`toolDetails.name`), the key when LI.FI sent no details. */
  toolName: string;
  action: {
    fromChainId: number;
    toChainId: number;
    fromToken: LifiToken;
    toToken: LifiToken;
    fromAmount: bigint;
    /** Who receives the output (LI.FI's default: the sender). */
    toAddress: string | null;
  };
  estimate: {
    fromAmount: bigint;
    toAmount: bigint;
    toAmountMin: bigint;
    /** The ERC-20 spender to approve (LI.FI's diamond); absent for some native routes. */
    approvalAddress: string | null;
    /** Seconds. */
    executionDuration: number;
    feeCosts: LifiFeeCost[];
    gasCosts: LifiGasCost[];
  };
  /** The tokens each included step moves between, in order (swaps, fee collection, the bridge). */
  includedSteps: { fromToken: LifiToken; toToken: LifiToken }[];
  transactionRequest: LifiTransactionRequest | null;
  transactionId: string | null;
}

export const LIFI_STATUSES = ['NOT_FOUND', 'INVALID', 'PENDING', 'DONE', 'FAILED'] as const;
export type LifiStatusValue = (typeof LIFI_STATUSES)[number];

/** One side of a transfer in a status answer; LI.FI fills in more of it as the transfer progresses. */
export interface LifiTransferLeg {
  chainId: number | null;
  txHash: string | null;
  amount: string | null;
  tokenAddress: string | null;
}

/** A StatusResponse as GET /v1/status returns it. */
export interface LifiStatus {
  status: LifiStatusValue;
  /** WAIT_SOURCE_CONFIRMATIONS, WAIT_DESTINATION_TRANSACTION, COMPLETED, PARTIAL, REFUNDED… */
  substatus: string | null;
  substatusMessage: string | null;
  transactionId: string | null;
  tool: string | null;
  sending: LifiTransferLeg | null;
  receiving: LifiTransferLeg | null;
}

export function parseQuoteStep(body: unknown): LifiStep {
  const root = JsonReader.root(body, 'quote');
  const action = root.object('action');
  const estimate = root.object('estimate');
  const tool = root.string('tool');
  return {
    tool,
    toolName: root.optionalObject('toolDetails')?.optionalString('name') ?? tool,
    action: {
      fromChainId: action.integer('fromChainId'),
      toChainId: action.integer('toChainId'),
      fromToken: readToken(action.object('fromToken')),
      toToken: readToken(action.object('toToken')),
      fromAmount: action.uint('fromAmount'),
      toAddress: action.optionalAddress('toAddress'),
    },
    estimate: {
      fromAmount: estimate.uint('fromAmount'),
      toAmount: estimate.uint('toAmount'),
      toAmountMin: estimate.uint('toAmountMin'),
      approvalAddress: estimate.optionalAddress('approvalAddress'),
      executionDuration: estimate.number('executionDuration'),
      feeCosts: estimate.objects('feeCosts').map(readFeeCost),
      gasCosts: estimate.objects('gasCosts').map(readGasCost),
    },
    includedSteps: root.objects('includedSteps').map((step) => {
      const stepAction = step.object('action');
      return {
        fromToken: readToken(stepAction.object('fromToken')),
        toToken: readToken(stepAction.object('toToken')),
      };
    }),
    transactionRequest: readTransactionRequest(root.optionalObject('transactionRequest')),
    transactionId: root.optionalString('transactionId'),
  };
}

export function parseStatus(body: unknown): LifiStatus {
  const root = JsonReader.root(body, 'status');
  return {
    status: root.oneOf('status', LIFI_STATUSES),
    substatus: root.optionalString('substatus'),
    substatusMessage: root.optionalString('substatusMessage'),
    transactionId: root.optionalString('transactionId'),
    tool: root.optionalString('tool'),
    sending: readLeg(root.optionalObject('sending')),
    receiving: readLeg(root.optionalObject('receiving')),
  };
}

function readToken(token: JsonReader): LifiToken {
  return {
    address: token.address('address'),
    chainId: token.integer('chainId'),
    symbol: token.string('symbol'),
    decimals: token.integer('decimals'),
  };
}

function readFeeCost(cost: JsonReader): LifiFeeCost {
  return {
    name: cost.string('name'),
    amount: cost.uint('amount'),
    amountUSD: cost.optionalDecimal('amountUSD'),
    included: cost.optionalBoolean('included'),
  };
}

function readGasCost(cost: JsonReader): LifiGasCost {
  return {
    type: cost.string('type'),
    estimate: cost.uint('estimate'),
    limit: cost.optionalUint('limit'),
    amount: cost.uint('amount'),
    amountUSD: cost.optionalDecimal('amountUSD'),
  };
}

function readTransactionRequest(request: JsonReader | null): LifiTransactionRequest | null {
  if (!request) return null;
  return {
    to: request.address('to'),
    data: request.hexData('data'),
    value: request.optionalHexQuantity('value') ?? 0n,
    gasLimit: request.optionalHexQuantity('gasLimit'),
    from: request.optionalAddress('from'),
    chainId: request.optionalInteger('chainId'),
  };
}

function readLeg(leg: JsonReader | null): LifiTransferLeg | null {
  if (!leg) return null;
  const amount = leg.optionalUint('amount');
  return {
    chainId: leg.optionalInteger('chainId'),
    txHash: leg.optionalTxHash('txHash'),
    amount: amount === null ? null : amount.toString(),
    tokenAddress: leg.optionalObject('token')?.address('address') ?? null,
  };
}
