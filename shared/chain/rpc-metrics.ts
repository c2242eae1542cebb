import { Counter, Histogram, type Registry } from 'prom-client';

/** How one JSON-RPC request ended: answered (ok), failed (error: network, HTTP or JSON-RPC error), or timed out. */
export type RpcOutcome = 'ok' | 'error' | 'timeout';

/** RPC latencies: a healthy node answers in milliseconds, a struggling one runs into the per-call timeout. */
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * Metrics of the chain clients of one process, on the registry the process serves. The prefix names the process
 * (`tas_api_`, `tas_keeper_`): both may run in one embedded process and register on one registry.
 * Every HTTP request to a node counts once, retries included, so `requests_total` minus calls made shows the
 * retry load.
 */
export class RpcMetrics {
  readonly requests: Counter<'chain_id' | 'method' | 'outcome'>;
  readonly duration: Histogram<'chain_id' | 'method'>;
  readonly failovers: Counter<'chain_id'>;

  constructor(registry: Registry, prefix: string) {
    if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*_$/.test(prefix)) {
      throw new Error(`metric prefix must be a metric name ending in '_', got '${prefix}'`);
    }
    this.requests = new Counter({
      name: `${prefix}rpc_requests_total`,
      help: 'JSON-RPC requests sent to chain nodes (each retry counts), by chain, method and outcome',
      labelNames: ['chain_id', 'method', 'outcome'] as const,
      registers: [registry],
    });
    this.duration = new Histogram({
      name: `${prefix}rpc_duration_seconds`,
      help: 'Time for one JSON-RPC request to a chain node, by chain and method',
      labelNames: ['chain_id', 'method'] as const,
      buckets: DURATION_BUCKETS,
      registers: [registry],
    });
    this.failovers = new Counter({
      name: `${prefix}rpc_failovers_total`,
      help: 'Times a chain client moved to another RPC URL after a failed request, by chain',
      labelNames: ['chain_id'] as const,
      registers: [registry],
    });
  }

  request(chainId: number, method: string, outcome: RpcOutcome, seconds: number): void {
    const chain = String(chainId);
    this.requests.inc({ chain_id: chain, method, outcome });
    this.duration.observe({ chain_id: chain, method }, seconds);
  }

  failover(chainId: number): void {
    this.failovers.inc({ chain_id: String(chainId) });
  }
}
