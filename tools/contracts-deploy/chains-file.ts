import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChainConfig } from '../../shared/config/config-schema';

interface ChainsFile {
  chains: ChainConfig[];
  [other: string]: unknown;
}

function readChains(file: string): ChainsFile {
  if (!existsSync(file)) return { chains: [] };
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new Error(`${file} is not JSON: ${(err as Error).message}`);
  }
  const chains = (parsed as Partial<ChainsFile>).chains;
  if (!Array.isArray(chains)) throw new Error(`${file} must hold {"chains": [...]}`);
  return parsed as ChainsFile;
}

/**
 * Writes `entry` into the chains file, creating it, or replacing only the chain of the same id and keeping what an
 * operator added to that chain (other RPC URLs, fee caps, confirmations); its `contracts` are the tool's alone. Written
 * to a temporary file and renamed, so a crash leaves the old file or the new one.
 */
export function writeChainEntry(file: string, entry: ChainConfig): 'created' | 'added' | 'updated' {
  const existed = existsSync(file);
  const content = readChains(file);
  const index = content.chains.findIndex((c) => c.chainId === entry.chainId);
  const previous = index >= 0 ? content.chains[index] : undefined;
  const merged: ChainConfig = previous
    ? {
        ...previous,
        ...entry,
        rpcUrls: [...new Set([...entry.rpcUrls, ...previous.rpcUrls])],
      }
    : entry;
  if (index >= 0) content.chains[index] = merged;
  else content.chains.push(merged);
  mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(content, null, 2)}\n`);
  renameSync(temporary, file);
  return !existed ? 'created' : index >= 0 ? 'updated' : 'added';
}

/** A token list path as the chains file holds it: relative to the file's folder, so both move together. */
export function tokenListReference(chainsFile: string, tokenList: string): string {
  const relative = path.relative(path.dirname(path.resolve(chainsFile)), path.resolve(tokenList));
  return relative.split(path.sep).join('/');
}
