/**
 * The JSON-RPC access the submit stage needs: the chain's id and raw calls. ChainClient (shared/chain) provides
 * it with retries and failover; tests may pass anything shaped like it.
 */
export interface RawRpc {
  readonly chainId: number;
  send(method: string, params?: readonly unknown[]): Promise<unknown>;
}
