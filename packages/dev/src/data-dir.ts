import { chmod, chown, mkdir, readdir, readFile, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { DevError } from './dev-error.js';
import type { RunAs } from './postgres-user.js';

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

/**
 * Creates the data directory (and its parents, readable by everyone) and hands it to the user
 * the server runs as.
 */
export async function prepareDataDir(dataDir: string, runAs: RunAs | null): Promise<void> {
  await mkdir(dirname(dataDir), { recursive: true, mode: 0o755 });
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  if (runAs === null) return;
  await chown(dataDir, runAs.uid, runAs.gid);
  await chmod(dataDir, 0o700);
}

/**
 * Under root the server runs as another user, who must be able to walk down to `path`; a home
 * directory such as /root forbids that. Reported here, before initdb or postgres fails on it.
 */
export async function assertReachable(
  path: string,
  runAs: RunAs,
  what: string,
  remedy: string,
): Promise<void> {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const info = await stat(dir);
    const bit = info.uid === runAs.uid ? 0o100 : info.gid === runAs.gid ? 0o010 : 0o001;
    if ((info.mode & bit) === 0) {
      throw new DevError(
        `The embedded PostgreSQL runs as the user '${runAs.name}' (PostgreSQL does not run as root), and that user ` +
          `cannot enter ${dir}, so it cannot reach ${what} ${path}. ${remedy}`,
      );
    }
    if (dirname(dir) === dir) return;
  }
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

export function isCode(error: unknown, code: string): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === code;
}
