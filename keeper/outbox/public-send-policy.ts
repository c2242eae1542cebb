import type { RawRpc } from './raw-rpc';
import type { SendPolicy } from './send-policy';

/**
 * Every broadcast through the chain's public RPCs (the ChainClient: retries and failover between its URLs), as
 * the keeper has always sent. The node's refusal reaches the caller as the client raised it.
 */
export class PublicSendPolicy implements SendPolicy {
  readonly publicPool = true;
  constructor(private readonly rpc: RawRpc) {}

  async broadcast(raw: string): Promise<void> {
    await this.rpc.send('eth_sendRawTransaction', [raw]);
  }

  /** Public is already the widest path: a later broadcast is the same call. */
  rebroadcast(raw: string): Promise<void> {
    return this.broadcast(raw);
  }
}
