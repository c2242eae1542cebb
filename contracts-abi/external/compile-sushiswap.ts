import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { ContractArtifact } from '../artifacts';

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
  contracts?: Record<
    string,
    Record<
      string,
      { abi: unknown[]; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }
    >
  >;
}

/** SushiSwap's V2 sources pin `pragma solidity =0.6.12`: the npm alias solc-0.6.12 bundles that compiler. */
export const SUSHISWAP_SOLC_VERSION = '0.6.12';

/**
 * Optimizer settings of SushiSwap's own build. The devnet pair's init-code hash follows from these and the
 * sources' paths, so it is not mainnet's (0xe18a34eb…): the devnet exports its own.
 */
export const SUSHISWAP_COMPILER_SETTINGS = { optimizer: { enabled: true, runs: 5000 } } as const;

/** Where the sources live in the package; source unit names keep this package path (machine independent). */
const PACKAGE_DIR = '@sushiswap/core/contracts/uniswapv2';
const ENTRY_POINTS = ['UniswapV2Factory.sol', 'UniswapV2Pair.sol'] as const;

/** The contracts the devnet deploys: the factory, and the pair whose creation code it embeds. */
export const SUSHISWAP_CONTRACTS = ['UniswapV2Factory', 'UniswapV2Pair'] as const;
export type SushiswapContractName = (typeof SUSHISWAP_CONTRACTS)[number];

export interface SushiswapArtifact extends ContractArtifact {
  contractName: SushiswapContractName;
}

const localRequire = createRequire(__filename);
const packageRoot = dirname(localRequire.resolve('@sushiswap/core/package.json'));

function readPackageSource(unitName: string): string {
  // Unit names are '@sushiswap/core/<path>'; only that package is readable, and nothing outside it.
  const prefix = '@sushiswap/core/';
  if (!unitName.startsWith(prefix) || unitName.includes('..'))
    throw new Error(`import not allowed: ${unitName}`);
  return readFileSync(join(packageRoot, unitName.slice(prefix.length)), 'utf8');
}

function findImports(path: string): { contents: string } | { error: string } {
  try {
    return { contents: readPackageSource(path) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** Compiles SushiSwap's UniswapV2Factory and UniswapV2Pair from @sushiswap/core with solc 0.6.12, in memory. */
export function compileSushiswap(): SushiswapArtifact[] {
  const solc = localRequire('solc-0.6.12') as SolcJs;
  if (!solc.version().startsWith(`${SUSHISWAP_SOLC_VERSION}+`)) {
    throw new Error(`solc ${SUSHISWAP_SOLC_VERSION} expected from solc-0.6.12, found ${solc.version()}`);
  }
  const sources = Object.fromEntries(
    ENTRY_POINTS.map((file) => {
      const unit = `${PACKAGE_DIR}/${file}`;
      return [unit, { content: readPackageSource(unit) }];
    }),
  );
  const input = {
    language: 'Solidity',
    sources,
    settings: {
      ...SUSHISWAP_COMPILER_SETTINGS,
      outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImports })) as SolcOutput;
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) {
    throw new Error(
      `solc ${SUSHISWAP_SOLC_VERSION} failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`,
    );
  }
  return SUSHISWAP_CONTRACTS.map((contractName) => {
    const compiled = output.contracts?.[`${PACKAGE_DIR}/${contractName}.sol`]?.[contractName];
    if (!compiled) throw new Error(`solc produced no ${contractName}`);
    return {
      contractName,
      abi: compiled.abi as ContractArtifact['abi'],
      bytecode: `0x${compiled.evm.bytecode.object}`,
      deployedBytecode: `0x${compiled.evm.deployedBytecode.object}`,
    };
  });
}
