import { chmodSync, chownSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { assertReachable, blockingDirectory } from './reachable.js';
import { ensureOwnedDir } from './shared-dir.js';

/** A user that owns nothing here, so only the "other" permission bits apply to it. */
const stranger = { uid: 4_000_000, gid: 4_000_000, name: 'stranger' };

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function scratch(mode: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-dev-reach-'));
  chmodSync(dir, mode);
  made.push(dir);
  return dir;
}

describe('what the server user can reach', () => {
  it('names the first directory above a path that the user may not enter', async () => {
    const open = scratch(0o755);
    const closed = join(open, 'home');
    mkdirSync(join(closed, 'checkout', '.queuebox'), { recursive: true });
    chmodSync(closed, 0o700);
    const data = join(closed, 'checkout', '.queuebox', 'postgres');
    expect(await blockingDirectory(data, stranger)).toBe(closed);
    await expect(assertReachable(data, stranger, 'the data directory', 'Move it.')).rejects.toThrow(
      `and that user cannot enter ${closed}, so it cannot reach the data directory ${data}. Move it.`,
    );
    chmodSync(closed, 0o711); // search without read is enough to walk through
    expect(await blockingDirectory(data, stranger)).toBeNull();
  });

  it('skips directories that do not exist yet', async () => {
    const open = scratch(0o755);
    expect(await blockingDirectory(join(open, 'a', 'b', 'postgres'), stranger)).toBeNull();
  });
});

describe('a directory only its owner may write to', () => {
  it('creates one open to enter whatever the umask, and accepts it again', async () => {
    const dir = join(scratch(0o755), 'shared');
    const umask = process.umask(0o077);
    try {
      await ensureOwnedDir(dir);
    } finally {
      process.umask(umask);
    }
    expect(await blockingDirectory(join(dir, 'x'), stranger)).toBeNull();
    await expect(ensureOwnedDir(dir)).resolves.toBeUndefined();
  });

  it('refuses one that others may write to, or that someone else owns', async () => {
    const writable = join(scratch(0o755), 'shared');
    mkdirSync(writable);
    chmodSync(writable, 0o777);
    await expect(ensureOwnedDir(writable)).rejects.toThrow(
      `${writable} is not a directory that only this user`,
    );
    if (process.getuid?.() === 0) {
      const foreign = join(scratch(0o755), 'shared');
      mkdirSync(foreign, { mode: 0o755 });
      chownSync(foreign, stranger.uid, stranger.gid);
      await expect(ensureOwnedDir(foreign)).rejects.toThrow(`owner uid ${stranger.uid}`);
    }
  });
});
