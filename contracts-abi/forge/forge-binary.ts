import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const PLATFORM_SUFFIX: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  linux: { x64: 'linux-amd64', arm64: 'linux-arm64' },
  darwin: { x64: 'darwin-amd64', arm64: 'darwin-arm64' },
  win32: { x64: 'win32-amd64' },
};

/**
 * The forge binary that `npm install` brought: @foundry-rs/forge lists one optional package per platform carrying
 * the binary (its postinstall is not run, see package.json's allowScripts). Throws when it is missing: the contract
 * tests never skip silently.
 */
export function forgeBinary(): string {
  const suffix = PLATFORM_SUFFIX[process.platform]?.[process.arch];
  if (!suffix) throw new Error(`forge has no binary for ${process.platform}/${process.arch}`);
  const pkg = `@foundry-rs/forge-${suffix}`;
  let root: string;
  try {
    root = path.dirname(createRequire(__filename).resolve(`${pkg}/package.json`));
  } catch {
    throw new Error(`forge's binary package ${pkg} is not installed: run npm install`);
  }
  const binary = path.join(root, 'bin', process.platform === 'win32' ? 'forge.exe' : 'forge');
  if (!existsSync(binary)) throw new Error(`${pkg} has no binary at ${binary}: run npm install again`);
  return binary;
}
