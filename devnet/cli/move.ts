/**
 * Moves a devnet pool's price with the market mover's account:
 *   npm run devnet:move -- --chain 1 --pair WETH/USDC --by 5% [--dex v2|v3] [--fee 3000]
 * Reads the chains from DATA_DIR/devnet.json (DATA_DIR defaults to ./data).
 */
import { devnetKeys } from '../keys';
import { readManifest } from '../manifest';
import { movePrice } from '../market-mover';
import { devnetProvider } from '../provider';

const USAGE =
  'usage: npm run devnet:move -- --chain <chainId> --pair BASE/QUOTE --by <percent>% [--dex v2|v3] [--fee <tier>]';

/** "5%" → 0.05, "-2.5%" → -0.025, "0.05" → 0.05. */
export function parseBy(text: string): number {
  const percent = text.endsWith('%');
  const value = Number(percent ? text.slice(0, -1) : text);
  if (text.trim() === '' || !Number.isFinite(value))
    throw new Error(`--by must be a number or a percentage, got ${text}`);
  return percent ? value / 100 : value;
}

/** Nine significant digits: enough to see a 0.1 % move on any price, without float noise. */
function formatPrice(price: number): string {
  return String(Number(price.toPrecision(9)));
}

function quoteOf(pair: string): string {
  return pair.split('/')[1] ?? '';
}

function parseArgs(argv: string[]): Map<string, string> {
  const args = new Map<string, string>();
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (!flag?.startsWith('--') || value === undefined) throw new Error(USAGE);
    args.set(flag.slice(2), value);
  }
  return args;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const chainId = Number(args.get('chain'));
  const pair = args.get('pair');
  const byText = args.get('by');
  const dex = args.get('dex') ?? 'v2';
  if (!Number.isSafeInteger(chainId) || !pair || !byText || (dex !== 'v2' && dex !== 'v3'))
    throw new Error(USAGE);
  const fee = args.has('fee') ? Number(args.get('fee')) : undefined;
  const dataDir = process.env.DATA_DIR || './data';
  const chain = readManifest(dataDir).chains.find((c) => c.chainId === chainId);
  if (!chain) throw new Error(`chain ${chainId} is not in ${dataDir}/devnet.json`);
  const provider = devnetProvider(chain.rpcUrl, chainId);
  try {
    const moved = await movePrice({
      provider,
      chainId,
      world: { chainId, contracts: chain.contracts, tokens: chain.tokens },
      pair,
      by: parseBy(byText),
      dex,
      fee,
      signer: devnetKeys().mover,
    });
    const change = ((moved.after / moved.before - 1) * 100).toFixed(3);
    console.log(`${moved.pair} on ${moved.dex} (chain ${chainId}, pool ${moved.pool})`);
    console.log(`before ${formatPrice(moved.before)} ${quoteOf(pair)}`);
    console.log(
      `after  ${formatPrice(moved.after)} ${quoteOf(pair)} (${Number(change) >= 0 ? '+' : ''}${change}%)`,
    );
    console.log(`traded ${moved.amountIn} base units of ${moved.tokenIn} in ${moved.txHash}`);
  } finally {
    provider.destroy();
  }
}

if (require.main === module) {
  main().catch((err: unknown) => {
    console.error((err as Error).message);
    process.exitCode = 1;
  });
}
