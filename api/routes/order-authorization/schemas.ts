import type { SchemaObject } from 'ajv';
import { MAX_FEE_BPS_LIMIT } from '../../../shared/domain/pair-authorization';
import type { ParameterDoc } from '../../http/route-definition';

/** The `maxFeeBps` of the create bodies (limit order, DCA strategy): the fee cap the maker's signature carries. */
export const signedMaxFeeBps: SchemaObject = {
  type: 'integer',
  minimum: 0,
  maximum: MAX_FEE_BPS_LIMIT,
  description:
    'The `maxFeeBps` of the pair authorization `signature` was made for (GET /order-authorization ' +
    '`typedData.message.maxFeeBps`): the most the order contract takes as execution fee, in basis points of an ' +
    "order's amount. Send it: when absent, the order contract's cap at execution is assumed, and a signature made " +
    'for another cap then fails `BAD_SIGNATURE`. Cannot be changed later.',
  example: 100,
};

/** Every parameter once; an unknown one is refused (a misspelt parameter would otherwise read as missing). */
export const orderAuthorizationQuery: SchemaObject = {
  type: 'object',
  required: ['chainId', 'accountTo', 'tokenIn', 'tokenOut'],
  additionalProperties: false,
  properties: {
    chainId: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' },
    accountTo: { type: 'string', format: 'maker-address' },
    tokenIn: { type: 'string', format: 'erc20-address' },
    // A DCA strategy may buy the native coin (its pseudo-address is then what the maker signs).
    tokenOut: { type: 'string', format: 'evm-address' },
  },
};

export const orderAuthorizationParameters: ParameterDoc[] = [
  { name: 'chainId', in: 'query', required: true, schema: { type: 'integer', minimum: 1 } },
  {
    name: 'accountTo',
    in: 'query',
    required: true,
    description: 'The maker wallet: an externally owned account or a contract wallet (ERC-1271, EIP-7702)',
    schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  },
  {
    name: 'tokenIn',
    in: 'query',
    required: true,
    description: 'Token the maker sells: an ERC-20 listed for the chain (never the native token)',
    schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  },
  {
    name: 'tokenOut',
    in: 'query',
    required: true,
    description:
      'Token the maker buys: listed for the chain, other than tokenIn (a DCA strategy may buy the native coin, 0xeeee…eeee)',
    schema: { type: 'string', pattern: '^0x[0-9a-fA-F]{40}$' },
  },
];

const typedField: SchemaObject = {
  type: 'object',
  required: ['name', 'type'],
  properties: { name: { type: 'string' }, type: { type: 'string' } },
};

const BASE_UNITS = { type: 'string', pattern: '^[0-9]+$' };

export const orderAuthorizationSchema: SchemaObject = {
  type: 'object',
  required: [
    'chainId',
    'accountTo',
    'tokenIn',
    'tokenOut',
    'spender',
    'typedData',
    'allowance',
    'balance',
    'required',
    'estimatedFeePerOrder',
    'maxFeeBps',
    'openLimitOrders',
    'activeStrategies',
    'validSignatureHeld',
  ],
  properties: {
    chainId: { type: 'integer' },
    accountTo: { type: 'string', description: 'The maker, as sent' },
    tokenIn: { type: 'string', description: 'EIP-55' },
    tokenOut: { type: 'string', description: 'EIP-55' },
    spender: {
      type: 'string',
      description:
        'The order contract (EIP-55): approve `tokenIn` to it. Limit orders and DCA pull amount plus execution fee under this allowance.',
    },
    typedData: {
      type: 'object',
      description:
        'The pair authorization to sign, exactly as `eth_signTypedData_v4` takes it (ethers: `signTypedData(domain, ' +
        '{PairAuthorization: types.PairAuthorization}, message)`). The 65-byte signature is the `signature` of ' +
        'every limit order and DCA strategy of this maker and pair created with this API key (`integrator`); an ' +
        'order of another key carrying it fails `BAD_SIGNATURE`. Send `message.maxFeeBps` with each order as its ' +
        '`maxFeeBps`. A contract wallet (ERC-1271, EIP-7702) signs the same message; its `isValidSignature` is ' +
        'asked at execution.',
      required: ['domain', 'types', 'primaryType', 'message'],
      properties: {
        domain: {
          type: 'object',
          required: ['name', 'version', 'chainId', 'verifyingContract'],
          properties: {
            name: { type: 'string' },
            version: { type: 'string' },
            chainId: { type: 'integer' },
            verifyingContract: { type: 'string' },
          },
        },
        types: {
          type: 'object',
          required: ['EIP712Domain', 'PairAuthorization'],
          properties: {
            EIP712Domain: { type: 'array', items: typedField },
            PairAuthorization: { type: 'array', items: typedField },
          },
        },
        primaryType: { type: 'string', enum: ['PairAuthorization'] },
        message: {
          type: 'object',
          required: ['maker', 'tokenIn', 'tokenOut', 'integrator', 'maxDeviationBps', 'maxFeeBps'],
          properties: {
            maker: { type: 'string' },
            tokenIn: { type: 'string' },
            tokenOut: { type: 'string' },
            integrator: {
              type: 'string',
              description:
                'keccak256 of the calling API key id: the authorization serves only orders this key creates',
            },
            maxDeviationBps: {
              type: 'integer',
              description:
                "0: the order contract's own bound below its manipulation-resistant price applies (see README)",
            },
            maxFeeBps: {
              type: 'integer',
              description:
                "The fee cap the maker accepts, in basis points of an order's amount: the order contract's " +
                '`maxFeeBps` now. The contract takes at most the lower of this and its cap at execution, so a later ' +
                'raise of its cap never applies to this signature (sign again to accept a raised cap).',
            },
          },
        },
      },
    },
    allowance: {
      ...BASE_UNITS,
      description: 'Current allowance of `tokenIn` from the maker to `spender`, base units',
    },
    balance: { ...BASE_UNITS, description: "The maker's current `tokenIn` balance, base units" },
    required: {
      ...BASE_UNITS,
      description:
        "What this API key's open limit orders and active DCA strategies of this maker selling `tokenIn` on the " +
        'chain still need: amounts plus estimated execution fees, base units. Orders of other API keys are not ' +
        'counted (they are not visible to this key); an allowance below this stops orders from executing.',
    },
    estimatedFeePerOrder: {
      type: ['string', 'null'],
      pattern: '^[0-9]+$',
      description:
        'Estimated execution fee of one more order at the current gas price, in `tokenIn` base units: a new order ' +
        'needs its `amount` plus this on top of `required` (add a buffer: gas prices move). Null when `tokenIn` has ' +
        'no price route from the native coin: then count `maxFeeBps` of the amount, as `required` does.',
    },
    maxFeeBps: {
      type: 'integer',
      description:
        'The order contract never takes more than this share of an order amount as execution fee (basis ' +
        'points), nor more than the cap the maker signed (`typedData.message.maxFeeBps`, offered at this value)',
    },
    openLimitOrders: {
      type: 'integer',
      description: 'Open (pending, executing, submitted) limit orders counted in `required`',
    },
    activeStrategies: { type: 'integer', description: 'Active DCA strategies counted in `required`' },
    validSignatureHeld: {
      type: 'boolean',
      description:
        "Whether one of this API key's limit orders or DCA strategies of this maker and pair carries a signature " +
        'that is valid for `typedData` with the fee cap it was signed for (so the keeper can execute them)',
    },
  },
};
