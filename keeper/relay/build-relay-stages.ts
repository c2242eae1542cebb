import { parseUnits, Wallet } from 'ethers';
import { listedTransferToken, type TransferPricing } from '../../shared/bridges/transfer-pricing';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { ChainConfig, CrossChainConfig, KeeperConfig } from '../../shared/config/config-schema';
import type { Logger } from '../../shared/log/create-logger';
import type { PriceListToken, Prices } from '../../shared/routing/prices/usd-prices';
import type { Store } from '../../shared/store/store';
import type { TickStage } from '../chain-keeper';
import type { KeeperMetrics } from '../keeper-metrics';
import { PublicSendPolicy } from '../outbox/public-send-policy';
import { confirmationDepthOf } from '../settle/confirmation-depths';
import { DeliveryRecheck } from './delivery-recheck';
import type { TransferProvider } from '../../shared/store/repositories/transfer-rows';
import type { SendPolicy } from '../outbox/send-policy';
import { ExecutorWallet } from '../outbox/executor-wallet';
import { FeePolicy } from '../outbox/fee-policy';
import { DepositIndexStage, type IndexedContract } from './deposit-index-stage';
import { FillCaps } from './fill-caps';
import { FillStage } from './fill-stage';
import { FillValuation } from './fill-valuation';
import { InventoryBook, type Watermarks } from './inventory-book';
import { InventoryStage } from './inventory-stage';
import { ReferencePrices } from './reference-prices';
import type { RelayClients, RelayContext } from './relay-context';
import { RelaySender } from './relay-sender';
import { ReleaseStage } from './release-stage';
import { SettleStage } from './settle-stage';

export interface RelayWiring {
  keeper: KeeperConfig;
  crossChain: CrossChainConfig;
  /** Every chain the keeper serves. */
  chains: readonly ChainConfig[];
  clients: RelayClients;
  store: Pick<Store, 'transfers' | 'rootBundles'>;
  pricing: TransferPricing;
  prices: Pick<Prices, 'token'>;
  tokensOf(chainId: number): readonly PriceListToken[];
  /** Each chain's send policy (outbox/send-policy-of-chain.ts): the relayer and bridge admin send through it. */
  sendPolicies: ReadonlyMap<number, SendPolicy>;
  metrics: KeeperMetrics;
  owner: string;
  log: Logger;
  now: () => number;
}

/** Rebalancing: below half the average a chain runs low; above one and a half times it has to spare. */
export const DEFAULT_WATERMARKS: Watermarks = { lowPercent: 50, highPercent: 150 };

/** A wallet from a configured key; the error never carries the key. */
function walletOf(key: string, role: string): Wallet | undefined {
  if (!key) return undefined;
  try {
    return new Wallet(key);
  } catch {
    throw new Error(`the ${role} private key is not a valid secp256k1 private key`);
  }
}

/**
 * The relay stages of each chain, built from the configuration: deposit indexing where the chain has a SpokePool or
 * a LockReleaseBridge; with the relayer key, fills (SpokePool) and inventory; with the bridge admin key, settlement
 * (SpokePool) and releases (LockReleaseBridge). The relayer and the bridge admin each have one wallet per chain,
 * shared by that chain's stages (which run one after another), never the executors'.
 */
export class RelayStages {
  private readonly relayer: Wallet | undefined;
  private readonly admin: Wallet | undefined;
  private readonly book = new InventoryBook();
  private readonly valuation: FillValuation;
  /** One per keeper process: the hourly cap is read from the store, so keepers sharing it share the cap. */
  private readonly caps: FillCaps;
  private readonly senders = new Map<string, RelaySender>();

  constructor(private readonly w: RelayWiring) {
    this.relayer = walletOf(w.keeper.relayerPrivateKey, 'relayer');
    this.admin = walletOf(w.keeper.bridgeAdminPrivateKey, 'bridge admin');
    const chainOf = (chainId: number) => w.chains.find((c) => c.chainId === chainId);
    const reference = new ReferencePrices({
      clients: w.clients,
      orderExecutorOf: (chainId) => chainOf(chainId)?.contracts?.orderExecutor,
      pricing: w.pricing,
      now: w.now,
    });
    this.valuation = new FillValuation(
      w.pricing,
      (chainId, address) => w.prices.token(chainId, address),
      reference,
      { maxDeviationBps: w.crossChain.relayerMaxPriceDeviationBps },
    );
    this.caps = new FillCaps({
      transfers: w.store.transfers,
      limits: {
        maxFillUsd: w.crossChain.relayerMaxFillUsd,
        maxHourlyUsd: w.crossChain.relayerMaxHourlyUsd,
        inventoryFloorUsd: (chainId) =>
          chainOf(chainId)?.relayerInventoryFloorUsd ?? w.crossChain.relayerInventoryFloorUsd,
      },
      now: w.now,
    });
  }

  /** The relayer's address, when a relayer key is configured. */
  get relayerAddress(): string | undefined {
    return this.relayer?.address;
  }

  stagesFor(chain: ChainConfig, client: ChainClient): TickStage[] {
    const { w } = this;
    const spokePool = chain.contracts?.spokePool;
    const bridge = chain.contracts?.lockReleaseBridge;
    if (!spokePool && !bridge) return [];
    if (!this.relayer && !this.admin) return [];
    const ctx: RelayContext = {
      chainId: chain.chainId,
      clients: w.clients,
      transfers: w.store.transfers,
      rootBundles: w.store.rootBundles,
      metrics: w.metrics,
      owner: w.owner,
      leaseMs: w.keeper.leaseMs,
      log: w.log.child({ chainId: chain.chainId, stage: 'relay' }),
      now: w.now,
    };
    const contracts: IndexedContract[] = [
      ...(spokePool ? [{ provider: 'intent' as const, address: spokePool }] : []),
      ...(bridge ? [{ provider: 'lock-release' as const, address: bridge }] : []),
    ];
    const stages: TickStage[] = [new DepositIndexStage({ ...ctx, client, contracts })];
    if (spokePool && this.relayer) {
      stages.push(
        new FillStage({
          ...ctx,
          client,
          spokePool,
          sender: this.sender(chain, client, this.relayer),
          recheck: this.recheckOf(chain, client, 'intent'),
          valuation: this.valuation,
          caps: this.caps,
          confirmations: w.crossChain.intentConfirmations,
          minProfitBps: w.crossChain.relayerMinProfitBps,
        }),
      );
    }
    if (bridge && this.admin) {
      stages.push(
        new ReleaseStage({
          ...ctx,
          client,
          bridge,
          sender: this.sender(chain, client, this.admin),
          originSender: (chainId) => this.adminSenderOn(chainId),
          recheck: this.recheckOf(chain, client, 'lock-release'),
          valuation: this.valuation,
          caps: this.caps,
          relayer: this.relayer?.address,
          confirmations: w.crossChain.lockReleaseConfirmations,
          feeBps: w.crossChain.lockReleaseFeeBps,
        }),
      );
    }
    if (spokePool && this.admin && this.relayer) {
      stages.push(
        new SettleStage({
          ...ctx,
          client,
          spokePool,
          rootBundleAdmin: chain.contracts?.rootBundleAdmin,
          sender: this.sender(chain, client, this.admin),
          relayer: this.relayer.address,
          spokePoolOf: (chainId) => w.chains.find((c) => c.chainId === chainId)?.contracts?.spokePool,
          confirmationsOf: (chainId) =>
            confirmationDepthOf(
              chainId,
              w.chains.find((c) => c.chainId === chainId)?.confirmations,
              w.keeper.confirmations,
            ).confirmations,
        }),
      );
    }
    if (this.relayer) {
      stages.push(
        new InventoryStage({
          ...ctx,
          client,
          sender: this.sender(chain, client, this.relayer),
          wrappedNative: chain.wrappedNative,
          tokens: () => w.tokensOf(chain.chainId),
          pricing: w.pricing,
          book: this.book,
          bridge: this.admin ? bridge : undefined,
          bridgeOf: (chainId) => w.chains.find((c) => c.chainId === chainId)?.contracts?.lockReleaseBridge,
          tokenOf: (chainId, asset) => this.tokenOfAsset(chainId, asset),
          watermarks: DEFAULT_WATERMARKS,
        }),
      );
    }
    return stages;
  }

  /** What keeps this chain's done transfers of a provider honest after a reorg of the chain. */
  private recheckOf(chain: ChainConfig, client: ChainClient, provider: TransferProvider): DeliveryRecheck {
    const { w } = this;
    return new DeliveryRecheck({
      chainId: chain.chainId,
      client,
      transfers: w.store.transfers,
      provider,
      metrics: w.metrics,
      owner: w.owner,
      leaseMs: w.keeper.leaseMs,
      recheckBlocks: confirmationDepthOf(chain.chainId, chain.confirmations, w.keeper.confirmations)
        .recheckBlocks,
      log: w.log.child({ chainId: chain.chainId, provider }),
      now: w.now,
    });
  }

  /** The relay's wallets on a chain (the relayer, the bridge admin) made so far: their nonces are checked for gaps. */
  walletsOn(chainId: number): ExecutorWallet[] {
    return [...this.senders.values()].filter((s) => s.client.chainId === chainId).map((s) => s.wallet);
  }

  /** The bridge admin's sender on another chain (it accepts and refunds the locks made there). */
  private adminSenderOn(chainId: number): RelaySender | undefined {
    const chain = this.w.chains.find((c) => c.chainId === chainId);
    const client = this.w.clients.find(chainId);
    if (!chain || !client || !this.admin) return undefined;
    return this.sender(chain, client, this.admin);
  }

  private tokenOfAsset(chainId: number, asset: string): PriceListToken | undefined {
    const chain = this.w.chains.find((c) => c.chainId === chainId);
    if (!chain) return undefined;
    const wrapped = chain.wrappedNative.toLowerCase();
    const candidates = this.w
      .tokensOf(chainId)
      .filter((t) => t.address.toLowerCase() === wrapped || !/^0xe{40}$/i.test(t.address));
    return candidates.find((t) => this.w.pricing.assetOf(listedTransferToken(chainId, t)) === asset);
  }

  private sender(chain: ChainConfig, client: ChainClient, signer: Wallet): RelaySender {
    const key = `${chain.chainId}:${signer.address}`;
    let sender = this.senders.get(key);
    if (!sender) {
      const { w } = this;
      const wallet = new ExecutorWallet(signer, client, {
        // Fills go out back to back; each is followed by its own row.
        maxInFlight: 1_000,
        onResync: (e) => w.metrics.nonceResync(chain.chainId, e.address),
        sendPolicy: w.sendPolicies.get(chain.chainId),
      });
      const fees = new FeePolicy(client, {
        maxFeePerGasCap: parseUnits(String(chain.maxFeePerGasGwei ?? w.keeper.maxFeePerGasGwei), 'gwei'),
      });
      sender = new RelaySender(
        client,
        wallet,
        fees,
        w.sendPolicies.get(chain.chainId) ?? new PublicSendPolicy(client),
        w.keeper.replaceAfterBlocks,
        w.log.child({ chainId: chain.chainId, sender: signer.address }),
      );
      this.senders.set(key, sender);
    }
    return sender;
  }
}
