import { readFileSync } from 'node:fs';
import {
  ContractFactory,
  Interface,
  MaxUint256,
  parseEther,
  type InterfaceAbi,
  type JsonRpcProvider,
  type Wallet,
} from 'ethers';
import { loadArtifact } from '../../../contracts-abi/artifacts';
import { devnetKeys } from '../../../devnet/keys';
import { startChain, type ChainHandle } from '../../../devnet/start-chain';
import { waitForReceipt } from '../../../devnet/wait-for-receipt';

/**
 * Our WrappedNative against the canonical WETH9 build (npm canonical-weth) on one chain: the same calls from the
 * same accounts give the same results, revert data, events and state, name and symbol aside.
 */

const iface = new Interface(loadArtifact('WrappedNative').abi);

interface Step {
  label: string;
  from: number;
  data: string;
  value?: bigint;
}

const [A, B, C] = [0, 1, 2];
const keys = devnetKeys();
const addressOf = (i: number) => keys.accounts[i]!.address;
const call = (fn: string, args: unknown[] = []) => iface.encodeFunctionData(fn, args);

const STEPS: Step[] = [
  { label: 'deposit()', from: A, data: call('deposit'), value: parseEther('5') },
  { label: 'plain transfer of coins (receive)', from: B, data: '0x', value: parseEther('2') },
  { label: 'unknown selector with value (fallback)', from: C, data: '0x12345678', value: parseEther('1') },
  { label: 'unknown selector without value', from: C, data: '0xdeadbeef' },
  { label: 'approve 3', from: A, data: call('approve', [addressOf(B), parseEther('3')]) },
  {
    label: 'transferFrom within allowance',
    from: B,
    data: call('transferFrom', [addressOf(A), addressOf(C), 10n ** 18n]),
  },
  {
    label: 'transferFrom beyond allowance',
    from: B,
    data: call('transferFrom', [addressOf(A), addressOf(C), parseEther('2.5')]),
  },
  { label: 'approve max', from: A, data: call('approve', [addressOf(B), MaxUint256]) },
  {
    label: 'transferFrom under max allowance',
    from: B,
    data: call('transferFrom', [addressOf(A), addressOf(C), 10n ** 18n]),
  },
  {
    label: 'transferFrom of more than the balance',
    from: B,
    data: call('transferFrom', [addressOf(A), addressOf(B), parseEther('4')]),
  },
  {
    label: 'transferFrom from oneself without allowance',
    from: C,
    data: call('transferFrom', [addressOf(C), addressOf(A), 1n]),
  },
  {
    label: 'transferFrom without allowance',
    from: C,
    data: call('transferFrom', [addressOf(A), addressOf(C), 1n]),
  },
  { label: 'transfer', from: C, data: call('transfer', [addressOf(B), parseEther('0.5')]) },
  {
    label: 'transfer of more than the balance',
    from: B,
    data: call('transfer', [addressOf(A), parseEther('100')]),
  },
  { label: 'transfer of 0 to oneself', from: A, data: call('transfer', [addressOf(A), 0n]) },
  { label: 'withdraw', from: A, data: call('withdraw', [parseEther('1.5')]) },
  { label: 'withdraw of more than the balance', from: C, data: call('withdraw', [parseEther('50')]) },
];

interface Outcome {
  label: string;
  /** Return data of eth_call, or the revert data. */
  result: string;
  logs: Array<{ topics: readonly string[]; data: string }>;
}

function revertData(err: unknown): string {
  const e = err as { data?: string | null; info?: { error?: { data?: string } } };
  return `revert ${e.data ?? e.info?.error?.data ?? '0x'}`;
}

async function run(provider: JsonRpcProvider, token: string, wallets: Wallet[]): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const step of STEPS) {
    const tx = { to: token, from: wallets[step.from]!.address, data: step.data, value: step.value ?? 0n };
    let result: string;
    try {
      result = await provider.call(tx);
    } catch (err) {
      outcomes.push({ label: step.label, result: revertData(err), logs: [] });
      continue;
    }
    const sent = await wallets[step.from]!.sendTransaction({ ...tx, gasLimit: 200_000n });
    // Polled, not ethers' wait(), which an idle instant-mining chain can leave waiting (see waitForReceipt).
    const receipt = await waitForReceipt(provider, sent.hash);
    expect(receipt.status).toBe(1);
    outcomes.push({
      label: step.label,
      result,
      logs: receipt.logs.map((l) => ({ topics: l.topics, data: l.data })),
    });
  }
  return outcomes;
}

async function state(provider: JsonRpcProvider, token: string): Promise<Record<string, bigint>> {
  const read = async (fn: string, args: unknown[] = []) =>
    BigInt(await provider.call({ to: token, data: call(fn, args) }));
  const out: Record<string, bigint> = {
    totalSupply: await read('totalSupply'),
    coinsHeld: await provider.getBalance(token),
  };
  for (const i of [A, B, C]) {
    out[`balanceOf ${i}`] = await read('balanceOf', [addressOf(i)]);
    for (const j of [A, B, C])
      out[`allowance ${i}->${j}`] = await read('allowance', [addressOf(i), addressOf(j)]);
  }
  return out;
}

describe('WrappedNative', () => {
  let chain: ChainHandle;
  let weth9: string;
  let ours: string;

  beforeAll(async () => {
    chain = await startChain({ chainId: 1 });
    const deployer = keys.deployer.connect(chain.provider);
    const canonical = JSON.parse(
      readFileSync(require.resolve('canonical-weth/build/contracts/WETH9.json'), 'utf8'),
    ) as { abi: InterfaceAbi; bytecode: string };
    const deploy = async (factory: ContractFactory, args: unknown[]) => {
      const contract = await factory.deploy(...args);
      await contract.waitForDeployment();
      return contract.getAddress();
    };
    weth9 = await deploy(new ContractFactory(canonical.abi, canonical.bytecode, deployer), []);
    const artifact = loadArtifact('WrappedNative');
    ours = await deploy(new ContractFactory(artifact.abi, artifact.bytecode, deployer), [
      'Wrapped BNB',
      'WBNB',
    ]);
  });
  afterAll(() => chain?.stop());

  it('takes its name and symbol from the constructor, with 18 decimals', async () => {
    const read = async (fn: string) =>
      iface.decodeFunctionResult(fn, await chain.provider.call({ to: ours, data: call(fn) }))[0] as unknown;
    expect([await read('name'), await read('symbol'), await read('decimals')]).toEqual([
      'Wrapped BNB',
      'WBNB',
      18n,
    ]);
  });

  it('answers every call as WETH9 does: results, revert data, events and final state', async () => {
    const wallets = keys.accounts.map((w) => w.connect(chain.provider));
    const expected = await run(chain.provider, weth9, wallets);
    const actual = await run(chain.provider, ours, wallets);
    expect(actual).toEqual(expected);

    // The scenario really covers what it names: bare reverts, and a max allowance that is never spent.
    const byLabel = new Map(actual.map((o) => [o.label, o]));
    for (const label of [
      'transferFrom beyond allowance',
      'transferFrom of more than the balance',
      'transferFrom without allowance',
      'transfer of more than the balance',
      'withdraw of more than the balance',
    ])
      expect(byLabel.get(label)?.result).toBe('revert 0x');
    const topic = (event: string) => iface.getEvent(event)!.topicHash;
    expect(byLabel.get('deposit()')?.logs[0]?.topics[0]).toBe(topic('Deposit'));
    expect(byLabel.get('unknown selector with value (fallback)')?.logs[0]?.topics[0]).toBe(topic('Deposit'));
    expect(byLabel.get('withdraw')?.logs[0]?.topics[0]).toBe(topic('Withdrawal'));

    const [theirs, mine] = [await state(chain.provider, weth9), await state(chain.provider, ours)];
    expect(mine).toEqual(theirs);
    expect(mine[`allowance ${A}->${B}`]).toBe(MaxUint256);
    // 8 coins wrapped, 1.5 unwrapped.
    expect(mine.totalSupply).toBe(parseEther('6.5'));
    expect(mine.coinsHeld).toBe(parseEther('6.5'));
  });
});
