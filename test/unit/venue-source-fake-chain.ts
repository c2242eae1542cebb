import { Interface, type BlockTag } from 'ethers';
import type { CallRequest, ChainClient } from '../../shared/chain/chain-client';
import { MULTICALL_ABI } from '../../shared/chain/multicall';

/** One contract view: its answer to the decoded arguments at the block, or undefined to revert. */
export type ViewHandler = (args: readonly unknown[], blockNumber: number) => readonly unknown[] | undefined;

const multicallInterface = new Interface(MULTICALL_ABI);

/**
 * A chain with no node: contract views answered by handlers, reached only through the Uniswap interface
 * multicall at MULTICALL (as the sources call them), plus eth_getLogs and eth_blockNumber. Records every
 * eth_call chunk and log filter so tests can count round trips.
 */
export class FakeChain {
  static readonly MULTICALL = '0x00000000000000000000000000000000000000ca';
  head = 100;
  readonly calls: Array<{ target: string; fn: string; blockNumber: number }> = [];
  readonly logFilters: Array<Record<string, unknown>> = [];
  logs: (filter: Record<string, unknown>) => unknown[] = () => [];
  /** Per lowercase target, per selector: the function's interface and its handler. */
  private readonly views = new Map<string, Map<string, { iface: Interface; handler: ViewHandler }>>();

  /** Answers `fn` (a name or signature in `iface`) on `target`. */
  on(target: string, iface: Interface, fn: string, handler: ViewHandler): this {
    const key = target.toLowerCase();
    const functions = this.views.get(key) ?? new Map<string, { iface: Interface; handler: ViewHandler }>();
    functions.set(iface.getFunction(fn)!.selector, { iface, handler });
    this.views.set(key, functions);
    return this;
  }

  client(chainId = 1): ChainClient {
    const fake = {
      chainId,
      name: 'fake',
      blockNumber: () => Promise.resolve(this.head),
      call: (tx: CallRequest, blockTag?: BlockTag) => Promise.resolve(this.multicall(tx, blockTag)),
      send: (method: string, params: readonly unknown[] = []) =>
        new Promise((resolve) => {
          // Inside the promise: a throwing `logs` is a rejected request, as a node's error would be.
          if (method !== 'eth_getLogs') throw new Error(`unexpected ${method}`);
          const filter = params[0] as Record<string, unknown>;
          this.logFilters.push(filter);
          resolve(this.logs(filter));
        }),
    };
    return fake as unknown as ChainClient;
  }

  private multicall(tx: CallRequest, blockTag?: BlockTag): string {
    if (tx.to.toLowerCase() !== FakeChain.MULTICALL) throw new Error(`call to ${tx.to}, not the multicall`);
    const blockNumber = typeof blockTag === 'number' ? blockTag : this.head;
    const [calls] = multicallInterface.decodeFunctionData('multicall', tx.data) as unknown as [
      Array<[string, bigint, string]>,
    ];
    const results = calls.map(([target, , callData]) => {
      const entry = this.views.get(target.toLowerCase())?.get(callData.slice(0, 10));
      if (!entry) return [false, 0n, '0x'];
      const fragment = entry.iface.getFunction(callData.slice(0, 10))!;
      this.calls.push({ target: target.toLowerCase(), fn: fragment.name, blockNumber });
      const answer = entry.handler([...entry.iface.decodeFunctionData(fragment, callData)], blockNumber);
      if (!answer) return [false, 0n, '0x'];
      return [true, 0n, entry.iface.encodeFunctionResult(fragment, [...answer])];
    });
    return multicallInterface.encodeFunctionResult('multicall', [blockNumber, results]);
  }
}

/** Address 0x…<n> (40 hex digits), lowercase. */
export const addr = (n: number | bigint): string => `0x${n.toString(16).padStart(40, '0')}`;
