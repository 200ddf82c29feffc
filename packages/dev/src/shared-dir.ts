import { existsSync } from 'node:fs';
import { chmod, lstat, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DevError } from './dev-error.js';
import { isCode } from './reachable.js';

/**
 * Where root keeps what the `postgres` user must reach when the checkout is in a directory that
 * user cannot enter: the copied server programs and the moved data directories. /var/tmp, because
 * it survives a reboot (the data is kept between runs) and every user can enter it.
 */
export function sharedRoot(): string {
  return existsSync('/var/tmp') ? '/var/tmp/queuebox-dev' : join(tmpdir(), 'queuebox-dev');
}

/**
 * Creates `dir` (open to read and enter, writable by its owner only) or accepts an existing one
 * only when this user owns it and nobody else may write into it. /var/tmp is writable by
 * everyone, so a directory someone else made there first could hold programs that root would
 * run, or a data directory that another user can swap.
 */
export async function ensureOwnedDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { mode: 0o755 });
    await chmod(dir, 0o755); // the umask may have narrowed it
  } catch (error: unknown) {
    if (!isCode(error, 'EEXIST')) throw error;
  }
  const info = await lstat(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : info.uid;
  if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o022) !== 0) {
    throw new DevError(
      `${dir} is not a directory that only this user (uid ${uid}) may write to ` +
        `(${info.isDirectory() ? `owner uid ${info.uid}, mode ${(info.mode & 0o777).toString(8)}` : 'not a directory'}), ` +
        'so queuebox dev will not keep PostgreSQL programs or data in it. Remove it and start again.',
    );
  }
}
