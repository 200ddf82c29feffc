import { randomBytes } from 'node:crypto';
import { chmod, cp, lstat, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { toError, type Logger } from '@queuebox/core';
import type { PostgresBinaries } from './binaries.js';
import { DevError } from './dev-error.js';
import type { RunAs } from './postgres-user.js';
import { blockingDirectory } from './reachable.js';
import { ensureOwnedDir, sharedRoot } from './shared-dir.js';

const COMPLETE = '.queuebox-copy-complete';

/**
 * The binaries as the server's user can run them. Where that user cannot reach them (a checkout
 * under /root puts node_modules there), a relocatable installation is copied once per version
 * into `<shared root>/postgres/<copy key>`, owned by root and readable by everyone, and the copy
 * is used from then on. A copy is built beside its final name and renamed into place, so two
 * starts at once, or one interrupted, never leave a half copy in use.
 */
export async function reachableBinaries(
  binaries: PostgresBinaries,
  runAs: RunAs,
  logger: Logger,
  shared: string = sharedRoot(),
): Promise<PostgresBinaries> {
  const blocked =
    (await blockingDirectory(binaries.postgres, runAs)) ??
    (await blockingDirectory(binaries.initdb, runAs));
  if (blocked === null) return binaries;
  if (binaries.copyKey === null) {
    throw new DevError(
      `The PostgreSQL server runs as the user '${runAs.name}' (PostgreSQL does not run as root), and that user ` +
        `cannot enter ${blocked}, so it cannot run the programs in ${binaries.source}. Make that directory ` +
        `enterable for '${runAs.name}', or use an installation it can reach.`,
    );
  }
  const prefix = dirname(dirname(binaries.postgres));
  const parent = join(shared, 'postgres');
  await ensureOwnedDir(shared);
  await ensureOwnedDir(parent);
  const target = join(parent, binaries.copyKey);
  const moved = (path: string) => join(target, relative(prefix, path));
  const copied = {
    ...binaries,
    initdb: moved(binaries.initdb),
    postgres: moved(binaries.postgres),
  };
  if (await isComplete(target, binaries.copyKey)) return copied;

  const partial = `${target}.partial-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await cp(prefix, partial, { recursive: true, verbatimSymlinks: true });
    await openToAll(partial);
    await writeFile(join(partial, COMPLETE), `${binaries.copyKey}\n`, { mode: 0o644 });
    await rename(partial, target).catch(async (error: unknown) => {
      // Another start renamed its copy first: use that one. Anything else there is not ours.
      if (await isComplete(target, binaries.copyKey ?? '')) return;
      throw new DevError(
        `${target} exists but is not a finished copy of the PostgreSQL programs (${toError(error).message}). ` +
          'Remove it and start again.',
      );
    });
  } finally {
    await rm(partial, { recursive: true, force: true });
  }
  logger.info(
    `Copied the PostgreSQL programs of ${binaries.source} to ${target}, where the user '${runAs.name}' can ` +
      `run them (it cannot enter ${blocked}); later starts reuse the copy.`,
  );
  return copied;
}

async function isComplete(target: string, key: string): Promise<boolean> {
  const marker = await readFile(join(target, COMPLETE), 'utf8').catch(() => null);
  if (marker?.trim() !== key) return false;
  await ensureOwnedDir(target); // refuses a copy that someone else could have changed
  return true;
}

/** Directories enterable by everyone, files readable by everyone; nothing writable but by root. */
async function openToAll(dir: string): Promise<void> {
  await chmod(dir, 0o755);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await openToAll(path);
    else if (entry.isFile()) {
      const mode = (await lstat(path)).mode & 0o777;
      await chmod(path, (mode | 0o444 | (mode & 0o100 ? 0o111 : 0)) & ~0o022);
    }
  }
}
