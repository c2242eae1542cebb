import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ContractArtifact } from '../artifacts';
import type { SushiswapContractName } from './compile-sushiswap';

/** The committed SushiSwap V2 builds (`npm run contracts:build-sushiswap` rewrites them). */
export const SUSHISWAP_ARTIFACTS_DIR = join(__dirname, 'sushiswap-v2');

export function sushiswapArtifactPath(name: SushiswapContractName): string {
  return join(SUSHISWAP_ARTIFACTS_DIR, `${name}.json`);
}

export function loadSushiswapArtifact(name: SushiswapContractName): ContractArtifact {
  const artifact = JSON.parse(readFileSync(sushiswapArtifactPath(name), 'utf8')) as ContractArtifact;
  if (artifact.contractName !== name || !artifact.bytecode.startsWith('0x')) {
    throw new Error(`malformed artifact ${sushiswapArtifactPath(name)}`);
  }
  return artifact;
}
