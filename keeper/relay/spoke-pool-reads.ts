import { zeroPadValue, toBeHex, type BlockTag } from 'ethers';
import { FillStatus, type V3RelayData } from '../../shared/bridges/across/relay-data';
import { spokePoolInterface } from '../../shared/bridges/contracts';
import type { ChainClient } from '../../shared/chain/chain-client';
import type { Transfer } from '../../shared/store/repositories/transfers-repository';

/** The relay data of an intent transfer, as `fillRelay` and `getV3RelayHash` take it. */
export function relayDataOf(t: Transfer): V3RelayData {
  return {
    depositor: t.depositor,
    recipient: t.recipient,
    exclusiveRelayer: t.exclusiveRelayer ?? zeroPadValue('0x', 32),
    inputToken: t.inputToken,
    outputToken: t.outputToken,
    inputAmount: t.inputAmount,
    outputAmount: t.outputAmount,
    originChainId: BigInt(t.originChainId),
    depositId: BigInt(t.depositId),
    fillDeadline: t.fillDeadline ?? 0,
    exclusivityDeadline: t.exclusivityDeadline ?? 0,
    message: t.message ?? '0x',
  };
}

/** `fillStatuses(relayHash)` on the destination SpokePool, at `blockTag`. */
export async function fillStatusOf(
  client: ChainClient,
  spokePool: string,
  relayHash: string,
  blockTag: BlockTag = 'latest',
): Promise<FillStatus> {
  const iface = spokePoolInterface();
  const data = await client.call(
    { to: spokePool, data: iface.encodeFunctionData('fillStatuses', [relayHash]) },
    blockTag,
  );
  return Number(iface.decodeFunctionResult('fillStatuses', data)[0] as bigint) as FillStatus;
}

/** The destination's fill of a transfer: who filled it (bytes32, lowercase) and in which transaction. */
export interface FoundFill {
  relayer: string;
  txHash: string;
  blockNumber: number;
  blockHash: string;
}

interface RawLog {
  topics: string[];
  data: string;
  blockNumber: string;
  blockHash: string;
  transactionHash: string;
  removed?: boolean;
}

/**
 * The FilledRelay event of a transfer on its destination SpokePool (by origin chain and deposit id, then the relay
 * data's amounts and recipient), searched from `fromBlock`; undefined when none is found.
 */
export async function findFill(
  client: ChainClient,
  spokePool: string,
  t: Transfer,
  fromBlock: number,
): Promise<FoundFill | undefined> {
  const iface = spokePoolInterface();
  const event = iface.getEvent('FilledRelay')!;
  const logs = (await client.send('eth_getLogs', [
    {
      address: spokePool,
      topics: [
        event.topicHash,
        zeroPadValue(toBeHex(t.originChainId), 32),
        zeroPadValue(toBeHex(BigInt(t.depositId)), 32),
      ],
      fromBlock: `0x${Math.max(0, fromBlock).toString(16)}`,
      toBlock: 'latest',
    },
  ])) as RawLog[];
  for (const log of logs) {
    if (log.removed) continue;
    const parsed = iface.parseLog({ topics: log.topics, data: log.data });
    if (!parsed) continue;
    const a = parsed.args;
    if (
      (a.outputAmount as bigint) !== t.outputAmount ||
      (a.recipient as string).toLowerCase() !== t.recipient.toLowerCase() ||
      (a.outputToken as string).toLowerCase() !== t.outputToken.toLowerCase()
    )
      continue;
    return {
      relayer: (a.relayer as string).toLowerCase(),
      txHash: log.transactionHash,
      blockNumber: Number(BigInt(log.blockNumber)),
      blockHash: log.blockHash,
    };
  }
  return undefined;
}
