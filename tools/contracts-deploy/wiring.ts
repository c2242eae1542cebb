import { Contract, type InterfaceAbi, type Wallet } from 'ethers';
import type { PriceOracle as OracleChoice } from '../../devnet/world/deploy-service-contracts';
import type { ContractPlan, PlannedContract, PlannedName } from './contract-plan';
import type { OwnerCall } from './owner-call';
import type { ReleaseLimit } from './release-limits';

/** The settings the deployed contracts must have; ownership is handed over last (see wiringWants). */
export interface WiringInputs {
  plan: ContractPlan;
  executors: readonly string[];
  feeCollector: string;
  protocolFeeRecipient: string;
  /**
   * The owner (--owner, else the deployer): the guardian, who narrows at once what the timelock widens (revokes an
   * executor, a caller, a source), and the LockReleaseBridge's owner.
   */
  guardian: string;
  releaser?: string;
  /** The LockReleaseBridge's hourly release limit of each token given one (in base units). */
  releaseLimits?: readonly ReleaseLimit[];
  /** The price source of each token still without one (chosen from the chain's pools). */
  oracles: readonly OracleChoice[];
}

/** A setting of one of our contracts: whether it holds on-chain now, and the owner call that makes it hold. */
export interface WiringWant {
  contract: PlannedName;
  label: string;
  holds(): Promise<boolean>;
  call(): Promise<OwnerCall>;
}

const ORACLE_KIND = { 'usd-feed': 1, 'v3-weth-pool': 2 } as const;

function bind(contract: PlannedContract, runner: Wallet): Contract {
  return new Contract(contract.address, contract.artifact.abi as InterfaceAbi, runner);
}

function same(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

/**
 * Every setting, in the order it is made: callers and executors, who receives the fees, the price sources, the
 * guardian, the bridge's releaser, fee taker and release limits, and last the ownership of each contract to the
 * timelock (after which each later change waits its delay).
 */
export function wiringWants(inputs: WiringInputs, runner: Wallet): WiringWant[] {
  const { plan } = inputs;
  const spender = bind(plan.TokenSpender, runner);
  const router = bind(plan.SwapRouter, runner);
  const executor = bind(plan.OrderExecutor, runner);
  const oracle = bind(plan.PriceOracle, runner);
  const want = (
    contract: PlannedName,
    label: string,
    holds: () => Promise<boolean>,
    target: Contract,
    fn: string,
    args: unknown[] | (() => Promise<unknown[]>),
  ): WiringWant => ({
    contract,
    label,
    holds,
    call: async () => ({
      label,
      target: plan[contract]!.address,
      data: target.interface.encodeFunctionData(fn, typeof args === 'function' ? await args() : args),
    }),
  });
  const wants: WiringWant[] = [
    want(
      'TokenSpender',
      'TokenSpender.setCaller(SwapRouter)',
      async () => (await spender.getFunction('isCaller')(plan.SwapRouter.address)) as boolean,
      spender,
      'setCaller',
      [plan.SwapRouter.address, true],
    ),
    ...inputs.executors.map((address) =>
      want(
        'OrderExecutor',
        `OrderExecutor.setExecutor(${address})`,
        async () => (await executor.getFunction('isExecutor')(address)) as boolean,
        executor,
        'setExecutor',
        [address, true],
      ),
    ),
    want(
      'OrderExecutor',
      `OrderExecutor.setFeeCollector(${inputs.feeCollector})`,
      async () => same((await executor.getFunction('feeCollector')()) as string, inputs.feeCollector),
      executor,
      'setFeeCollector',
      [inputs.feeCollector],
    ),
  ];
  wants.push(
    want(
      'SwapRouter',
      `SwapRouter.setProtocolFee(recipient ${inputs.protocolFeeRecipient})`,
      async () =>
        same((await router.getFunction('protocolFeeRecipient')()) as string, inputs.protocolFeeRecipient),
      router,
      'setProtocolFee',
      // Only the recipient changes: the fee is read when the call is made.
      async () => [(await router.getFunction('protocolFeePips')()) as bigint, inputs.protocolFeeRecipient],
    ),
  );
  for (const choice of inputs.oracles) {
    wants.push(
      want(
        'PriceOracle',
        `PriceOracle.setOracle(${choice.token}, ${choice.kind} ${choice.source})`,
        async () => {
          const [kind] = (await oracle.getFunction('oracleOf')(choice.token)) as [bigint, string];
          return kind !== 0n;
        },
        oracle,
        'setOracle',
        [choice.token, ORACLE_KIND[choice.kind], choice.source],
      ),
    );
  }
  for (const name of ['TokenSpender', 'SwapRouter', 'OrderExecutor'] as const) {
    const contract = bind(plan[name], runner);
    wants.push(
      want(
        name,
        `${name}.setGuardian(${inputs.guardian})`,
        async () => same((await contract.getFunction('guardian')()) as string, inputs.guardian),
        contract,
        'setGuardian',
        [inputs.guardian],
      ),
    );
  }
  if (plan.LockReleaseBridge && plan.CrossChainEntry && inputs.releaser) {
    const bridge = bind(plan.LockReleaseBridge, runner);
    const releaser = inputs.releaser;
    wants.push(
      want(
        'LockReleaseBridge',
        `LockReleaseBridge.setReleaser(${releaser})`,
        async () => same((await bridge.getFunction('releaser')()) as string, releaser),
        bridge,
        'setReleaser',
        [releaser],
      ),
      want(
        'LockReleaseBridge',
        'LockReleaseBridge.setFeeTaker(CrossChainEntry)',
        async () => same((await bridge.getFunction('feeTaker')()) as string, plan.CrossChainEntry!.address),
        bridge,
        'setFeeTaker',
        [plan.CrossChainEntry.address],
      ),
    );
    for (const { token, limit } of inputs.releaseLimits ?? []) {
      wants.push(
        want(
          'LockReleaseBridge',
          `LockReleaseBridge.setReleaseLimit(${token}, ${limit})`,
          async () => ((await bridge.getFunction('releaseLimit')(token)) as bigint) === limit,
          bridge,
          'setReleaseLimit',
          [token, limit],
        ),
      );
    }
  }
  const owned = ['TokenSpender', 'SwapRouter', 'PriceOracle', 'OrderExecutor'] as const;
  for (const name of owned) {
    const contract = bind(plan[name], runner);
    wants.push(
      want(
        name,
        `${name}.transferOwnership(TimelockController)`,
        async () => same((await contract.getFunction('owner')()) as string, plan.TimelockController.address),
        contract,
        'transferOwnership',
        [plan.TimelockController.address],
      ),
    );
  }
  // The bridge goes to the owner itself, not the timelock: its cancelRelease must land within the bridge's own
  // release delay (an hour), far shorter than the timelock's.
  if (plan.LockReleaseBridge) {
    const bridge = bind(plan.LockReleaseBridge, runner);
    wants.push(
      want(
        'LockReleaseBridge',
        `LockReleaseBridge.transferOwnership(${inputs.guardian})`,
        async () => same((await bridge.getFunction('owner')()) as string, inputs.guardian),
        bridge,
        'transferOwnership',
        [inputs.guardian],
      ),
    );
  }
  return wants;
}
