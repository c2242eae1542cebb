import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { ARTIFACTS_DIR, artifactPath, type ContractArtifact } from './artifacts';
import { compileContracts } from './compile-contracts';

export { compileContracts };

/** Key order fixed here (not by solc) so the committed files only change when the contracts do. */
export function serializeArtifact(artifact: ContractArtifact): string {
  const { contractName, abi, bytecode, deployedBytecode } = artifact;
  return `${JSON.stringify({ contractName, abi, bytecode, deployedBytecode }, null, 2)}\n`;
}

/** `npm run contracts:build`: recompiles and rewrites contracts-abi/artifacts/, dropping files of removed contracts. */
export function buildArtifacts(): ContractArtifact[] {
  const { artifacts, warnings } = compileContracts();
  for (const warning of warnings) process.stderr.write(`${warning}\n`);
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const keep = new Set(artifacts.map((a) => `${a.contractName}.json`));
  for (const file of readdirSync(ARTIFACTS_DIR)) {
    if (file.endsWith('.json') && !keep.has(file)) rmSync(artifactPath(file.slice(0, -'.json'.length)));
  }
  for (const artifact of artifacts)
    writeFileSync(artifactPath(artifact.contractName), serializeArtifact(artifact));
  return artifacts;
}

if (require.main === module) {
  const artifacts = buildArtifacts();
  process.stdout.write(`contracts: wrote ${artifacts.map((a) => a.contractName).join(', ')}\n`);
}
