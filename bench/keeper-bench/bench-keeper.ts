import { Writable } from 'node:stream';
import type { MetricValue } from 'prom-client';
import { devnetKeys } from '../../devnet/keys';
import { buildKeeper, type KeeperInstance } from '../../keeper/build-keeper';
import type { AppConfig } from '../../shared/config/config-schema';
import { createLogger } from '../../shared/log/create-logger';
import type { RunningService } from '../../test/helpers/service-harness';

export interface BenchKeeper {
  keeper: KeeperInstance;
  /** Warning and error lines the keeper logged: message → count. */
  problems(): Record<string, number>;
  /** Counter values of the keeper's registry whose names are listed (labels kept, chain id dropped). */
  counters(names: readonly string[]): Promise<Record<string, number>>;
  /**
   * Seconds and calls so far of the keeper's RPC requests by method and of its tick stages by stage (sums of the
   * tas_keeper_rpc_duration_seconds and tas_keeper_tick_duration_seconds histograms).
   */
  durations(): Promise<Map<string, { seconds: number; count: number }>>;
  stop(): Promise<void>;
}

const DURATION_HISTOGRAMS: Record<string, string> = {
  tas_keeper_rpc_duration_seconds: 'method',
  tas_keeper_tick_duration_seconds: 'stage',
};

/**
 * A keeper on the service's store, built as the service harness builds its own (same config, the devnet's
 * executor keys), with two differences the bench needs: its warnings and errors are collected instead of being
 * silenced, and its chain RPC may be pointed at another URL (a proxy in front of the devnet).
 */
export async function startBenchKeeper(
  service: RunningService,
  opts: { executorIndexes: number[]; rpcUrl?: string },
): Promise<BenchKeeper> {
  const problems: Record<string, number> = {};
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.trim()) continue;
        try {
          const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
          const key = `${entry.level === 40 ? 'warn' : 'error'}: ${entry.msg ?? ''}${entry.err?.message ? ` (${entry.err.message.slice(0, 120)})` : ''}`;
          problems[key] = (problems[key] ?? 0) + 1;
        } catch {
          problems[line.slice(0, 120)] = (problems[line.slice(0, 120)] ?? 0) + 1;
        }
      }
      done();
    },
  });
  const config: AppConfig = opts.rpcUrl
    ? {
        ...service.config,
        chains: service.config.chains.map((c) =>
          c.chainId === service.manifest.chainId ? { ...c, rpcUrls: [opts.rpcUrl!] } : c,
        ),
      }
    : service.config;
  const executors = devnetKeys(Math.max(...opts.executorIndexes) + 1).executors;
  const keeper = await buildKeeper(config, {
    store: service.api.store,
    log: createLogger('warn', 'keeper', sink),
    executorKeys: opts.executorIndexes.map((i) => executors[i]!.privateKey),
  });
  await keeper.start();
  return {
    keeper,
    problems: () => ({ ...problems }),
    async counters(names) {
      const out: Record<string, number> = {};
      for (const metric of await keeper.metrics.registry.getMetricsAsJSON()) {
        if (!names.includes(metric.name)) continue;
        for (const v of metric.values) {
          const labels = Object.entries(v.labels)
            .filter(([k]) => !['chain_id', 'chainId', 'wallet', 'address'].includes(k))
            .map(([k, x]) => `${k}=${String(x)}`)
            .join(',');
          const key = labels ? `${metric.name}{${labels}}` : metric.name;
          out[key] = (out[key] ?? 0) + v.value;
        }
      }
      return out;
    },
    async durations() {
      const out = new Map<string, { seconds: number; count: number }>();
      for (const metric of await keeper.metrics.registry.getMetricsAsJSON()) {
        const label = DURATION_HISTOGRAMS[metric.name];
        if (!label) continue;
        for (const v of metric.values as Array<MetricValue<string> & { metricName?: string }>) {
          const name = v.metricName ?? '';
          const part = name.endsWith('_sum') ? 'seconds' : name.endsWith('_count') ? 'count' : '';
          if (!part) continue;
          const key = `${label === 'method' ? 'rpc' : 'tick stage'} ${String(v.labels[label])}`;
          const entry = out.get(key) ?? { seconds: 0, count: 0 };
          entry[part] += v.value;
          out.set(key, entry);
        }
      }
      return out;
    },
    stop: () => keeper.stop(),
  };
}
