import type { ReportOrder, SimulationReport } from '../simulator/report/report-types';
import { inTriggerUnits } from '../simulator/scenario/trigger-block';

/**
 * How far past its trigger the path went for each limit order, in percent of the trigger: the keeper fills an order
 * only once its routed output pays (amount + fee) × trigger, so the path must pass the trigger by the pool fee, the
 * execution fee and the price impact first. For filled orders: the path's excess at the block before the fill (what
 * the keeper acted on). For triggered orders left unfilled: the best excess the path ever reached after the trigger.
 */
export interface TriggerMargins {
  /** Excess (percent) at the block before each fill, ascending. */
  beforeFill: number[];
  /** Triggered orders still open at the end, with the best excess the path reached. */
  unfilled: Array<{ id: string; trigger: string; triggeredAtBlock: number; bestExcessPct: number }>;
}

export function triggerMargins(report: SimulationReport): TriggerMargins {
  const paths = new Map(report.markets.map((m) => [`${m.chainId}:${m.pair}`, m.path]));
  const beforeFill: number[] = [];
  const unfilled: TriggerMargins['unfilled'] = [];
  for (const order of report.orders) {
    if (order.kind !== 'limit' || order.trigger === null || order.triggeredAtBlock === null) continue;
    const path = paths.get(`${order.chainId}:${order.pair}`);
    if (!path) continue;
    const excess = excessOf(order, Number(order.trigger));
    if (order.filledAtBlock !== null) {
      // A fill in its trigger's own block (a crash through the trigger) counts at the trigger's block.
      beforeFill.push(excess(path[Math.max(order.triggeredAtBlock, order.filledAtBlock - 1)]!));
    } else if (order.status === 'pending') {
      const after = path.slice(order.triggeredAtBlock).map(excess);
      unfilled.push({
        id: order.id,
        trigger: order.trigger,
        triggeredAtBlock: order.triggeredAtBlock,
        bestExcessPct: Math.max(...after),
      });
    }
  }
  beforeFill.sort((a, b) => a - b);
  return { beforeFill, unfilled };
}

/** The path price (QUOTE per BASE) as percent past the order's trigger (units of `buy` per 1 `sell`). */
function excessOf(order: ReportOrder, trigger: number): (price: number) => number {
  const sellsBase = order.pair.split('/')[0] === order.sell;
  return (price) => (inTriggerUnits(sellsBase, price) / trigger - 1) * 100;
}

export function describeMargins(m: TriggerMargins): string {
  const q = (p: number): string => {
    const v = m.beforeFill[Math.min(m.beforeFill.length - 1, Math.floor((p / 100) * m.beforeFill.length))];
    return v === undefined ? '-' : `${v.toFixed(3)}%`;
  };
  const under = (pct: number) => m.unfilled.filter((u) => u.bestExcessPct < pct).length;
  return (
    `  path past the trigger at the block before each fill: min ${q(0)}, p50 ${q(50)}, max ${q(100)} ` +
    `(${m.beforeFill.length} fills)\n` +
    `  triggered and never filled: ${m.unfilled.length}; the path's best past their trigger: under 0.05% ` +
    `${under(0.05)}, under 0.1% ${under(0.1)}, under the lowest fill's ${q(0)} ${m.beforeFill.length ? under(m.beforeFill[0]!) : 0}` +
    m.unfilled
      .filter((u) => m.beforeFill.length && u.bestExcessPct >= m.beforeFill[0]!)
      .map(
        (u) =>
          `\n    ${u.id} trigger ${u.trigger} from block ${u.triggeredAtBlock}: best ${u.bestExcessPct.toFixed(3)}%`,
      )
      .join('')
  );
}
