import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  Contract,
  JsonRpcProvider,
  MaxUint256,
  ZeroHash,
  Wallet,
  encryptKeystoreJson,
  getAddress,
  parseEther,
  type TransactionReceipt,
} from 'ethers';
import { createConnection } from 'mysql2/promise';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { anvilBinary } from '../../devnet/engine/anvil-binary';
import { devnetKeys } from '../../devnet/keys';
import type { ManifestChain } from '../../devnet/manifest';
import { ERC20_ABI } from '../../devnet/world/abis';
import { deployWorld, type DeployedWorld } from '../../devnet/world/deploy-world';
import type { ChainConfig } from '../../shared/config/config-schema';
import { loadConfig } from '../../shared/config/load-config';
import { freePort } from '../../shared/net/free-port';
import { ApiClient, newAccountClient } from '../helpers/api-client';
import { crossingOrder, expectCrossingOrderExecuted, type CrossingOrder } from '../helpers/crossing-order';
import {
  createLimitOrder,
  createStrategy,
  getLimitOrder,
  getStrategy,
  pollUntil,
  signedStrategyBody,
  token,
} from '../helpers/maker';
import { redisForTests, freshRedisPrefix } from '../helpers/redis-probe';
import {
  readmeSectionCommands,
  runCommand,
  startCommand,
  type RunningCommand,
} from '../helpers/readme-commands';
import { mysqlServerForTests } from '../helpers/store-targets';
import { mined } from '../../devnet/wait-for-receipt';

/**
 * Going live, end to end, with the README's own commands: a plain anvil chain the service does not start, with the
 * venues (WETH, tokens, Uniswap, SushiSwap, Balancer, StableSwap pools) deployed there first as a real chain has
 * them; our contracts deployed by `npm run contracts:deploy` from a keystore (twice: the second run sends nothing);
 * `npm run migrate` on MariaDB; two `npm run start:api` and two `npm run keeper` processes with their own keystore
 * executors, CHAINS_FILE, DATABASE_URL and REDIS_URL. A swap through each api, limit orders through both and a DCA
 * strategy are executed by the keepers while one keeper is killed with SIGKILL and restarted: every order is
 * executed on-chain exactly once.
 */

jest.setTimeout(600_000);

const COMMANDS = readmeSectionCommands('## Going live');
const command = (script: string): string => {
  const found = COMMANDS.find((c) => c.startsWith(`npm run ${script}`));
  if (!found) throw new Error(`the README's Going live section has no npm run ${script}`);
  return found;
};

const PASSWORD = 'correct horse battery staple';
const mysqlUrl = mysqlServerForTests();
const redisUrl = redisForTests();
// As the store and Redis suites: listed as skipped without them; on CI their absence already failed the set-up.
const describeLive = mysqlUrl && redisUrl ? describe : describe.skip;

/** A command that ran to exit code 0; otherwise the failure shows what it printed. */
function expectSuccess(result: { code: number | null; output: string }): void {
  if (result.code !== 0) throw new Error(`exit ${result.code}:\n${result.output}`);
}

/** The venues a live chain has, as `--venues` takes them (the world's own contracts of ours left out). */
function venuesOf(world: DeployedWorld): Record<string, string | undefined> {
  const c = world.contracts;
  return {
    weth: c.weth,
    multicall: c.multicall,
    uniswapV2Factory: c.uniswapV2Factory,
    uniswapV3Factory: c.uniswapV3Factory,
    uniswapV3QuoterV2: c.uniswapV3QuoterV2,
    sushiswapV2Factory: c.sushiswapV2Factory,
    uniswapV4PoolManager: c.uniswapV4PoolManager,
    balancerVault: c.balancerVault,
    balancerWeightedPoolFactory: c.balancerWeightedPoolFactory,
    stableSwapFactory: c.stableSwapFactory,
  };
}

/** A fresh key pair, as `cast wallet new` makes one. */
const randomWallet = (): Wallet => new Wallet(Wallet.createRandom().privateKey);

describeLive(
  'going live: contracts:deploy, two apis, two keepers, MariaDB and Redis on a chain we do not own',
  () => {
    let dir: string;
    let anvil: ChildProcess;
    let rpcUrl: string;
    let provider: JsonRpcProvider;
    let world: DeployedWorld;
    let databaseUrl: string;
    let databaseName: string;
    let chainsFile: string;
    let chain: ManifestChain;
    const deployer = randomWallet();
    const ownerKey = randomWallet();
    const owner = ownerKey.address;
    const keeperWallets = [
      [randomWallet(), randomWallet()],
      [randomWallet(), randomWallet()],
    ];
    const makers = [0, 1, 2, 3].map(() => randomWallet());
    const processes: RunningCommand[] = [];
    let deployEnv: Record<string, string>;
    let serviceEnv: Record<string, string>;
    let keeperEnvs: Record<string, string>[];

    const rpc = (method: string, params: unknown[] = []) => provider.send(method, params);

    beforeAll(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'tas-live-'));
      const port = await freePort('127.0.0.1');
      rpcUrl = `http://127.0.0.1:${port}`;
      anvil = spawn(
        anvilBinary(),
        ['--host', '127.0.0.1', '--port', String(port), '--chain-id', '1', '--silent'],
        {
          stdio: 'ignore',
        },
      );
      provider = new JsonRpcProvider(rpcUrl, 1, {
        staticNetwork: true,
        cacheTimeout: -1,
        pollingInterval: 200,
      });
      for (const deadline = Date.now() + 30_000; ;) {
        try {
          await provider.getBlockNumber();
          break;
        } catch (err) {
          if (Date.now() > deadline) throw err;
          await new Promise((r) => setTimeout(r, 200));
        }
      }
      // The chain's own life before us: its venues and tokens, and coins in the wallets an operator funds.
      const worldKeys = devnetKeys(0);
      const worldDeployer = worldKeys.deployer.connect(provider);
      const funded = [
        worldDeployer.address,
        worldKeys.relayer.address,
        worldKeys.bridgeAdmin.address,
        deployer.address,
        ...keeperWallets.flat().map((w) => w.address),
      ];
      for (const address of [...funded, ...makers.map((m) => m.address)])
        await rpc('anvil_setBalance', [address, `0x${parseEther('1000000').toString(16)}`]);
      world = await deployWorld({
        provider,
        chainId: 1,
        deployer: worldDeployer,
        executors: [],
        fund: makers.map((m) => m.address),
      });
      // Half an hour of pool history (the price bound needs five minutes), then blocks every second as a live chain.
      await rpc('evm_increaseTime', [1800]);
      await rpc('evm_mine');

      writeFileSync(path.join(dir, 'venues.json'), JSON.stringify(venuesOf(world)));
      writeFileSync(
        path.join(dir, 'tokenlist.json'),
        JSON.stringify({
          name: 'Live test tokens',
          timestamp: new Date().toISOString(),
          version: { major: 1, minor: 0, patch: 0 },
          tokens: world.tokens.map((t) => ({
            chainId: 1,
            address: t.address,
            name: t.symbol,
            symbol: t.symbol,
            decimals: t.decimals,
          })),
        }),
      );
      writeFileSync(path.join(dir, 'password'), `${PASSWORD}\n`);
      const deployerKeystore = await keystore(dir, 'deployer', deployer);
      const keeperKeystores = await Promise.all(
        keeperWallets.map(async (wallets, k) =>
          Promise.all(wallets.map((w, i) => keystore(dir, `keeper-${k}-executor-${i}`, w))),
        ),
      );

      databaseName = `tas_live_${randomBytes(4).toString('hex')}`;
      const admin = await createConnection({ uri: mysqlUrl! });
      await admin.query(`CREATE DATABASE ${databaseName}`);
      await admin.end();
      const server = new URL(mysqlUrl!);
      server.pathname = `/${databaseName}`;
      databaseUrl = server.toString();
      chainsFile = path.join(dir, 'config', 'chains.json');

      deployEnv = {
        RPC_URL: rpcUrl,
        CHAINS_FILE: chainsFile,
        EXECUTORS: keeperWallets
          .flat()
          .map((w) => w.address)
          .join(','),
        OWNER: owner,
        TOKEN_LIST: path.join(dir, 'tokenlist.json'),
        VENUES: path.join(dir, 'venues.json'),
        DEPLOYER_KEYSTORE_FILE: deployerKeystore,
        DEPLOYER_KEYSTORE_PASSWORD_FILE: path.join(dir, 'password'),
      };
      serviceEnv = {
        DEVNET: 'off',
        CHAINS_FILE: chainsFile,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redisUrl!,
        REDIS_KEY_PREFIX: freshRedisPrefix(),
        MASTER_KEY: randomBytes(32).toString('hex'),
        DATA_DIR: path.join(dir, 'data'),
      };
      keeperEnvs = keeperKeystores.map((files, k) => ({
        ...serviceEnv,
        EXECUTOR_KEYSTORE_FILES: files.join(','),
        EXECUTOR_KEYSTORE_PASSWORD_FILE: path.join(dir, 'password'),
        KEEPER_ID: `keeper-${k}`,
        KEEPER_ADMIN_PORT: '0',
        KEEPER_LEASE_MS: '5000',
      }));
    });

    /** A keystore as an operator makes one (light scrypt: the test writes seven). */
    async function keystore(folder: string, name: string, wallet: Wallet): Promise<string> {
      const file = path.join(folder, `${name}.json`);
      writeFileSync(
        file,
        await encryptKeystoreJson({ address: wallet.address, privateKey: wallet.privateKey }, PASSWORD, {
          scrypt: { N: 1 << 12 },
        }),
      );
      return file;
    }

    afterAll(async () => {
      await Promise.all(processes.map((p) => p.kill('SIGKILL')));
      provider?.destroy();
      anvil?.kill('SIGKILL');
      if (databaseName) {
        const admin = await createConnection({ uri: mysqlUrl! });
        await admin.query(`DROP DATABASE IF EXISTS ${databaseName}`);
        await admin.end();
      }
      rmSync(dir, { recursive: true, force: true });
    });

    it('contracts:deploy deploys, wires and hands our contracts to the timelock once; a second run sends nothing', async () => {
      const deploy = command('contracts:deploy');
      const first = await runCommand(deploy, deployEnv);
      expectSuccess(first);
      expect(first.output).toMatch(/OrderExecutor 0x[0-9a-fA-F]{40} deployed/);
      expect(first.output).toContain(`chains file ${chainsFile}: chain 1 created`);
      const nonce = await provider.getTransactionCount(deployer.address);
      expect(nonce).toBeGreaterThan(5);

      const again = await runCommand(deploy, deployEnv);
      expectSuccess(again);
      expect(again.output).toContain(
        'nothing sent: chain 1 is deployed and wired already; the addresses are kept',
      );
      expect(again.output).not.toMatch(/0x[0-9a-fA-F]{40} deployed\n/);
      expect(await provider.getTransactionCount(deployer.address)).toBe(nonce);
      expect(again.output).toContain(`chains file ${chainsFile}: chain 1 updated`);

      // The chains file alone serves: the service's own configuration loader takes it as it is.
      const config = loadConfig({ CHAINS_FILE: chainsFile });
      expect(config.chains).toHaveLength(1);
      const entry: ChainConfig = config.chains[0]!;
      expect(entry).toMatchObject({
        chainId: 1,
        name: 'Ethereum',
        rpcUrls: [rpcUrl],
        nativeSymbol: 'ETH',
        wrappedNative: world.contracts.weth,
        crossChainSource: false,
      });
      expect(entry.tokenList).toBe(path.join(dir, 'tokenlist.json'));
      const contracts = entry.contracts!;
      expect(contracts.uniswapV3Factory).toBe(world.contracts.uniswapV3Factory);
      // Our contracts, not the ones the chain's earlier life left there.
      expect(contracts.orderExecutor).not.toBe(world.contracts.orderExecutor);

      const executor = new Contract(contracts.orderExecutor, loadArtifact('OrderExecutor').abi, provider);
      const timelock = (await executor.getFunction('owner')()) as string;
      expect(await provider.getCode(timelock)).not.toBe('0x');
      for (const wallet of keeperWallets.flat())
        expect(await executor.getFunction('isExecutor')(wallet.address)).toBe(true);
      expect(await executor.getFunction('feeCollector')()).toBe(getAddress(owner));
      expect(await executor.getFunction('guardian')()).toBe(getAddress(owner));
      const spender = new Contract(contracts.spender, loadArtifact('TokenSpender').abi, provider);
      expect(await spender.getFunction('owner')()).toBe(timelock);
      expect(await spender.getFunction('isCaller')(contracts.swapRouter)).toBe(true);
      // The deployer keeps no power: the timelock answers to the owner only.
      const lock = new Contract(timelock, loadArtifact('TimelockController').abi, provider);
      const proposer = (await lock.getFunction('PROPOSER_ROLE')()) as string;
      expect(await lock.getFunction('hasRole')(proposer, owner)).toBe(true);
      expect(await lock.getFunction('hasRole')(proposer, deployer.address)).toBe(false);
      expect(await lock.getFunction('getMinDelay')()).toBe(172_800n);

      chain = {
        chainId: 1,
        name: entry.name,
        rpcUrl,
        nativeSymbol: entry.nativeSymbol,
        contracts: { ...world.contracts, ...contracts } as ManifestChain['contracts'],
        tokens: world.tokens,
        accounts: makers.map((m) => ({ address: m.address, privateKey: m.privateKey })),
      };
    });

    it('two apis and two keepers execute swaps, limit orders and a DCA strategy exactly once across a SIGKILL', async () => {
      expect(chain).toBeDefined();
      const migrate = await runCommand(command('migrate'), serviceEnv);
      expectSuccess(migrate);
      await rpc('evm_setIntervalMining', [1]);

      const apis = [0, 1].map((i) =>
        startCommand(command('start:api'), {
          ...serviceEnv,
          PORT: '0',
          ADMIN_PORT: '0',
          KEEPER_ID: `api-${i}`,
        }),
      );
      processes.push(...apis);
      const startKeeper = (k: number) => {
        const keeper = startCommand(command('keeper'), keeperEnvs[k]!);
        processes.push(keeper);
        return keeper;
      };
      const keepers = [startKeeper(0), startKeeper(1)];
      const urls = await Promise.all(
        apis.map(async (api) => (await api.waitFor(/api: (http:\/\/\S+\/api\/v1) /, 120_000))[1]!),
      );
      await Promise.all(keepers.map((k) => k.waitFor(/keeper: \S+ \(admin http:\/\/\S+\)/, 120_000)));
      expect(keepers[0]!.output()).not.toContain("devnet's");

      // One account, used through both apis: its nonces and limits are shared through Redis and the store.
      const clientA = await newAccountClient(urls[0]!);
      const clientB = new ApiClient(urls[1]!, clientA.credentials);
      const weth = token(chain, 'WETH');
      const usdc = token(chain, 'USDC');

      // A swap through each api, signed and sent by the trader itself.
      for (const [i, client] of [clientA, clientB].entries()) {
        const trader = makers[i]!.connect(provider);
        const erc20 = new Contract(usdc.address, ERC20_ABI, provider);
        const before = (await erc20.getFunction('balanceOf')(trader.address)) as bigint;
        const params = {
          chainId: 1,
          inTokenAddress: weth.address,
          outTokenAddress: usdc.address,
          amount: '0.1',
          gasPrice: '30',
          slippage: '1',
        };
        const quote = await pollUntil(
          `a quote through api ${i}`,
          () =>
            client.post<{ quote: { aggregatorId: string } }>('/quotes', {
              mode: 'single-chain',
              params,
            }),
          (res) => res.status === 200,
          { timeoutMs: 60_000, intervalMs: 500 },
        );
        const aggregatorId = quote.body.data!.quote.aggregatorId;
        const swapRes = await client.post<{
          swap: { to: string; data: string; value: string; contractToApprove: string };
        }>('/swap', {
          mode: 'single-chain',
          params: { ...params, account: trader.address, aggregatorId },
        });
        expect(swapRes.status).toBe(200);
        const swap = swapRes.body.data!.swap;
        // The allowance goes to the swap's contractToApprove (our TokenSpender), as the spec says.
        const approve = await new Contract(weth.address, ERC20_ABI, trader).getFunction('approve')(
          swap.contractToApprove,
          MaxUint256,
        );
        await mined(approve);
        const tx = await trader.sendTransaction({ to: swap.to, data: swap.data, value: BigInt(swap.value) });
        const receipt = (await mined(tx)) as TransactionReceipt;
        expect(receipt.status).toBe(1);
        expect(getAddress(swap.to)).toBe(chain.contracts.swapRouter);
        expect(getAddress(swap.contractToApprove)).toBe(chain.contracts.spender);
        expect((await erc20.getFunction('balanceOf')(trader.address)) as bigint).toBeGreaterThan(before);
      }

      // Limit orders through both apis, a DCA strategy through the second.
      const orders: Array<{ order: CrossingOrder; id: string; client: ApiClient }> = [];
      for (const [i, client] of [clientA, clientB, clientA, clientB].entries()) {
        const order = await crossingOrder(chain, i, client.credentials.apiKey);
        const created = await createLimitOrder(client, order.body, 90_000);
        orders.push({ order, id: created.id, client });
      }
      const dcaMaker = makers[3]!.connect(provider);
      const strategy = await createStrategy(
        clientB,
        await signedStrategyBody(clientB, chain, {
          maker: dcaMaker,
          tokenIn: weth,
          tokenOut: usdc,
          totalAmount: 0.2,
          iterations: 2,
          frequency: 5,
        }),
      );

      // Keeper 0 dies mid-run, without a word, and comes back: once the keepers have taken up the orders.
      await pollUntil(
        'a keeper taking up an order',
        () => Promise.all(orders.map(async ({ id, client }) => (await getLimitOrder(client, id)).status)),
        (statuses) => statuses.some((status) => status !== 'pending'),
        { timeoutMs: 60_000, intervalMs: 100 },
      );
      expect((await keepers[0]!.kill('SIGKILL')).signal).toBe('SIGKILL');
      const restarted = startKeeper(0);
      await restarted.waitFor(/keeper: \S+ \(admin http:\/\/\S+\)/, 120_000);

      for (const { order, id, client } of orders) await expectCrossingOrderExecuted(client, chain, order, id);
      const finished = await pollUntil(
        'the strategy to finish',
        () => getStrategy(clientB, strategy.id),
        (s) => s.status !== 'active',
        { timeoutMs: 120_000, intervalMs: 500 },
      );
      expect(finished.status).toBe('finished');

      // Exactly once: every OrderExecuted of our OrderExecutor names a distinct order; 4 limit orders, 2 iterations.
      const executor = new Contract(
        chain.contracts.orderExecutor,
        loadArtifact('OrderExecutor').abi,
        provider,
      );
      const events = await executor.queryFilter(executor.filters.OrderExecuted!(), 0, 'latest');
      const ids = events.map((e) => e.topics[1]);
      expect(ids).toHaveLength(6);
      expect(new Set(ids).size).toBe(6);
      // Sent only by the keepers' own keystore executors.
      const senders = new Set(
        await Promise.all(events.map(async (e) => (await provider.getTransaction(e.transactionHash))!.from)),
      );
      for (const sender of senders) expect(keeperWallets.flat().map((w) => w.address)).toContain(sender);
    });

    it('after the handover a new executor waits the timelock, and the guardian revokes one at once', async () => {
      const deploy = command('contracts:deploy');
      const newcomer = randomWallet().address;
      const widened = { ...deployEnv, EXECUTORS: `${deployEnv.EXECUTORS},${newcomer}` };
      const executor = new Contract(
        chain.contracts.orderExecutor,
        loadArtifact('OrderExecutor').abi,
        provider,
      );
      const timelock = (await executor.getFunction('owner')()) as string;
      const nonce = await provider.getTransactionCount(deployer.address);

      // The multisig owns the timelock: the deployer can only print the call for it.
      const printed = await runCommand(deploy, widened);
      expectSuccess(printed);
      expect(printed.output).toContain(
        `OrderExecutor.setExecutor(${newcomer}): for the owner to schedule in TimelockController ${timelock}: ` +
          `target ${chain.contracts.orderExecutor} data ${executor.interface.encodeFunctionData('setExecutor', [newcomer, true])}`,
      );
      expect(printed.output).toContain('nothing sent');
      expect(await provider.getTransactionCount(deployer.address)).toBe(nonce);
      expect(await executor.getFunction('isExecutor')(newcomer)).toBe(false);

      // The owner schedules it; it applies only after the delay.
      const multisig = new Wallet(ownerKey.privateKey, provider);
      await rpc('anvil_setBalance', [multisig.address, `0x${parseEther('10').toString(16)}`]);
      const lock = new Contract(timelock, loadArtifact('TimelockController').abi, multisig);
      const call = [
        chain.contracts.orderExecutor,
        0,
        executor.interface.encodeFunctionData('setExecutor', [newcomer, true]),
        ZeroHash,
        ZeroHash,
      ] as const;
      await mined(lock.getFunction('schedule')(...call, 172_800));
      await expect(lock.getFunction('execute').staticCall(...call)).rejects.toThrow();
      await expect(
        executor.connect(multisig).getFunction('setExecutor').staticCall(newcomer, true),
      ).rejects.toThrow();
      await rpc('evm_increaseTime', [172_800]);
      await rpc('evm_mine');
      await mined(lock.getFunction('execute')(...call));
      expect(await executor.getFunction('isExecutor')(newcomer)).toBe(true);
      const settled = await runCommand(deploy, widened);
      expectSuccess(settled);
      expect(settled.output).toContain('nothing sent: chain 1 is deployed and wired already');

      // The guardian (the same multisig) cuts an executor off at once, without the timelock.
      await mined(executor.connect(multisig).getFunction('setExecutor')(newcomer, false));
      expect(await executor.getFunction('isExecutor')(newcomer)).toBe(false);
    });

    it('with --releaser on a chain with a SpokePool it deploys the bridges too, the lock bridge owned by --owner', async () => {
      const bridgeDeployer = randomWallet();
      const releaser = randomWallet().address;
      const usdc = world.tokens.find((t) => t.symbol === 'USDC')!;
      const weth = world.tokens.find((t) => t.symbol === 'WETH')!;
      await rpc('anvil_setBalance', [bridgeDeployer.address, `0x${parseEther('100').toString(16)}`]);
      const venuesFile = path.join(dir, 'venues-bridges.json');
      writeFileSync(venuesFile, JSON.stringify({ ...venuesOf(world), spokePool: world.contracts.spokePool }));
      const out = path.join(dir, 'bridges', 'chains.json');
      // A release limit without the bridges is refused before anything is sent.
      const refused = await runCommand(
        `npm run contracts:deploy -- --rpc-url "$RPC_URL" --out "${out}" --venues "${venuesFile}" ` +
          `--token-list "$TOKEN_LIST" --owner "$OWNER" --release-limit ${usdc.address}=1`,
        { ...deployEnv, DEPLOYER_KEYSTORE_FILE: '', DEPLOYER_PRIVATE_KEY: bridgeDeployer.privateKey },
      );
      expect(refused.code).toBe(1);
      expect(refused.output).toContain(
        'contracts:deploy failed: --release-limit sets the LockReleaseBridge: it needs --releaser and a chain with a SpokePool',
      );
      expect(await provider.getTransactionCount(bridgeDeployer.address)).toBe(0);
      const run = await runCommand(
        `npm run contracts:deploy -- --rpc-url "$RPC_URL" --out "${out}" --venues "${venuesFile}" ` +
          `--token-list "$TOKEN_LIST" --owner "$OWNER" --releaser ${releaser} --timelock-delay 3600 ` +
          `--release-limit ${usdc.address}=250000.5 --release-limit ${weth.address}=100`,
        { ...deployEnv, DEPLOYER_KEYSTORE_FILE: '', DEPLOYER_PRIVATE_KEY: bridgeDeployer.privateKey },
      );
      expectSuccess(run);
      expect(run.output).not.toContain(bridgeDeployer.privateKey.slice(2));
      const entry = loadConfig({ CHAINS_FILE: out }).chains[0]!;
      expect(entry.crossChainSource).toBe(true);
      const { lockReleaseBridge, crossChainEntry, spokePool } = entry.contracts!;
      expect(spokePool).toBe(world.contracts.spokePool);
      const bridge = new Contract(lockReleaseBridge!, loadArtifact('LockReleaseBridge').abi, provider);
      expect(await bridge.getFunction('owner')()).toBe(getAddress(owner));
      expect(await bridge.getFunction('releaser')()).toBe(getAddress(releaser));
      expect(await bridge.getFunction('feeTaker')()).toBe(crossChainEntry);
      // Whole tokens on the command line, base units on-chain (USDC's 6 decimals, WETH's 18); others stay unset.
      expect(await bridge.getFunction('releaseLimit')(usdc.address)).toBe(250_000_500_000n);
      expect(await bridge.getFunction('releaseLimit')(weth.address)).toBe(parseEther('100'));
      const other = world.tokens.find((t) => t.symbol !== 'USDC' && t.symbol !== 'WETH')!;
      expect(await bridge.getFunction('releaseLimit')(other.address)).toBe(0n);
      const entryContract = new Contract(crossChainEntry!, loadArtifact('CrossChainEntry').abi, provider);
      expect(await entryContract.getFunction('lockReleaseBridge')()).toBe(lockReleaseBridge);
      const executor = new Contract(
        entry.contracts!.orderExecutor,
        loadArtifact('OrderExecutor').abi,
        provider,
      );
      const lock = new Contract(
        (await executor.getFunction('owner')()) as string,
        loadArtifact('TimelockController').abi,
        provider,
      );
      expect(await lock.getFunction('getMinDelay')()).toBe(3600n);
    });
  },
);
