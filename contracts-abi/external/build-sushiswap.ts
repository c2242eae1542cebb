import { mkdirSync, writeFileSync } from 'node:fs';
import { serializeArtifact } from '../build';
import { compileSushiswap } from './compile-sushiswap';
import { SUSHISWAP_ARTIFACTS_DIR, sushiswapArtifactPath } from './sushiswap-artifacts';

/** Recompiles SushiSwap's V2 factory and pair and rewrites contracts-abi/external/sushiswap-v2/. */
export function buildSushiswapArtifacts(): string[] {
  const artifacts = compileSushiswap();
  mkdirSync(SUSHISWAP_ARTIFACTS_DIR, { recursive: true });
  for (const artifact of artifacts) {
    writeFileSync(sushiswapArtifactPath(artifact.contractName), serializeArtifact(artifact));
  }
  return artifacts.map((a) => a.contractName);
}

if (require.main === module) {
  process.stdout.write(`sushiswap: wrote ${buildSushiswapArtifacts().join(', ')}\n`);
}
