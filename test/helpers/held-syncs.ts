import { readlinkSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';

/** FileHandle's prototype, whose `datasync` the tests hold back: the real fdatasync runs once released. */
export async function fileHandlePrototype(file: string): Promise<FileHandle> {
  const handle = await open(file, 'r');
  await handle.close();
  return Object.getPrototypeOf(handle) as FileHandle;
}

export interface HeldSync {
  /** The file each datasync was called on, in call order. */
  files: string[];
  /** Releases the oldest held datasync (it then syncs for real). */
  releaseOne(): void;
  /** Datasyncs called and not released yet. */
  held(): number;
}

/** Every datasync of the test waits until released, then runs for real. */
export function holdSyncs(proto: FileHandle): HeldSync {
  const original = proto.datasync;
  const gates: Array<() => void> = [];
  const files: string[] = [];
  jest.spyOn(proto, 'datasync').mockImplementation(async function (this: FileHandle) {
    files.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    await new Promise<void>((resolve) => gates.push(resolve));
    return original.call(this);
  });
  return { files, releaseOne: () => gates.shift()?.(), held: () => gates.length };
}

/** Whether `p` settled within 50 ms. */
export const settled = async <T>(p: Promise<T>): Promise<'resolved' | 'rejected' | 'pending'> => {
  const marker = Symbol('pending');
  const outcome = await Promise.race([
    p.then(
      () => 'resolved' as const,
      () => 'rejected' as const,
    ),
    new Promise<symbol>((resolve) => setTimeout(() => resolve(marker), 50)),
  ]);
  return outcome === marker ? 'pending' : (outcome as 'resolved' | 'rejected');
};

/** Polls `check` every 5 ms for up to 5 s. */
export async function until(check: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met within 5 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
