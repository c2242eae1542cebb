import { Interface, MaxUint256, ZeroAddress, type JsonRpcProvider, type Wallet } from 'ethers';
import { loadArtifact } from '../../contracts-abi/artifacts';
import { DEFAULT_PROTOCOL_FEE_PIPS } from '../../shared/domain/protocol-fee';
import { TEST_TOKEN_ABI, WETH_ABI } from './abis';
import { bridgeInventory } from './bridge-inventory';
import { supportsCancun } from './cancun';
import { loadNpmArtifact } from './npm-artifacts';
import { TxQueue, type MiningControls } from './tx-queue';
import type { WorldSpec } from './world-spec';

/** The bridge contracts of one chain, as the manifest lists them. */
export interface BridgeContracts {
  /** The Across SpokePool's ERC1967 proxy (the address everyone calls). */
  spokePool: string;
  crossChainEntry: string;
  lockReleaseBridge: string;
  /** Owner of the SpokePool: root bundles are proposed there by the bridge admin and relayed after a challenge. */
  rootBundleAdmin: string;
}

export interface BridgeContractsOptions {
  /** Wrapped native token (WETH9-compatible) of the chain. */
  weth: string;
  /** Proposer of the SpokePool's root bundles and releaser of the LockReleaseBridge (the keeper's hot key). */
  bridgeAdmin: string;
  /**
   * Owner of the LockReleaseBridge (rotates the releaser, sets release limits, cancels delayed releases) and of the
   * RootBundleAdmin (rotates the proposer, disputes root bundles): the account that signs the queue's transactions,
   * which sets the bridges up.
   */
  bridgeOwner: string;
  /** Receives CrossChainEntry's protocol fee. */
  protocolFeeRecipient: string;
  /** CrossChainEntry's minimum protocol fee in pips; default DEFAULT_PROTOCOL_FEE_PIPS (the API's default). */
  protocolFeePips?: number;
}

/** A lock waits this long for the releaser's acceptance before its depositor may take it back. */
export const DEVNET_LOCK_TIMEOUT_SECONDS = 1800;
/** A release beyond a token's hourly limit waits this long, for the owner to cancel it. */
export const DEVNET_RELEASE_DELAY_SECONDS = 600;
/**
 * A proposed root bundle waits this long for a dispute before it reaches the SpokePool. None on the devnet: its
 * chains mine on demand, and refunds and repayments come at once; a live chain's deployment sets hours.
 */
export const DEVNET_ROOT_BUNDLE_LIVENESS_SECONDS = 0;

/** Quote timestamps may be this old at deposit time (Across's production value). */
export const DEPOSIT_QUOTE_TIME_BUFFER = 3600;
/** Fill deadlines may lie at most this far after the deposit. */
export const FILL_DEADLINE_BUFFER = 86_400;

// The proxy's constructor runs initialize(): EIP-712 domain, owner, admin and recipient slots.
const PROXY_GAS = 1_500_000n;
const OWNERSHIP_GAS = 100_000n;
const MINT_GAS = 120_000n;
const APPROVE_GAS = 80_000n;
const TRANSFER_GAS = 80_000n;
const DEPOSIT_GAS = 80_000n;
/** Native coins a seeding wallet keeps for gas on top of what it wraps. */
const GAS_RESERVE = 10n * 10n ** 18n;

/**
 * Whether the chain can run the bridges: the published SpokePool build uses Cancun's MCOPY, so a chain without
 * Cancun (ganache) gets no bridges.
 */
export function supportsBridges(provider: JsonRpcProvider): Promise<boolean> {
  return supportsCancun(provider);
}

/**
 * Queues the intent bridge and the lock-and-release bridge on the queue's chain: the Across Ethereum_SpokePool
 * implementation (no V5 gateway) behind an ERC1967Proxy initialized in its constructor, ownership handed to our
 * RootBundleAdmin (the SpokePool's admin functions are onlyOwner there; the bridge admin proposes root bundles to
 * it), our LockReleaseBridge owned by the bridge owner and released by the bridge admin, and our CrossChainEntry in
 * front of both (the bridge's fee taker).
 */
export function queueBridgeContracts(queue: TxQueue, opts: BridgeContractsOptions): BridgeContracts {
  const spokeArtifact = loadNpmArtifact('Ethereum_SpokePool');
  const implementation = queue.deploy('Ethereum_SpokePool (implementation)', spokeArtifact, [
    opts.weth,
    DEPOSIT_QUOTE_TIME_BUFFER,
    FILL_DEADLINE_BUFFER,
    ZeroAddress,
  ]);
  // initialize(initialDepositId, withdrawalRecipient): the deployer becomes owner (msg.sender of the proxy's
  // constructor) and passes ownership on below; the admin also receives any amountToReturn of a refund leaf.
  const initialize = new Interface(spokeArtifact.abi).encodeFunctionData('initialize', [0, opts.bridgeAdmin]);
  const spokePool = queue.deploy(
    'ERC1967Proxy (SpokePool)',
    loadNpmArtifact('ERC1967Proxy'),
    [implementation, initialize],
    PROXY_GAS,
  );
  // The SpokePool's admin is a contract, not a key: the bridge admin only proposes root bundles there, the owner
  // can dispute them and keeps the pool's other admin functions.
  const rootBundleAdmin = queue.deploy('RootBundleAdmin', loadArtifact('RootBundleAdmin'), [
    opts.bridgeOwner,
    spokePool,
    opts.bridgeAdmin,
    DEVNET_ROOT_BUNDLE_LIVENESS_SECONDS,
  ]);
  queue.call(
    'SpokePool.transferOwnership(RootBundleAdmin)',
    spokePool,
    spokeArtifact.abi,
    'transferOwnership',
    [rootBundleAdmin],
    OWNERSHIP_GAS,
  );
  const bridgeArtifact = loadArtifact('LockReleaseBridge');
  const lockReleaseBridge = queue.deploy('LockReleaseBridge', bridgeArtifact, [
    opts.bridgeOwner,
    opts.bridgeAdmin,
    opts.weth,
    DEVNET_LOCK_TIMEOUT_SECONDS,
    DEVNET_RELEASE_DELAY_SECONDS,
  ]);
  const crossChainEntry = queue.deploy('CrossChainEntry', loadArtifact('CrossChainEntry'), [
    spokePool,
    lockReleaseBridge,
    opts.weth,
    opts.protocolFeeRecipient,
    opts.protocolFeePips ?? DEFAULT_PROTOCOL_FEE_PIPS,
  ]);
  // Only locks made through the entry paid the service's fees; the keeper releases no other lock of a stranger.
  queue.call(
    'LockReleaseBridge.setFeeTaker(CrossChainEntry)',
    lockReleaseBridge,
    bridgeArtifact.abi,
    'setFeeTaker',
    [crossChainEntry],
    OWNERSHIP_GAS,
  );
  return { spokePool, crossChainEntry, lockReleaseBridge, rootBundleAdmin };
}

/** Sets each token's hourly release limit on the LockReleaseBridge (the queue's signer owns it). */
export function queueReleaseLimits(
  queue: TxQueue,
  lockReleaseBridge: string,
  limits: ReadonlyArray<{ token: string; limit: bigint }>,
): void {
  const bridgeAbi = loadArtifact('LockReleaseBridge').abi;
  for (const { token, limit } of limits) {
    queue.call(
      `LockReleaseBridge.setReleaseLimit(${token})`,
      lockReleaseBridge,
      bridgeAbi,
      'setReleaseLimit',
      [token, limit],
      OWNERSHIP_GAS,
    );
  }
}

/**
 * Mints the TestTokens of the bridge inventory to the relayer and the LockReleaseBridge (the wrapped native aside),
 * and sets each inventory token's hourly release limit on the bridge (the queue's signer owns it).
 */
export function queueBridgeTokenSupply(
  queue: TxQueue,
  spec: WorldSpec,
  addressOf: (symbol: string) => string,
  to: { relayer: string; lockReleaseBridge: string; weth: string },
): void {
  queueReleaseLimits(
    queue,
    to.lockReleaseBridge,
    bridgeInventory(spec).map((token) => ({
      token: token.wrapped ? to.weth : addressOf(token.symbol),
      limit: token.releaseLimit,
    })),
  );
  for (const token of bridgeInventory(spec).filter((t) => !t.wrapped)) {
    queue.call(
      `${token.symbol}.mint(relayer)`,
      addressOf(token.symbol),
      TEST_TOKEN_ABI,
      'mint',
      [to.relayer, token.relayer],
      MINT_GAS,
    );
    queue.call(
      `${token.symbol}.mint(LockReleaseBridge)`,
      addressOf(token.symbol),
      TEST_TOKEN_ABI,
      'mint',
      [to.lockReleaseBridge, token.bridge],
      MINT_GAS,
    );
  }
}

export interface BridgeWalletsOptions {
  provider: JsonRpcProvider;
  mining?: MiningControls;
  relayer: Wallet;
  bridgeAdmin: Wallet;
  weth: string;
  contracts: BridgeContracts;
  /** Native coins the relayer wraps into its inventory. */
  relayerWraps: bigint;
  /** Tokens the relayer approves the SpokePool for (without limit), so a fill needs no approval first. */
  relayerTokens: readonly string[];
  /** Native coins the admin wraps before its transfers. */
  adminWraps: bigint;
  /** What the admin sends the LockReleaseBridge out of its own balance. */
  adminTransfers: ReadonlyArray<{ token: string; amount: bigint }>;
}

async function checkBalance(provider: JsonRpcProvider, wallet: Wallet, wraps: bigint, role: string) {
  const balance = await provider.getBalance(wallet.address);
  if (balance < wraps + GAS_RESERVE)
    throw new Error(
      `the ${role} ${wallet.address} holds ${balance} wei; seeding the bridges needs ${wraps + GAS_RESERVE}`,
    );
}

/**
 * The transactions only the relayer and the bridge admin can sign, sent once the tokens and bridges exist: the
 * relayer wraps its native inventory and approves the SpokePool, the admin funds the LockReleaseBridge. The two
 * streams run side by side.
 */
export async function seedBridgeWallets(opts: BridgeWalletsOptions): Promise<void> {
  const relayer = opts.relayer.connect(opts.provider);
  const admin = opts.bridgeAdmin.connect(opts.provider);
  await Promise.all([
    checkBalance(opts.provider, relayer, opts.relayerWraps, 'relayer'),
    checkBalance(opts.provider, admin, opts.adminWraps, 'bridge admin'),
  ]);
  const [relayerQueue, adminQueue] = await Promise.all([
    TxQueue.create(opts.provider, relayer, { mining: opts.mining }),
    TxQueue.create(opts.provider, admin, { mining: opts.mining }),
  ]);
  if (opts.relayerWraps > 0n)
    relayerQueue.call('relayer wraps', opts.weth, WETH_ABI, 'deposit', [], DEPOSIT_GAS, opts.relayerWraps);
  for (const token of opts.relayerTokens) {
    relayerQueue.call(
      `relayer approves the SpokePool for ${token}`,
      token,
      WETH_ABI,
      'approve',
      [opts.contracts.spokePool, MaxUint256],
      APPROVE_GAS,
    );
  }
  if (opts.adminWraps > 0n)
    adminQueue.call('bridge admin wraps', opts.weth, WETH_ABI, 'deposit', [], DEPOSIT_GAS, opts.adminWraps);
  for (const { token, amount } of opts.adminTransfers) {
    adminQueue.call(
      `bridge admin funds the LockReleaseBridge with ${token}`,
      token,
      WETH_ABI,
      'transfer',
      [opts.contracts.lockReleaseBridge, amount],
      TRANSFER_GAS,
    );
  }
  // Both are awaited before failing: neither queue is left sending to a chain a caller stops on the error.
  const results = await Promise.allSettled([relayerQueue.flush(), adminQueue.flush()]);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * Deploys the bridges alone with their own queue, e.g. on a forked chain after our other contracts; deployWorld
 * queues the same transactions in its one stream.
 */
export async function deployBridgeContracts(
  opts: BridgeContractsOptions & { provider: JsonRpcProvider; deployer: Wallet; mining?: MiningControls },
): Promise<BridgeContracts> {
  const queue = await TxQueue.create(opts.provider, opts.deployer.connect(opts.provider), {
    mining: opts.mining,
  });
  const contracts = queueBridgeContracts(queue, opts);
  await queue.flush();
  return contracts;
}

export interface AddBridgesOptions {
  provider: JsonRpcProvider;
  mining?: MiningControls;
  spec: WorldSpec;
  /** Token address by symbol, of the world already deployed. */
  addressOf: (symbol: string) => string;
  deployer: Wallet;
  relayer: Wallet;
  bridgeAdmin: Wallet;
  weth: string;
  protocolFeeRecipient: string;
}

/**
 * Adds the bridges, the relayer's inventory and the LockReleaseBridge's liquidity to a fixture world deployed before
 * the bridges existed (a data folder of an earlier version), as deployWorld would have.
 */
export async function addBridgesToWorld(opts: AddBridgesOptions): Promise<BridgeContracts> {
  const queue = await TxQueue.create(opts.provider, opts.deployer.connect(opts.provider), {
    mining: opts.mining,
  });
  const contracts = queueBridgeContracts(queue, {
    weth: opts.weth,
    bridgeAdmin: opts.bridgeAdmin.address,
    bridgeOwner: opts.deployer.address,
    protocolFeeRecipient: opts.protocolFeeRecipient,
  });
  queueBridgeTokenSupply(queue, opts.spec, opts.addressOf, {
    relayer: opts.relayer.address,
    lockReleaseBridge: contracts.lockReleaseBridge,
    weth: opts.weth,
  });
  await queue.flush();
  await seedBridgeWallets(worldBridgeSeeding(opts, contracts));
  return contracts;
}

/** The relayer's and the admin's part of a fixture world's bridges: both wrap native coins of their own. */
export function worldBridgeSeeding(
  opts: Omit<AddBridgesOptions, 'deployer' | 'protocolFeeRecipient'>,
  contracts: BridgeContracts,
): BridgeWalletsOptions {
  const inventory = bridgeInventory(opts.spec);
  const wrapped = inventory.find((t) => t.wrapped)!;
  return {
    provider: opts.provider,
    mining: opts.mining,
    relayer: opts.relayer,
    bridgeAdmin: opts.bridgeAdmin,
    weth: opts.weth,
    contracts,
    relayerWraps: wrapped.relayer,
    relayerTokens: inventory.map((t) => opts.addressOf(t.symbol)),
    adminWraps: wrapped.bridge,
    adminTransfers: [{ token: opts.weth, amount: wrapped.bridge }],
  };
}
