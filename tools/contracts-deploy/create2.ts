import { concat, getCreate2Address, id, keccak256, type Provider, type Signer } from 'ethers';

/**
 * The deterministic deployment proxy (github.com/Arachnid/deterministic-deployment-proxy): at the same address on
 * nearly every EVM chain, and in every anvil. A call with `salt ++ initCode` CREATE2s the init code, so where a
 * contract lands depends only on its code and arguments: a re-run of the deploy tool finds what it deployed.
 */
export const CREATE2_PROXY = '0x4e59b44847b379578588920cA78FbF26c0B4956C';

/** One salt for every contract: the address then names the code and its constructor arguments alone. */
export const DEPLOY_SALT = id('trade-aggregation-service/contracts/v1');

/** Where the proxy puts `initCode` (creation code with its ABI-encoded constructor arguments). */
export function create2Address(initCode: string): string {
  return getCreate2Address(CREATE2_PROXY, DEPLOY_SALT, keccak256(initCode));
}

export async function hasCode(provider: Provider, address: string): Promise<boolean> {
  return (await provider.getCode(address)) !== '0x';
}

/** Fails unless the chain has the proxy: without it no address is reproducible. */
export async function requireCreate2Proxy(provider: Provider, chainId: bigint): Promise<void> {
  if (await hasCode(provider, CREATE2_PROXY)) return;
  throw new Error(
    `chain ${chainId} has no deterministic deployment proxy at ${CREATE2_PROXY}: deploy it first with its ` +
      'presigned transaction (github.com/Arachnid/deterministic-deployment-proxy), then run again',
  );
}

/**
 * Deploys `initCode` through the proxy unless code is already where it lands. Returns the address and whether a
 * transaction was sent.
 */
export async function deployCreate2(
  signer: Signer,
  initCode: string,
): Promise<{ address: string; deployed: boolean }> {
  const provider = signer.provider;
  if (!provider) throw new Error('the deployer has no provider');
  const address = create2Address(initCode);
  if (await hasCode(provider, address)) return { address, deployed: false };
  const tx = await signer.sendTransaction({ to: CREATE2_PROXY, data: concat([DEPLOY_SALT, initCode]) });
  const receipt = await tx.wait(1);
  if (!receipt || receipt.status !== 1)
    throw new Error(`the deployment at ${address} reverted (tx ${tx.hash})`);
  if (!(await hasCode(provider, address)))
    throw new Error(`the proxy left no code at ${address} (tx ${tx.hash}): out of gas in the constructor?`);
  return { address, deployed: true };
}
