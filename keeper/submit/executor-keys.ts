import { readFile } from 'node:fs/promises';
import { Wallet } from 'ethers';

/** Where the keeper's executor keys come from; both lists may be given and are concatenated. */
export interface ExecutorKeySource {
  /** 0x-prefixed 32-byte hex private keys (the configuration's comma-separated list, already split). */
  privateKeys?: string[];
  /** Paths of encrypted JSON keystore files (Web3 Secret Storage, as geth and ethers write them). */
  keystoreFiles?: string[];
  /** The password of every keystore file. */
  keystorePassword?: string;
  /** A file holding that password (one line; a trailing newline is ignored). Used when no password is given. */
  keystorePasswordFile?: string;
  /** What the keys are for, in error messages (default `executor`; the deploy tool loads its `deployer`). */
  role?: string;
}

const PRIVATE_KEY = /^0x[0-9a-fA-F]{64}$/;

/**
 * Splits the configuration's comma-separated key list. Blank entries (a trailing comma, spaces) are dropped, so
 * an empty variable means no keys.
 */
export function parsePrivateKeyList(list: string): string[] {
  return list
    .split(',')
    .map((key) => key.trim())
    .filter((key) => key.length > 0);
}

/**
 * Loads the executor wallets. Errors name the entry by position or file path, never its key or password: they end
 * up in logs and start-up messages. Two entries for one address are refused, since two wallets sharing an account
 * would hand out the same nonces.
 */
export async function loadExecutorWallets(source: ExecutorKeySource): Promise<Wallet[]> {
  const role = source.role ?? 'executor';
  const wallets = (source.privateKeys ?? []).map((key, i) => walletFromKey(key, i, role));
  const files = source.keystoreFiles ?? [];
  if (files.length > 0) {
    const password = await keystorePassword(source);
    for (const file of files) wallets.push(await walletFromKeystore(file, password, role));
  }
  const seen = new Set<string>();
  for (const wallet of wallets) {
    if (seen.has(wallet.address)) throw new Error(`${role} address ${wallet.address} is configured twice`);
    seen.add(wallet.address);
  }
  return wallets;
}

function walletFromKey(key: string, index: number, role: string): Wallet {
  const position = `${role} private key #${index + 1}`;
  if (!PRIVATE_KEY.test(key.trim())) throw new Error(`${position} is not 0x followed by 64 hex digits`);
  try {
    return new Wallet(key.trim());
  } catch {
    // ethers puts the rejected value in its message: ours must not carry the key.
    throw new Error(`${position} is not a valid secp256k1 private key`);
  }
}

async function keystorePassword(source: ExecutorKeySource): Promise<string> {
  if (source.keystorePassword !== undefined && source.keystorePassword !== '') return source.keystorePassword;
  if (source.keystorePasswordFile) {
    let text: string;
    try {
      text = await readFile(source.keystorePasswordFile, 'utf8');
    } catch (err) {
      throw new Error(
        `cannot read the keystore password file ${source.keystorePasswordFile}: ${errorCode(err)}`,
      );
    }
    // Editors and `echo` add a final newline that is not part of the password.
    return text.replace(/\r?\n$/, '');
  }
  throw new Error('keystore files are configured but neither a keystore password nor a password file');
}

async function walletFromKeystore(file: string, password: string, role: string): Promise<Wallet> {
  let json: string;
  try {
    json = await readFile(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${role} keystore ${file}: ${errorCode(err)}`);
  }
  let decrypted: Awaited<ReturnType<typeof Wallet.fromEncryptedJson>>;
  try {
    decrypted = await Wallet.fromEncryptedJson(json, password);
  } catch {
    // ethers' messages can quote the argument it failed on; the file name is all an operator needs.
    throw new Error(`cannot decrypt ${role} keystore ${file}: wrong password or not a JSON keystore`);
  }
  // An HD keystore (with a mnemonic) decrypts to an HDNodeWallet; the executor only needs its key.
  return new Wallet(decrypted.privateKey);
}

/** The system error code (ENOENT, EACCES…) without the message, which is enough and holds nothing secret. */
function errorCode(err: unknown): string {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : 'unreadable';
}
