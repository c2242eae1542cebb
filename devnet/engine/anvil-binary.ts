import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const PLATFORM_SUFFIX: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  win32: { x64: 'win32-amd64' },
};

/**
 * The anvil binary that `npm install` brought: @foundry-rs/anvil lists one optional package per platform
 * carrying the binary. Spawning it directly (not through the package's node wrapper) saves a node process
 * per chain and lets stop() signal anvil itself, so it dumps its state.
 */
export function anvilBinary(): string {
  const suffix = PLATFORM_SUFFIX[process.platform]?.[process.arch];
  if (!suffix)
    throw new Error(`anvil has no binary for ${process.platform}/${process.arch}; use DEVNET_ENGINE=ganache`);
  const pkg = `@foundry-rs/anvil-${suffix}`;
  let root: string;
  try {
    root = path.dirname(createRequire(__filename).resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(
      `anvil's binary package ${pkg} is not installed: run npm install, or use DEVNET_ENGINE=ganache`,
    );
  }
  const binary = path.join(root, 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`${pkg} has no binary at ${binary}: run npm install again`);
  return binary;
}
