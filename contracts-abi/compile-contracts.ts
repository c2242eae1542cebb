import { readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, relative, resolve, sep } from 'node:path';
import type { ContractArtifact } from './artifacts';

/** The slice of solc-js this module uses (the package ships no types). */
interface SolcJs {
  version(): string;
  compile(
    input: string,
    callbacks: { import: (path: string) => { contents: string } | { error: string } },
  ): string;
}

interface SolcOutput {
  errors?: Array<{ severity: 'error' | 'warning' | 'info'; formattedMessage: string }>;
  sources?: Record<string, { ast: AstNode }>;
  contracts?: Record<
    string,
    Record<
      string,
      { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
}

interface AstNode {
  nodeType: string;
  name?: string;
  abstract?: boolean;
  contractKind?: string;
  nodes?: AstNode[];
}

/** Pinned because the committed artifacts are compared byte for byte with a fresh compile. */
export const SOLC_VERSION = '0.8.28';

// ganache stops at Shanghai: newer EVM targets emit opcodes (mcopy, tstore) that fail to deploy there.
export const COMPILER_SETTINGS = { evmVersion: 'shanghai', optimizer: { enabled: true, runs: 200 } } as const;

const CONTRACTS_DIR = __dirname;
const SOURCE_DIR = join(CONTRACTS_DIR, 'src');
const NODE_MODULES = resolve(CONTRACTS_DIR, '..', 'node_modules');

/**
 * Package contracts deployed as they are, so they get artifacts too: OpenZeppelin's TimelockController owns our
 * contracts in production (`contracts:deploy --owner`). Compiled from the package's own source with our settings.
 */
export const PACKAGE_CONTRACTS: ReadonlyArray<{ unit: string; contractName: string }> = [
  { unit: '@openzeppelin/contracts/governance/TimelockController.sol', contractName: 'TimelockController' },
];

function listSolidityFiles(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((entry) => {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) return listSolidityFiles(full);
      return entry.endsWith('.sol') ? [full] : [];
    });
}

/** Source unit names are paths relative to contracts-abi/ with '/' separators, so the metadata hash is machine independent. */
function sourceUnitName(file: string): string {
  return relative(CONTRACTS_DIR, file).split(sep).join('/');
}

// Only package imports reach the callback (our own files are all in the input); anything else is refused.
function findImports(path: string): { contents: string } | { error: string } {
  const allowed = ['@openzeppelin/', '@uniswap/v4-core/src/libraries/'];
  if (!allowed.some((prefix) => path.startsWith(prefix)) || path.includes('..'))
    return { error: `import not allowed: ${path}` };
  try {
    return { contents: readFileSync(join(NODE_MODULES, path), 'utf8') };
  } catch {
    return { error: `not found: ${path}` };
  }
}

function deployableContracts(ast: AstNode): Set<string> {
  const names = new Set<string>();
  for (const node of ast.nodes ?? []) {
    if (
      node.nodeType === 'ContractDefinition' &&
      node.contractKind === 'contract' &&
      !node.abstract &&
      node.name
    ) {
      names.add(node.name);
    }
  }
  return names;
}

export interface CompileResult {
  /**
   * One per deployable contract defined in our sources (not the imported OpenZeppelin ones) and per
   * PACKAGE_CONTRACTS entry, sorted by name.
   */
  artifacts: ContractArtifact[];
  /** solc's warnings, formatted; errors throw instead. */
  warnings: string[];
}

/** Compiles every .sol file under contracts-abi/src (tests included) in memory. */
export function compileContracts(): CompileResult {
  const solc = createRequire(__filename)('solc') as SolcJs;
  if (!solc.version().startsWith(`${SOLC_VERSION}+`)) {
    throw new Error(`solc ${SOLC_VERSION} expected, found ${solc.version()}`);
  }
  const sources: Record<string, { content: string }> = {};
  for (const file of listSolidityFiles(SOURCE_DIR)) {
    sources[sourceUnitName(file)] = { content: readFileSync(file, 'utf8') };
  }
  // Named as their import path, so a source of ours importing one gets the same unit, not a second copy.
  for (const { unit } of PACKAGE_CONTRACTS) {
    sources[unit] = { content: readFileSync(join(NODE_MODULES, unit), 'utf8') };
  }
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      ...COMPILER_SETTINGS,
      outputSelection: {
        '*': { '': ['ast'], '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] },
      },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  const warnings = (output.errors ?? [])
    .filter((e) => e.severity === 'warning')
    .map((e) => e.formattedMessage);
  if (errors.length > 0) {
    throw new Error(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`);
  }

  const artifacts: ContractArtifact[] = [];
  const packageUnits = new Map(PACKAGE_CONTRACTS.map((c) => [c.unit, c.contractName]));
  for (const unit of Object.keys(sources)) {
    const packageContract = packageUnits.get(unit);
    const deployable = packageContract
      ? new Set([packageContract])
      : deployableContracts(output.sources![unit]!.ast);
    for (const [contractName, compiled] of Object.entries(output.contracts?.[unit] ?? {})) {
      if (!deployable.has(contractName)) continue;
      artifacts.push({
        contractName,
        abi: compiled.abi as ContractArtifact['abi'],
        bytecode: `0x${compiled.evm.bytecode.object}`,
        deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
      });
    }
  }
  const names = artifacts.map((a) => a.contractName);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate) throw new Error(`two contracts are named ${duplicate}: artifact file names would clash`);
  artifacts.sort((a, b) => (a.contractName < b.contractName ? -1 : 1));
  return { artifacts, warnings };
}
