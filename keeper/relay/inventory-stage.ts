import { MaxUint256 } from 'ethers';
import { erc20Allowance, erc20Balance, readView } from '../../shared/bridges/chain-reads';
import { lockReleaseBridgeInterface } from '../../shared/bridges/contracts';
import type { TransferToken } from '../../shared/bridges/cross-chain-provider';
import { listedTransferToken, rescale, type TransferPricing } from '../../shared/bridges/transfer-pricing';
import type { ChainClient } from '../../shared/chain/chain-client';
import { erc20Interface } from '../../shared/chain/contract-interfaces';
import type { PriceListToken } from '../../shared/routing/prices/usd-prices';
import type { TickStage } from '../chain-keeper';
import type { InventoryBook, RebalanceMove, Watermarks } from './inventory-book';
import { clientOf, type RelayContext } from './relay-context';
import type { RelaySender } from './relay-sender';

/** The symbols the relayer keeps inventory of, beside the chain's wrapped native. */
export const INVENTORY_SYMBOLS: readonly string[] = ['USDC', 'USDT', 'DAI', 'WETH'];

export interface InventoryStageDeps extends RelayContext {
  client: ChainClient;
  /** The relayer on this chain. */
  sender: RelaySender;
  wrappedNative: string;
  /** The chain's listed tokens. */
  tokens: () => readonly PriceListToken[];
  /** Names an asset the same on every chain (TransferPricing.assetOf). */
  pricing: Pick<TransferPricing, 'assetOf'>;
  book: InventoryBook;
  /** This chain's LockReleaseBridge; absent: nothing is rebalanced from here. */
  bridge?: string;
  /** Another chain's LockReleaseBridge (the keeper releases there); undefined: no lock-and-release there. */
  bridgeOf(chainId: number): string | undefined;
  /** The listed token of an asset on another chain, for the lock's output. */
  tokenOf(chainId: number, asset: string): PriceListToken | undefined;
  watermarks: Watermarks;
  readEveryMs?: number;
  /** After a move towards a chain, no other move of that asset to it for this long. */
  cooldownMs?: number;
}

/**
 * The relayer's inventory on one chain: reads its balance of each inventory token now and then (the
 * tas_keeper_relayer_inventory gauge and the process's InventoryBook), and rebalances: when this chain holds much
 * more of an asset than the average and another chain runs low, the relayer locks the difference in this chain's
 * LockReleaseBridge towards itself on the other chain (released there by the bridge admin like any lock). One move
 * per round, none towards a chain that still has a move of the asset on its way.
 */
export class InventoryStage implements TickStage {
  readonly name = 'relay_inventory' as const;
  private last = 0;
  private readonly cooldown = new Map<string, number>();

  constructor(private readonly deps: InventoryStageDeps) {}

  async run(_head: number, now: number): Promise<void> {
    if (now - this.last < (this.deps.readEveryMs ?? 10_000)) return;
    this.last = now;
    const assets = await this.read(now);
    if (!this.deps.bridge) return;
    for (const asset of assets) {
      const move = this.deps.book.moveFrom(this.deps.chainId, asset, this.deps.watermarks, now);
      if (move && (await this.rebalance(move, now))) return;
    }
  }

  private inventoryTokens(): PriceListToken[] {
    const wrapped = this.deps.wrappedNative.toLowerCase();
    return this.deps
      .tokens()
      .filter(
        (t) => t.address.toLowerCase() === wrapped || INVENTORY_SYMBOLS.includes(t.symbol.toUpperCase()),
      );
  }

  private transferToken(t: PriceListToken): TransferToken {
    return listedTransferToken(this.deps.chainId, t);
  }

  private async read(now: number): Promise<string[]> {
    const { deps } = this;
    const assets: string[] = [];
    for (const token of this.inventoryTokens()) {
      const units = await erc20Balance(deps.client, token.address, deps.sender.address);
      deps.metrics.setRelayerInventory(
        deps.chainId,
        token.symbol,
        deps.sender.address,
        units,
        token.decimals,
      );
      const asset = deps.pricing.assetOf(this.transferToken(token));
      deps.book.record(asset, {
        chainId: deps.chainId,
        token: token.address,
        decimals: token.decimals,
        units,
        readAt: now,
      });
      assets.push(asset);
    }
    return assets;
  }

  private async rebalance(move: RebalanceMove, now: number): Promise<boolean> {
    const { deps } = this;
    const to = move.to.chainId;
    const key = `${move.asset}:${to}`;
    const destinationBridge = deps.bridgeOf(to);
    if ((this.cooldown.get(key) ?? 0) > now || !destinationBridge) return false;
    const output = deps.tokenOf(to, move.asset);
    if (!output) return false;
    // A move past what the destination bridge releases at once this hour would wait its delay: it is cut to fit.
    const limit = await readView<bigint>(
      clientOf(deps.clients, to),
      lockReleaseBridgeInterface(),
      destinationBridge,
      'releasableNow',
      [output.address],
    );
    const wanted = rescale(move.units, move.from.decimals, output.decimals);
    const outputUnits = wanted < limit ? wanted : limit;
    const units = rescale(outputUnits, output.decimals, move.from.decimals);
    if (units === 0n) return false;
    const onItsWay = await deps.transfers.listOpenTo('lock-release', to, deps.sender.address);
    if (onItsWay.some((t) => t.outputToken.toLowerCase() === output.address.toLowerCase())) return false;
    const bridge = deps.bridge!;
    const allowance = await erc20Allowance(deps.client, move.from.token, deps.sender.address, bridge);
    if (allowance < units) {
      const approval = await deps.sender.send(
        { to: move.from.token, data: erc20Interface().encodeFunctionData('approve', [bridge, MaxUint256]) },
        async () => true,
      );
      deps.log.info(
        { token: move.from.token, result: approval.kind },
        'relayer approves the lock-and-release bridge',
      );
      if (approval.kind !== 'sent') return false;
      // Not mined yet (a chain with block times): the lock goes out in a later round.
      const fate = await deps.sender.follow(approval.tx, 0);
      if (fate.kind !== 'mined' || fate.receipt.status !== 1) return true;
    }
    const data = lockReleaseBridgeInterface().encodeFunctionData('lock', [
      deps.sender.address,
      move.from.token,
      units,
      output.address,
      rescale(units, move.from.decimals, output.decimals),
      to,
      deps.sender.address,
    ]);
    const result = await deps.sender.send({ to: bridge, data }, async () => true);
    if (result.kind !== 'sent') {
      deps.log.warn({ asset: move.asset, to, result: result.kind }, 'rebalance not sent');
      return false;
    }
    this.cooldown.set(key, now + (deps.cooldownMs ?? 300_000));
    deps.metrics.relayRebalance(deps.chainId);
    deps.log.info(
      { asset: move.asset, to, units: units.toString(), txHash: result.tx.txHash },
      'relayer inventory rebalanced through the lock-and-release bridge',
    );
    return true;
  }
}
