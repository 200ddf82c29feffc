import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { DevError } from './dev-error.js';
import type { RunAs } from './postgres-user.js';

/**
 * The first directory above `path` that `runAs` may not enter (no search permission for it as
 * owner, group or other), or null when it can walk all the way down. Directories that do not
 * exist yet are skipped: they are created later, open to everyone. Supplementary groups are not
 * consulted, so the answer errs towards "blocked".
 */
export async function blockingDirectory(path: string, runAs: RunAs): Promise<string | null> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const info = await stat(dir).catch((error: unknown) => {
      if (isCode(error, 'ENOENT')) return null;
      throw error;
    });
    if (info !== null) {
      const bit = info.uid === runAs.uid ? 0o100 : info.gid === runAs.gid ? 0o010 : 0o001;
      if ((info.mode & bit) === 0) return dir;
    }
    if (dirname(dir) === dir) return null;
  }
}

/**
 * Under root the server runs as another user, who must be able to walk down to `path`; a home
 * directory such as /root forbids that. Reported before initdb or postgres fails on it.
 */
export async function assertReachable(
  path: string,
  runAs: RunAs,
  what: string,
  remedy: string,
): Promise<void> {
  const blocked = await blockingDirectory(path, runAs);
  if (blocked === null) return;
  throw new DevError(
    `The PostgreSQL server runs as the user '${runAs.name}' (PostgreSQL does not run as root), and that user ` +
      `cannot enter ${blocked}, so it cannot reach ${what} ${path}. ${remedy}`,
  );
}

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
