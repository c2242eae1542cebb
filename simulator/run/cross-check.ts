import type { SimulationFacts } from '../report/report-types';

/**
 * Where the API and the chain disagree: an order the API reports executed whose transaction the run did not see
 * executing it, an execution the run saw of an order the API does not report executed (except in the last block:
 * the keeper settles a receipt at the next block), or an execution of an order the run never placed.
 */
export function crossCheck(
  facts: Pick<SimulationFacts, 'limitOrders' | 'dca' | 'executions' | 'scenario'>,
): string[] {
  const problems: string[] = [];
  const executed = new Map<string, (typeof facts.executions)[number]>(
    facts.executions.filter((e) => e.executed).map((e) => [`${e.chainId}:${e.onchainId}`, e]),
  );
  const known = new Set<string>();
  const check = (
    what: string,
    chainId: number,
    onchainId: string,
    apiSaysDone: boolean,
    txHash: string,
  ): void => {
    const key = `${chainId}:${onchainId}`;
    known.add(key);
    const seen = executed.get(key);
    if (apiSaysDone && seen?.txHash !== txHash) {
      problems.push(
        `${what}: the API reports it executed in ${txHash || '(no hash)'}, the chain shows ${seen?.txHash ?? 'no execution'}`,
      );
    }
    if (!apiSaysDone && seen && seen.block < facts.scenario.blocks) {
      problems.push(
        `${what}: executed in ${seen.txHash} at block ${seen.block}, the API does not report it executed`,
      );
    }
  };
  for (const order of facts.limitOrders) {
    check(
      `limit order ${order.id}`,
      order.plan.chainId,
      order.onchainId,
      order.status === 'completed',
      order.txHash,
    );
  }
  for (const strategy of facts.dca) {
    for (const order of strategy.orders) {
      check(
        `DCA order ${order.id}`,
        strategy.plan.chainId,
        order.onchainId,
        order.status === 'successful',
        order.transactionHash,
      );
    }
  }
  for (const [key, seen] of executed) {
    if (!known.has(key))
      problems.push(`an execution of an order the run did not place (${key}) in ${seen.txHash}`);
  }
  return problems;
}
