import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DevError } from './dev-error.js';
import type { RunAs } from './postgres-user.js';
import { blockingDirectory, isCode } from './reachable.js';
import { ensureOwnedDir, sharedRoot } from './shared-dir.js';

export type DataDirState = 'new' | 'cluster';

/**
 * Looks at the data directory before anything starts: a directory held by a running PostgreSQL,
 * one that holds something other than a cluster, or a cluster of another major version each stop
 * the start with a message naming the directory. A stale `postmaster.pid` (its process gone, or
 * its pid reused by another program) is left for PostgreSQL or removed.
 */
export async function inspectDataDir(dataDir: string, binaryMajor: string): Promise<DataDirState> {
  const entries = await readdir(dataDir).catch((error: unknown) => {
    if (isCode(error, 'ENOENT')) return null;
    throw error;
  });
  if (entries === null || entries.length === 0) return 'new';
  if (!entries.includes('PG_VERSION')) {
    throw new DevError(
      `The data directory ${dataDir} is not empty but holds no PostgreSQL cluster (no PG_VERSION file), ` +
        'perhaps from an interrupted first start. Delete it to start afresh, or choose another directory with --data-dir.',
    );
  }
  const version = (await readFile(join(dataDir, 'PG_VERSION'), 'utf8')).trim();
  if (version !== binaryMajor) {
    throw new DevError(
      `The data directory ${dataDir} was created by PostgreSQL ${version}, and queuebox dev embeds PostgreSQL ` +
        `${binaryMajor}. Delete the directory to start afresh (its data is lost), or choose another one with --data-dir.`,
    );
  }
  await refuseHeldDataDir(dataDir);
  return 'cluster';
}

export async function refuseHeldDataDir(dataDir: string): Promise<void> {
  const pidFile = join(dataDir, 'postmaster.pid');
  const text = await readFile(pidFile, 'utf8').catch(() => null);
  if (text === null) return;
  const pid = Number.parseInt(text.split('\n')[0] ?? '', 10);
  if (!Number.isInteger(pid) || pid <= 0 || !processAlive(pid)) return;
  const name = await processName(pid);
  if (name !== null && !name.startsWith('postgres')) {
    // The pid was reused by an unrelated program; PostgreSQL itself would refuse to start.
    await unlink(pidFile).catch(() => undefined);
    return;
  }
  throw new DevError(
    `The data directory ${dataDir} is in use by a running PostgreSQL (pid ${pid}), most likely another ` +
      `queuebox dev. Stop that one first (Ctrl-C in its terminal, or kill ${pid}), or give this one its own ` +
      'directory with --data-dir.',
  );
}

/** The port of the previous start, read from `postmaster.opts` (PostgreSQL writes its command line there). */
export async function previousPort(dataDir: string): Promise<number | null> {
  const text = await readFile(join(dataDir, 'postmaster.opts'), 'utf8').catch(() => null);
  const match = text === null ? null : /"-p" "(\d+)"/.exec(text);
  return match?.[1] === undefined ? null : Number.parseInt(match[1], 10);
}

export interface DataDirPlace {
  readonly dataDir: string;
  /** Why the data directory is not the one asked for; null when it is. */
  readonly movedBecause: string | null;
}

/**
 * Where the data directory goes. Under root the server runs as another user, who must reach it.
 * A movable one (the default `.queuebox/postgres` under the working directory) that this user
 * cannot reach moves to `<shared root>/data/<the asked path, as a name>/postgres`: the same
 * directory for every run from the same place, so the data is kept between runs. A directory
 * given on purpose, or one that already holds data, stays where it is (the start then names
 * what blocks it), so data never appears to vanish.
 */
export async function placeDataDir(
  wanted: string,
  runAs: RunAs | null,
  movable: boolean,
  shared: string = sharedRoot(),
): Promise<DataDirPlace> {
  const asked = { dataDir: wanted, movedBecause: null };
  if (runAs === null || !movable) return asked;
  const blocked = await blockingDirectory(wanted, runAs);
  if (blocked === null) return asked;
  const existing = await readdir(wanted).catch(() => []);
  if (existing.length > 0) return asked;
  const parent = join(shared, 'data');
  const home = join(parent, dataDirName(wanted));
  for (const dir of [shared, parent, home]) await ensureOwnedDir(dir);
  return {
    dataDir: join(home, 'postgres'),
    movedBecause: `the user '${runAs.name}' cannot enter ${blocked}`,
  };
}

/**
 * A readable, unique directory name for a path: its last segments (whole ones, up to about 48
 * characters, leading dots dropped), plus a hash of all of it.
 */
export function dataDirName(path: string): string {
  const segments = path
    .split(/[\\/]+/)
    .map((segment) => segment.replace(/^\.+/, '').replace(/[^A-Za-z0-9._-]+/g, '-'))
    .filter((segment) => segment !== '');
  const kept: string[] = [];
  for (const segment of segments.reverse()) {
    if (kept.length > 0 && [segment, ...kept].join('-').length > 48) break;
    kept.unshift(segment.slice(-48));
  }
  const hash = createHash('sha256').update(path).digest('hex').slice(0, 10);
  return [...kept, hash].join('-');
}

/**
 * Creates the data directory (and its parents, enterable by everyone whatever the umask) and
 * hands it to the user the server runs as.
 */
export async function prepareDataDir(dataDir: string, runAs: RunAs | null): Promise<void> {
  const parent = dirname(dataDir);
  const first = await mkdir(parent, { recursive: true, mode: 0o755 });
  if (first !== undefined) {
    for (let dir = parent; dir.length >= first.length; dir = dirname(dir)) await chmod(dir, 0o755);
  }
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs === null) return;
  await chown(dataDir, runAs.uid, runAs.gid);
  await chmod(dataDir, 0o700);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error: unknown) {
    return isCode(error, 'EPERM');
  }
}

/** The program name of a process where /proc tells it (Linux); null elsewhere. */
async function processName(pid: number): Promise<string | null> {
  return readFile(`/proc/${pid}/comm`, 'utf8').then(
    (name) => name.trim(),
    () => null,
  );
}
