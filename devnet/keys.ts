import { HDNodeWallet, Mnemonic, Wallet } from 'ethers';

/**
 * DEVNET-ONLY keys. Everything here is derived from the public Hardhat/Foundry test mnemonic, so anyone can
 * spend these accounts on any chain: never send real funds to them and never use them outside local chains.
 */
export const DEVNET_MNEMONIC = 'test test test test test test test test test test test junk';

/** Native coins every devnet key gets in the chain's genesis (in whole coins). */
export const DEVNET_GENESIS_COINS = 10_000_000n;

export const DEFAULT_EXECUTOR_COUNT = 2;

export interface DevnetKeys {
  /** Test accounts for users and tests (the manifest's `accounts`); the service never sends from them. */
  accounts: Wallet[];
  /** Deploys the fixture world and owns our contracts. */
  deployer: Wallet;
  /** Executor wallets of the keeper, registered on the OrderExecutor. */
  executors: Wallet[];
  /**
   * The market mover's account. The issue says the mover trades "with a test account"; it has its own key
   * instead so that moving prices never races a test or a user for the nonce of a manifest account.
   */
  mover: Wallet;
  /** Receives execution fees of orders (OrderExecutor feeCollector); only an address, nobody sends from it. */
  feeCollector: string;
  /** Receives the SwapRouter's protocol fee; only an address. */
  protocolFeeRecipient: string;
  /** The intent bridge's relayer: holds the fill inventory on every chain and approves the SpokePools for it. */
  relayer: Wallet;
  /**
   * The keeper's bridge key: proposer of the SpokePools' root bundles (to each chain's RootBundleAdmin) and the
   * LockReleaseBridges' releaser. The deployer owns both contracts (rotates this key, cancels, disputes).
   */
  bridgeAdmin: Wallet;
}

/** Derivation paths, one account (BIP-44 "account" level) per role so the roles never overlap. */
export const DEVNET_PATHS = {
  account: (i: number) => `m/44'/60'/0'/0/${i}`,
  deployer: `m/44'/60'/1'/0/0`,
  executor: (i: number) => `m/44'/60'/2'/0/${i}`,
  mover: `m/44'/60'/3'/0/0`,
  feeCollector: `m/44'/60'/4'/0/0`,
  protocolFeeRecipient: `m/44'/60'/5'/0/0`,
  relayer: `m/44'/60'/6'/0/0`,
  bridgeAdmin: `m/44'/60'/7'/0/0`,
  simulationMaker: (i: number) => `m/44'/60'/8'/0/${i}`,
} as const;

export function devnetKeys(executorCount: number = DEFAULT_EXECUTOR_COUNT): DevnetKeys {
  // Seed once: deriving every key from the phrase would run the 2048-round PBKDF2 each time.
  const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(DEVNET_MNEMONIC).computeSeed());
  const wallet = (path: string) => new Wallet(root.derivePath(path).privateKey);
  return {
    accounts: [0, 1, 2, 3].map((i) => wallet(DEVNET_PATHS.account(i))),
    deployer: wallet(DEVNET_PATHS.deployer),
    executors: Array.from({ length: executorCount }, (_, i) => wallet(DEVNET_PATHS.executor(i))),
    mover: wallet(DEVNET_PATHS.mover),
    feeCollector: wallet(DEVNET_PATHS.feeCollector).address,
    protocolFeeRecipient: wallet(DEVNET_PATHS.protocolFeeRecipient).address,
    relayer: wallet(DEVNET_PATHS.relayer),
    bridgeAdmin: wallet(DEVNET_PATHS.bridgeAdmin),
  };
}

/** The makers of a simulation run (devnet-only keys, funded by the run itself), one per index. */
export function simulationMakers(count: number): Wallet[] {
  const root = HDNodeWallet.fromSeed(Mnemonic.fromPhrase(DEVNET_MNEMONIC).computeSeed());
  return Array.from(
    { length: count },
    (_, i) => new Wallet(root.derivePath(DEVNET_PATHS.simulationMaker(i)).privateKey),
  );
}

/** The keys every devnet chain funds at genesis: every key that sends transactions (not the fee-receiving addresses). */
export function fundedDevnetWallets(keys: DevnetKeys): Wallet[] {
  return [...keys.accounts, keys.deployer, ...keys.executors, keys.mover, keys.relayer, keys.bridgeAdmin];
}
