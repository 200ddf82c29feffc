import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dataDirName, inspectDataDir, placeDataDir, previousPort } from './data-dir.js';
import { blockingDirectory } from './reachable.js';

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

describe('where the data directory goes', () => {
  const stranger = { uid: 4_000_000, gid: 4_000_000, name: 'stranger' };

  /** mkdtemp makes mode 0700; the shared directory's parent must be open, as /var/tmp is. */
  function openDir(): string {
    const dir = scratch();
    chmodSync(dir, 0o755);
    return dir;
  }

  function privateCheckout(): string {
    const home = scratch();
    chmodSync(home, 0o700);
    return join(home, 'checkout', '.queuebox', 'postgres');
  }

  it('keeps a reachable, a chosen, or a non-root data directory where it was asked', async () => {
    const shared = join(openDir(), 'queuebox-dev');
    const open = join(openDir(), '.queuebox', 'postgres');
    expect(await placeDataDir(open, stranger, true, shared)).toEqual({
      dataDir: open,
      movedBecause: null,
    });
    const closed = privateCheckout();
    expect((await placeDataDir(closed, stranger, false, shared)).dataDir).toBe(closed);
    expect((await placeDataDir(closed, null, true, shared)).dataDir).toBe(closed);
    expect(existsSync(shared)).toBe(false);
  });

  it('moves the default one out of a private directory, to the same place every time', async () => {
    const shared = join(openDir(), 'queuebox-dev');
    const wanted = privateCheckout();
    const home = dirname(dirname(dirname(wanted)));
    const first = await placeDataDir(wanted, stranger, true, shared);
    expect(first).toEqual({
      dataDir: join(shared, 'data', dataDirName(wanted), 'postgres'),
      movedBecause: `the user 'stranger' cannot enter ${home}`,
    });
    expect(await placeDataDir(wanted, stranger, true, shared)).toEqual(first);
    expect(await blockingDirectory(first.dataDir, stranger)).toBeNull();
  });

  it('leaves data that is already there in place', async () => {
    const shared = join(openDir(), 'queuebox-dev');
    const wanted = privateCheckout();
    mkdirSync(wanted, { recursive: true });
    writeFileSync(join(wanted, 'PG_VERSION'), '18\n');
    expect((await placeDataDir(wanted, stranger, true, shared)).dataDir).toBe(wanted);
  });

  it('names a moved directory by the end of the asked path and a hash of all of it', () => {
    expect(dataDirName('/root/shop/.queuebox/postgres')).toMatch(
      /^root-shop-queuebox-postgres-[0-9a-f]{10}$/,
    );
    expect(dataDirName('/root/a/.queuebox/postgres')).not.toBe(
      dataDirName('/root/b/.queuebox/postgres'),
    );
    const deep = dataDirName(`/${'x'.repeat(30)}/${'y'.repeat(30)}/.queuebox/postgres`);
    expect(deep).toMatch(/^y{30}-queuebox-postgres-[0-9a-f]{10}$/);
  });
});
