import type { ChainConfig } from '../config/config-schema';

/** The enabled chains of this deployment, from configuration. */
export class ChainRegistry {
  private readonly byId: ReadonlyMap<number, ChainConfig>;

  constructor(chains: readonly ChainConfig[]) {
    this.byId = new Map(chains.map((c) => [c.chainId, c]));
  }

  /** Ascending, as `GET /chains` reports them. */
  ids(): number[] {
    return [...this.byId.keys()].sort((a, b) => a - b);
  }

  get(chainId: number): ChainConfig | undefined {
    return this.byId.get(chainId);
  }

  isEnabled(chainId: number): boolean {
    return this.byId.has(chainId);
  }

  all(): ChainConfig[] {
    return this.ids().map((id) => this.byId.get(id)!);
  }
}
