/**
 * From nothing to an executed limit order with the SDK alone: an API account, the maker's pair signature and
 * allowance, the order, and its execution by the service.
 *
 *   TAS_BASE_URL     base URL ending in /api/v1 (default http://127.0.0.1:8080/api/v1, what `npm start` serves)
 *   TAS_PRIVATE_KEY  the maker wallet's private key (on `npm start`: one of the devnet manifest's test accounts)
 *   TAS_RPC_URL      a JSON-RPC endpoint of chain 1 (on `npm start`: the manifest's rpcUrl of chain 1)
 *
 * Run: npx tsx examples/typescript/limit-order.ts
 *
 * It sells 0.5 WETH for USDC with a trigger of 1000 USDC per WETH: far below the devnet's market of about 3000, so
 * the service executes it within seconds. On a real chain that order would sell at a loss: choose your own price.
 * Exit code 0 only when the order completed.
 */
import { randomBytes } from 'node:crypto';
import { JsonRpcProvider, Wallet } from 'ethers';
import { Maker, TasClient, TasError, waitForOrder } from '../../sdk/src';

const CHAIN_ID = 1;
// The devnet executes a crossing order within seconds; a real market may take far longer to reach a trigger.
const WAIT_MS = 120_000;

function print(line: string): void {
  process.stdout.write(`${line}\n`);
}

function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`set ${name} (see the top of examples/typescript/limit-order.ts)`);
  return value;
}

async function main(): Promise<boolean> {
  const baseUrl = process.env.TAS_BASE_URL ?? 'http://127.0.0.1:8080/api/v1';
  // Keys come from the environment, never from arguments: they stay out of shell history and process lists.
  const privateKey = requiredEnv('TAS_PRIVATE_KEY');
  const provider = new JsonRpcProvider(requiredEnv('TAS_RPC_URL'), CHAIN_ID, {
    staticNetwork: true,
    cacheTimeout: -1, // a nonce looked up twice within 250 ms would otherwise come from ethers' cache
  });
  try {
    // Never retried by the SDK: every success creates another account. Keep the credentials somewhere safe.
    const credentials = await TasClient.createAccount(baseUrl, {
      name: `ts-example-${randomBytes(4).toString('hex')}`,
      password: randomBytes(18).toString('base64url'),
    });
    print(`account: ${credentials.apiKeyId}`);
    const client = new TasClient({ baseUrl, credentials });

    // The signer pays for the approval the Maker sends when the allowance does not cover the order.
    const maker = new Maker(client, new Wallet(privateKey, provider));
    const order = await maker.createLimitOrder({
      chainId: CHAIN_ID,
      sell: 'WETH',
      buy: 'USDC',
      amount: '0.5',
      priceTrigger: '1000',
    });
    print(`order ${order.id}: ${order.status} (maker ${order.accountTo})`);

    const final = await waitForOrder(client, order.id, { timeoutMs: WAIT_MS });
    print(`order ${final.id}: ${final.status}`);
    if (final.status !== 'completed') {
      console.error(`the order ended ${final.status}: ${JSON.stringify(final.reasonFail)}`);
      return false;
    }
    print(`tx hash: ${final.txHash}`);
    return true;
  } finally {
    provider.destroy();
  }
}

main().then(
  (completed) => {
    process.exitCode = completed ? 0 : 1;
  },
  (error: unknown) => {
    // A TasError's message holds the code, the message and the request id (never a secret); its details say
    // which field a 400 refused.
    console.error(`error: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof TasError) {
      for (const d of error.details) console.error(`  ${d.field ? `${d.field}: ` : ''}${d.message}`);
    }
    process.exitCode = 1;
  },
);
