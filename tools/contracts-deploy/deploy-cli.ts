import { parseArgs } from 'node:util';
import { JsonRpcProvider, getAddress } from 'ethers';
import { loadExecutorWallets } from '../../keeper/submit/executor-keys';
import { DEFAULT_TIMELOCK_DELAY_SECONDS } from './contract-plan';
import { deployContracts } from './deploy-contracts';
import { parseReleaseLimits } from './release-limits';
import { readVenuesFile } from './venues';

const USAGE =
  'usage: npm run contracts:deploy -- --rpc-url URL --out FILE [--venues FILE] [--executors ADDR,ADDR] ' +
  '[--token-list FILE] [--owner ADDR] [--fee-collector ADDR] [--releaser ADDR [--release-limit TOKEN=AMOUNT ...]] ' +
  '[--timelock-delay SECONDS]\n' +
  'the deployer key: DEPLOYER_PRIVATE_KEY, or DEPLOYER_KEYSTORE_FILE with DEPLOYER_KEYSTORE_PASSWORD or ' +
  'DEPLOYER_KEYSTORE_PASSWORD_FILE';

function addresses(list: string | undefined, flag: string): string[] {
  return (list ?? '')
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '')
    .map((a) => {
      try {
        return getAddress(a);
      } catch {
        throw new Error(`${flag}: ${a} is not an address`);
      }
    });
}

function address(value: string | undefined, flag: string): string | undefined {
  return value === undefined ? undefined : addresses(value, flag)[0];
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      'rpc-url': { type: 'string' },
      out: { type: 'string' },
      venues: { type: 'string' },
      executors: { type: 'string' },
      'token-list': { type: 'string' },
      owner: { type: 'string' },
      'fee-collector': { type: 'string' },
      releaser: { type: 'string' },
      'release-limit': { type: 'string', multiple: true },
      'timelock-delay': { type: 'string' },
    },
  });
  const rpcUrl = values['rpc-url'];
  const out = values.out;
  if (!rpcUrl || !out) throw new Error(`--rpc-url and --out are required\n${USAGE}`);
  const delay =
    values['timelock-delay'] === undefined
      ? DEFAULT_TIMELOCK_DELAY_SECONDS
      : Number(values['timelock-delay']);
  if (!Number.isSafeInteger(delay) || delay < 0) throw new Error('--timelock-delay must be whole seconds');
  const releaseLimits = parseReleaseLimits(values['release-limit'] ?? []);
  const env = process.env;
  if (!env.DEPLOYER_PRIVATE_KEY && !env.DEPLOYER_KEYSTORE_FILE)
    throw new Error(`no deployer key: set DEPLOYER_PRIVATE_KEY or DEPLOYER_KEYSTORE_FILE\n${USAGE}`);
  const [key] = await loadExecutorWallets({
    role: 'deployer',
    privateKeys: env.DEPLOYER_PRIVATE_KEY ? [env.DEPLOYER_PRIVATE_KEY] : [],
    keystoreFiles: env.DEPLOYER_KEYSTORE_FILE ? [env.DEPLOYER_KEYSTORE_FILE] : [],
    keystorePassword: env.DEPLOYER_KEYSTORE_PASSWORD,
    keystorePasswordFile: env.DEPLOYER_KEYSTORE_PASSWORD_FILE,
  });
  // No cache: the tool reads the code and nonces it has just changed; receipts polled each second, not each 4 s.
  const provider = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, pollingInterval: 1000 });
  try {
    await deployContracts(
      {
        provider,
        deployer: key!.connect(provider),
        rpcUrl,
        out,
        venues: values.venues ? readVenuesFile(values.venues) : undefined,
        executors: addresses(values.executors, '--executors'),
        tokenList: values['token-list'],
        owner: address(values.owner, '--owner'),
        feeCollector: address(values['fee-collector'], '--fee-collector'),
        releaser: address(values.releaser, '--releaser'),
        releaseLimits,
        timelockDelay: delay,
      },
      (line) => process.stdout.write(`${line}\n`),
    );
  } finally {
    provider.destroy();
  }
}

main().catch((err: unknown) => {
  // One line an operator can act on; ethers' long messages carry no key, but the stack is noise here.
  process.stderr.write(`contracts:deploy failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
