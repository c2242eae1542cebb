import { getCreateAddress, Interface, type InterfaceAbi, type JsonRpcProvider, type Wallet } from 'ethers';

/** What a queue needs of the chain to mine its transactions on demand (a ChainHandle has it). */
export interface MiningControls {
  /** Seconds between blocks; 0 = a block per transaction. */
  blockTime: number;
  mine(): Promise<void>;
}

interface Sent {
  label: string;
  hash: Promise<string>;
}

/** The creation code and ABI of a contract to deploy. */
export interface Deployable {
  abi: InterfaceAbi;
  bytecode: string;
}

const GWEI = 10n ** 9n;
/** Long enough for slow interval mining; a transaction lost by the node must not hang the start forever. */
const RECEIPT_TIMEOUT_MS = 120_000;
/**
 * Gas limits a queue lets wait in the pool of an interval-mined chain, below the 30M block gas limit: anvil
 * drops pooled transactions that do not fit the block it mines (foundry-rs/foundry#13352), and with them every
 * later nonce of the sender.
 */
const POOLED_GAS_BUDGET = 24_000_000n;

/**
 * Sends a stream of transactions from one key without waiting for receipts in between: nonces are assigned
 * locally, every fee and gas field is fixed up front (no estimate or fee round trip per transaction) and the
 * addresses of new contracts are known before they are mined (CREATE addresses follow from the nonce).
 * Transactions are broadcast in nonce order; flush() waits for all receipts and fails on the first revert,
 * naming the transaction. Gas limits are explicit because an estimate needs the state of earlier, possibly
 * unmined, transactions.
 */
export class TxQueue {
  private readonly sent: Sent[] = [];
  private tail: Promise<unknown> = Promise.resolve();
  private failure: Error | undefined;
  /** Hashes sent and not yet seen mined, with the sum of their gas limits (interval mining only). */
  private pooled: string[] = [];
  private pooledGas = 0n;

  private constructor(
    private readonly provider: JsonRpcProvider,
    private readonly signer: Wallet,
    private readonly chainId: bigint,
    private nonce: number,
    private readonly maxFeePerGas: bigint,
    private readonly maxPriorityFeePerGas: bigint,
    private readonly mining: MiningControls | undefined,
    private readonly receiptTimeoutMs: number,
  ) {}

  /**
   * `mining`: on a chain with a block time, flush mines blocks on demand until every receipt exists, so a
   * world deploys at once instead of waiting for interval blocks. `receiptTimeoutMs`: how long flush waits for
   * each receipt (120 s).
   */
  static async create(
    provider: JsonRpcProvider,
    signer: Wallet,
    opts: { mining?: MiningControls; receiptTimeoutMs?: number } = {},
  ): Promise<TxQueue> {
    const [network, nonce, block] = await Promise.all([
      provider.getNetwork(),
      provider.getTransactionCount(signer.address, 'pending'),
      provider.getBlock('latest'),
    ]);
    const priority = GWEI;
    // Four times the current base fee covers the base fee rising over several full blocks of deployments.
    const baseFee = block?.baseFeePerGas ?? GWEI;
    return new TxQueue(
      provider,
      signer,
      network.chainId,
      nonce,
      baseFee * 4n + priority,
      priority,
      opts.mining && opts.mining.blockTime > 0 ? opts.mining : undefined,
      opts.receiptTimeoutMs ?? RECEIPT_TIMEOUT_MS,
    );
  }

  get address(): string {
    return this.signer.address;
  }

  /** Queues a contract creation and returns the address the contract will have. */
  deploy(label: string, artifact: Deployable, args: readonly unknown[] = [], gasLimit?: bigint): string {
    const initCode = new Interface(artifact.abi).encodeDeploy(args);
    const data = artifact.bytecode + initCode.slice(2);
    const address = getCreateAddress({ from: this.signer.address, nonce: this.nonce });
    this.enqueue(label, { data, gasLimit: gasLimit ?? deployGasLimit(data) });
    return address;
  }

  /** Queues a call of `fn` on the contract at `to`. */
  call(
    label: string,
    to: string,
    abi: InterfaceAbi,
    fn: string,
    args: readonly unknown[],
    gasLimit: bigint,
    value = 0n,
  ): void {
    this.enqueue(label, { to, data: new Interface(abi).encodeFunctionData(fn, args), gasLimit, value });
  }

  /** Waits until every queued transaction is mined; throws if any was rejected or reverted. */
  async flush(): Promise<void> {
    await this.tail;
    if (this.failure) throw this.failure;
    for (const { label, hash } of this.sent.splice(0)) {
      const txHash = await hash;
      const receipt = await this.receipt(txHash);
      if (receipt.status !== '0x1') throw new Error(`devnet transaction "${label}" (${txHash}) reverted`);
    }
    this.pooled = [];
    this.pooledGas = 0n;
  }

  /**
   * The raw receipt, polled while the block is not mined yet; with interval mining, blocks are mined on demand
   * instead of waiting for the next interval.
   */
  private async receipt(hash: string): Promise<{ status: string }> {
    const deadline = Date.now() + this.receiptTimeoutMs;
    while (Date.now() < deadline) {
      const receipt = (await this.provider.send('eth_getTransactionReceipt', [hash])) as {
        status: string;
      } | null;
      if (receipt) return receipt;
      if (this.mining) await this.mining.mine();
      else await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(
      `devnet transaction ${hash} was not mined within ${this.receiptTimeoutMs / 1000} s (${await this.stallOf(hash)})`,
    );
  }

  /**
   * What the node says of a transaction that is not mined: whether it knows it, its nonce against the sender's, its
   * fee against the base fee, and the pool's counts.
   */
  private async stallOf(hash: string): Promise<string> {
    try {
      const [tx, next, block, pool] = await Promise.all([
        this.provider.send('eth_getTransactionByHash', [hash]) as Promise<{ nonce: string } | null>,
        this.provider.getTransactionCount(this.signer.address, 'latest'),
        this.provider.getBlock('latest'),
        this.provider.send('txpool_status', []).catch(() => undefined) as Promise<
          { pending: string; queued: string } | undefined
        >,
      ]);
      const known = tx ? `nonce ${Number(tx.nonce)}, the sender's next ${next}` : 'unknown to the node';
      const fees = `; max fee ${this.maxFeePerGas}, base fee ${block?.baseFeePerGas ?? 'unknown'}`;
      const status = pool ? `; pool: ${Number(pool.pending)} ready, ${Number(pool.queued)} queued` : '';
      return known + fees + status;
    } catch (err) {
      return `the node did not say why: ${(err as Error).message}`;
    }
  }

  /** Mines until every pooled transaction has a receipt (reverts are reported by flush). */
  private async minePooled(): Promise<void> {
    for (const hash of this.pooled.splice(0)) await this.receipt(hash);
    this.pooledGas = 0n;
  }

  private enqueue(label: string, tx: { to?: string; data: string; gasLimit: bigint; value?: bigint }): void {
    const nonce = this.nonce++;
    const hash = this.tail.then(async () => {
      if (this.failure) throw this.failure;
      try {
        const signed = await this.signer.signTransaction({
          ...tx,
          type: 2,
          nonce,
          chainId: this.chainId,
          maxFeePerGas: this.maxFeePerGas,
          maxPriorityFeePerGas: this.maxPriorityFeePerGas,
        });
        if (this.mining && this.pooledGas + tx.gasLimit > POOLED_GAS_BUDGET) await this.minePooled();
        const sent = (await this.provider.send('eth_sendRawTransaction', [signed])) as string;
        if (this.mining) {
          this.pooled.push(sent);
          this.pooledGas += tx.gasLimit;
        }
        return sent;
      } catch (err) {
        // Later nonces would wait forever behind the missing one: stop sending.
        this.failure = new Error(`devnet transaction "${label}" was not accepted: ${(err as Error).message}`);
        throw this.failure;
      }
    });
    // The rejection surfaces from flush(); keep it from being reported as unhandled in between.
    hash.catch(() => undefined);
    this.tail = hash.catch(() => undefined);
    this.sent.push({ label, hash });
  }
}

/**
 * Creation costs 32,000 + calldata (16 gas per byte at most) + 200 per byte of runtime code, which is
 * smaller than the creation code; the margin pays for the constructor's storage writes.
 */
export function deployGasLimit(data: string): bigint {
  const bytes = BigInt((data.length - 2) / 2);
  return 53_000n + bytes * 216n + 600_000n;
}
