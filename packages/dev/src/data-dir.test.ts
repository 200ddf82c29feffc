import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inspectDataDir, previousPort } from './data-dir.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function scratch(): string {
  const dir = mkdtempSync(join(tmpdir(), 'queuebox-dev-unit-'));
  made.push(dir);
  return dir;
}

function cluster(version = '18'): string {
  const dir = join(scratch(), 'postgres');
  mkdirSync(dir);
  writeFileSync(join(dir, 'PG_VERSION'), `${version}\n`);
  return dir;
}

describe('the data directory check', () => {
  it('takes a missing or empty directory as new, and a cluster of the same major as one', async () => {
    const base = scratch();
    expect(await inspectDataDir(join(base, 'none'), '18')).toBe('new');
    expect(await inspectDataDir(base, '18')).toBe('new');
    expect(await inspectDataDir(cluster(), '18')).toBe('cluster');
  });

  it('refuses a directory that holds something else, or a cluster of another major, naming it', async () => {
    const base = scratch();
    writeFileSync(join(base, 'notes.txt'), 'x');
    await expect(inspectDataDir(base, '18')).rejects.toThrow(
      `The data directory ${base} is not empty but holds no PostgreSQL cluster`,
    );
    const old = cluster('16');
    await expect(inspectDataDir(old, '18')).rejects.toThrow(
      `The data directory ${old} was created by PostgreSQL 16`,
    );
  });

  it('refuses a directory whose postmaster.pid names a running PostgreSQL', async () => {
    const dir = cluster();
    // This test's own process stands in for a live server only where /proc cannot say it is not one.
    writeFileSync(join(dir, 'postmaster.pid'), `${process.pid}\n${dir}\n`);
    if (existsSync('/proc/self/comm')) {
      // Linux: the pid is alive but is node, so the file is stale and removed.
      expect(await inspectDataDir(dir, '18')).toBe('cluster');
      expect(existsSync(join(dir, 'postmaster.pid'))).toBe(false);
    } else {
      await expect(inspectDataDir(dir, '18')).rejects.toThrow(
        `is in use by a running PostgreSQL (pid ${process.pid})`,
      );
    }
  });

  it('leaves a postmaster.pid of a process that is gone to PostgreSQL', async () => {
    const dir = cluster();
    writeFileSync(join(dir, 'postmaster.pid'), '999999999\n');
    expect(await inspectDataDir(dir, '18')).toBe('cluster');
  });

  it('reads the previous port from postmaster.opts', async () => {
    const dir = cluster();
    expect(await previousPort(dir)).toBeNull();
    writeFileSync(
      join(dir, 'postmaster.opts'),
      `/x/bin/postgres "-D" "${dir}" "-p" "45567" "-c" "listen_addresses=127.0.0.1"\n`,
    );
    expect(await previousPort(dir)).toBe(45567);
  });
});
