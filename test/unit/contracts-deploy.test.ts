import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getCreate2Address, keccak256 } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import type { ChainConfig } from '../../shared/config/config-schema';
import { tokenListReference, writeChainEntry } from '../../tools/contracts-deploy/chains-file';
import { isRuntimeOf } from '../../tools/contracts-deploy/code-check';
import { planContracts } from '../../tools/contracts-deploy/contract-plan';
import { CREATE2_PROXY, DEPLOY_SALT } from '../../tools/contracts-deploy/create2';
import { parseReleaseLimits } from '../../tools/contracts-deploy/release-limits';
import { readVenuesFile } from '../../tools/contracts-deploy/venues';
import { readmeSectionCommands } from '../helpers/readme-commands';

const A = '0x1111111111111111111111111111111111111111';
const B = '0x2222222222222222222222222222222222222222';
const WETH = '0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2';

const entry = (over: Partial<ChainConfig> = {}): ChainConfig => ({
  chainId: 1,
  name: 'Ethereum',
  rpcUrls: ['http://new'],
  nativeSymbol: 'ETH',
  nativeDecimals: 18,
  wrappedNative: WETH,
  crossChainSource: false,
  contracts: {
    multicall: A,
    uniswapV2Factory: A,
    uniswapV3Factory: A,
    swapRouter: B,
    spender: B,
    orderExecutor: B,
  },
  ...over,
});

describe('contracts:deploy, its parts', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'tas-deploy-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('accepts runtime code that differs from the artifact only in the zero words immutables fill', () => {
    const artifact = Uint8Array.from([0x60, 0x80, ...new Array<number>(32).fill(0), 0x56, 0x00]);
    const deployed = Uint8Array.from(artifact);
    deployed.set(new Array<number>(32).fill(0xab), 2);
    expect(isRuntimeOf(deployed, artifact)).toBe(true);
    // Code elsewhere, a word too short to be an immutable, or another length: other code.
    const patched = Uint8Array.from(deployed);
    patched[0] = 0x61;
    expect(isRuntimeOf(patched, artifact)).toBe(false);
    const short = Uint8Array.from([0x60, 0x00, 0x00, 0x56]);
    expect(isRuntimeOf(Uint8Array.from([0x60, 0x12, 0x34, 0x56]), short)).toBe(false);
    expect(isRuntimeOf(deployed.slice(1), artifact)).toBe(false);
  });

  it('plans each contract at its CREATE2 address through the proxy, the same for the same inputs', () => {
    const inputs = {
      deployer: A,
      owner: B,
      timelockDelay: 172_800,
      venues: { weth: WETH, multicall: A, uniswapV2Factory: A, uniswapV3Factory: A },
      protocolFeeRecipient: B,
      bridges: false,
    };
    const plan = planContracts(inputs);
    expect(Object.keys(plan)).toEqual([
      'TokenSpender',
      'SwapRouter',
      'PriceOracle',
      'OrderExecutor',
      'TimelockController',
    ]);
    for (const contract of Object.values(plan)) {
      expect(contract.initCode.startsWith(contract.artifact.bytecode)).toBe(true);
      expect(contract.address).toBe(
        getCreate2Address(CREATE2_PROXY, DEPLOY_SALT, keccak256(contract.initCode)),
      );
    }
    expect(planContracts(inputs).OrderExecutor.address).toBe(plan.OrderExecutor.address);
    // Another owner changes the timelock only; another deployer, everything.
    const otherOwner = planContracts({ ...inputs, owner: A });
    expect(otherOwner.OrderExecutor.address).toBe(plan.OrderExecutor.address);
    expect(otherOwner.TimelockController.address).not.toBe(plan.TimelockController.address);
    expect(planContracts({ ...inputs, deployer: B }).TokenSpender.address).not.toBe(
      plan.TokenSpender.address,
    );
    expect(plan.TimelockController.artifact.abi).toEqual(loadArtifact('TimelockController').abi);
  });

  it('creates the chains file, then replaces only its chain, keeping what the operator added', () => {
    const file = path.join(dir, 'config', 'chains.json');
    expect(writeChainEntry(file, entry())).toBe('created');
    const other = { ...entry(), chainId: 10, name: 'OP Mainnet' };
    expect(writeChainEntry(file, other)).toBe('added');
    const edited = JSON.parse(readFileSync(file, 'utf8')) as { chains: ChainConfig[] };
    edited.chains[0] = {
      ...edited.chains[0]!,
      rpcUrls: ['http://new', 'http://backup'],
      maxFeePerGasGwei: 80,
    };
    writeFileSync(file, JSON.stringify(edited));
    const redeployed = entry({ contracts: { ...entry().contracts!, orderExecutor: A } });
    expect(writeChainEntry(file, redeployed)).toBe('updated');
    const { chains } = JSON.parse(readFileSync(file, 'utf8')) as { chains: ChainConfig[] };
    expect(chains.map((c) => c.chainId)).toEqual([1, 10]);
    expect(chains[0]).toEqual({
      ...redeployed,
      rpcUrls: ['http://new', 'http://backup'],
      maxFeePerGasGwei: 80,
    });
    expect(chains[1]).toEqual(other);
    expect(tokenListReference(file, path.join(dir, 'lists', '1.json'))).toBe('../lists/1.json');
  });

  it('refuses a venues file with an unknown key or a bad address, naming it', () => {
    const file = path.join(dir, 'venues.json');
    writeFileSync(file, JSON.stringify({ weth: WETH.toLowerCase(), uniswapV3Factory: A }));
    expect(readVenuesFile(file)).toEqual({ weth: WETH, uniswapV3Factory: A });
    writeFileSync(file, JSON.stringify({ weth: WETH, uniswapV2Router: A }));
    expect(() => readVenuesFile(file)).toThrow(`--venues ${file}: unknown key uniswapV2Router (known: weth,`);
    writeFileSync(file, JSON.stringify({ weth: '0x12' }));
    expect(() => readVenuesFile(file)).toThrow(`--venues ${file}: weth is not an address`);
    writeFileSync(file, '[]');
    expect(() => readVenuesFile(file)).toThrow('must hold a JSON object of venue addresses');
  });

  it('reads --release-limit as TOKEN=AMOUNT of whole tokens, refusing a bad value or a token twice, naming it', () => {
    expect(parseReleaseLimits([`${WETH.toLowerCase()}=100`, `${A}=250000.5`])).toEqual([
      { token: WETH, amount: '100' },
      { token: A, amount: '250000.5' },
    ]);
    expect(parseReleaseLimits([])).toEqual([]);
    expect(() => parseReleaseLimits(['0x12=5'])).toThrow(
      '--release-limit 0x12=5: expected TOKEN=AMOUNT with TOKEN an address',
    );
    for (const amount of ['', '-1', '1e6', '01', '1.', '.5', '1=2', 'ten']) {
      expect(() => parseReleaseLimits([`${A}=${amount}`])).toThrow(
        `--release-limit ${A}=${amount}: expected TOKEN=AMOUNT with AMOUNT a decimal number of tokens`,
      );
    }
    expect(() => parseReleaseLimits([A])).toThrow(`--release-limit ${A}: expected TOKEN=AMOUNT`);
    expect(() => parseReleaseLimits([`${A}=1`, `${A.toUpperCase().replace('0X', '0x')}=2`])).toThrow(
      `--release-limit: ${A} is given more than once`,
    );
  });

  it("the README's Going live section gives the deploy, migrate, api and keeper commands the e2e test runs", () => {
    const commands = readmeSectionCommands('## Going live');
    expect(commands.map((c) => /^npm run (\S+)/.exec(c)?.[1])).toEqual([
      'contracts:deploy',
      'migrate',
      'start:api',
      'keeper',
    ]);
    expect(commands[0]).toContain('--rpc-url "$RPC_URL" --out "$CHAINS_FILE"');
  });
});
