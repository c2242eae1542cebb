import { Contract, ZeroHash, toBeHex, type InterfaceAbi, type Wallet } from 'ethers';
import { loadArtifact, type ContractName } from '../../contracts-abi/artifacts';

/** A call only the contracts' owner may make. */
export interface OwnerCall {
  /** What it does, as the tool prints it. */
  label: string;
  target: string;
  data: string;
}

/** What happened to a call: sent by the deployer (still the owner), or moved one step through the timelock. */
export type CallOutcome =
  | { kind: 'sent'; hash: string }
  | { kind: 'scheduled'; executableAt: number }
  | { kind: 'waiting'; executableAt: number }
  | { kind: 'executed'; hash: string }
  /** Neither the deployer's to send nor to schedule: printed for the owner (a multisig) to make. */
  | { kind: 'for-the-owner'; owner: string; viaTimelock: boolean };

/** Salts tried per call: a call done once and undone later (an executor revoked) is scheduled again under the next. */
const MAX_SALTS = 16;

function artifactContract(name: ContractName, address: string, signer: Wallet) {
  return new Contract(address, loadArtifact(name).abi as InterfaceAbi, signer);
}

async function send(wallet: Wallet, to: string, data: string): Promise<string> {
  const tx = await wallet.sendTransaction({ to, data });
  const receipt = await tx.wait(1);
  if (!receipt || receipt.status !== 1) throw new Error(`transaction ${tx.hash} reverted`);
  return tx.hash;
}

/**
 * Makes an owner call as whoever owns the target now: the deployer sends it itself; once the timelock owns the
 * contracts, the deployer (if it is a proposer) schedules it, and a later run executes it when the delay is over.
 * Otherwise the call is handed to the owner (printed for the multisig to schedule in the timelock, or to make).
 */
export async function ownerCall(deployer: Wallet, owner: string, timelockAddress: string, call: OwnerCall) {
  if (owner.toLowerCase() === deployer.address.toLowerCase()) {
    return { kind: 'sent', hash: await send(deployer, call.target, call.data) } satisfies CallOutcome;
  }
  if (owner.toLowerCase() !== timelockAddress.toLowerCase())
    throw new Error(
      `${call.label}: ${call.target} is owned by ${owner}, neither the deployer nor our timelock`,
    );
  const timelock = artifactContract('TimelockController', timelockAddress, deployer);
  const proposer = (await timelock.getFunction('PROPOSER_ROLE')()) as string;
  if (!((await timelock.getFunction('hasRole')(proposer, deployer.address)) as boolean))
    return { kind: 'for-the-owner', owner: timelockAddress, viaTimelock: true } satisfies CallOutcome;
  for (let i = 0; i < MAX_SALTS; i++) {
    const salt = toBeHex(i, 32);
    const args = [call.target, 0, call.data, ZeroHash, salt] as const;
    const id = (await timelock.getFunction('hashOperation')(...args)) as string;
    if ((await timelock.getFunction('isOperationDone')(id)) as boolean) continue;
    const executableAt = Number((await timelock.getFunction('getTimestamp')(id)) as bigint);
    if ((await timelock.getFunction('isOperationReady')(id)) as boolean) {
      const data = timelock.interface.encodeFunctionData('execute', [...args]);
      return { kind: 'executed', hash: await send(deployer, timelockAddress, data) } satisfies CallOutcome;
    }
    if (executableAt > 0) return { kind: 'waiting', executableAt } satisfies CallOutcome;
    const delay = (await timelock.getFunction('getMinDelay')()) as bigint;
    const data = timelock.interface.encodeFunctionData('schedule', [...args, delay]);
    await send(deployer, timelockAddress, data);
    const at = Number((await timelock.getFunction('getTimestamp')(id)) as bigint);
    return { kind: 'scheduled', executableAt: at } satisfies CallOutcome;
  }
  throw new Error(`${call.label}: ${MAX_SALTS} timelock operations of it are done already`);
}
