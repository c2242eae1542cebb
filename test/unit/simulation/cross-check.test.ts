import type { ObservedExecution, SimulationFacts } from '../../../simulator/report/report-types';
import { crossCheck } from '../../../simulator/run/cross-check';
import { facts } from './report-fixture';

const TX_A = `0x${'a'.repeat(64)}`;
const TX_B = `0x${'b'.repeat(64)}`;

function execution(onchainId: string, txHash: string, block: number): ObservedExecution {
  return {
    chainId: 1,
    onchainId,
    block,
    txHash,
    gasUsed: 200_000,
    batchSize: 1,
    executed: true,
    maker: `0x${'1'.repeat(40)}`,
    tokenIn: `0x${'2'.repeat(40)}`,
    tokenOut: `0x${'3'.repeat(40)}`,
    amountIn: '1',
    fee: '0',
    amountOut: '1',
    reason: null,
    balanceChecked: true,
  };
}

/** Two limit orders of the fixture, the first executed in TX_A at block 3 as the API says; no DCA. */
function agreeing(): SimulationFacts {
  const base = facts();
  const [first, second] = base.limitOrders;
  first.onchainId = '0x01';
  first.status = 'completed';
  first.txHash = TX_A;
  second.onchainId = '0x02';
  second.status = 'pending';
  second.txHash = '';
  return { ...base, limitOrders: [first, second], dca: [], executions: [execution('0x01', TX_A, 3)] };
}

describe('crossCheck: where the API and the chain disagree', () => {
  it('finds nothing when every execution the API reports is the one the chain shows', () => {
    expect(crossCheck(agreeing())).toEqual([]);
  });

  it('names an order the API reports executed in another transaction, or in none the chain shows', () => {
    const wrongTx = agreeing();
    wrongTx.limitOrders[0].txHash = TX_B;
    expect(crossCheck(wrongTx)).toEqual([
      `limit order ${wrongTx.limitOrders[0].id}: the API reports it executed in ${TX_B}, the chain shows ${TX_A}`,
    ]);
    const noExecution = agreeing();
    noExecution.executions = [];
    expect(crossCheck(noExecution)).toEqual([
      `limit order ${noExecution.limitOrders[0].id}: the API reports it executed in ${TX_A}, the chain shows no execution`,
    ]);
  });

  it('names an execution the API does not report, except in the last block (settled at the next one)', () => {
    const unreported = agreeing();
    unreported.executions.push(execution('0x02', TX_B, 4));
    expect(crossCheck(unreported)).toEqual([
      `limit order ${unreported.limitOrders[1].id}: executed in ${TX_B} at block 4, the API does not report it executed`,
    ]);
    const lastBlock = agreeing();
    lastBlock.executions.push(execution('0x02', TX_B, lastBlock.scenario.blocks));
    expect(crossCheck(lastBlock)).toEqual([]);
  });

  it('names an execution of an order the run never placed', () => {
    const stranger = agreeing();
    stranger.executions.push(execution('0x99', TX_B, 5));
    expect(crossCheck(stranger)).toEqual([
      `an execution of an order the run did not place (1:0x99) in ${TX_B}`,
    ]);
  });
});
