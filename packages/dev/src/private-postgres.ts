import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmod,
  chown,
  mkdtemp,
  open,
  readdir,
  readFile,
  unlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { silentLogger, toError, type Logger } from '@queuebox/core';
import { reachableBinaries } from './binary-copy.js';
import type { PostgresBinaries } from './binaries.js';
import { prepareDataDir, refuseHeldDataDir } from './data-dir.js';
import { DevError } from './dev-error.js';
import { LOOPBACK } from './ports.js';
import { postgresRunAs, type RunAs } from './postgres-user.js';
import { assertReachable } from './reachable.js';

const run = promisify(execFile);

const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;

/**
 * A PostgreSQL server of its own, on 127.0.0.1 only, for `queuebox dev` and for tests that must
 * stop, crash or cut a database without touching the machine's shared one (architecture §7:
 * `initdb` and `postgres` on a free port). Under root it runs as the system user `postgres`
 * (created when missing), with its programs and data where that user can reach them.
 */
export interface PrivatePostgresOptions {
  readonly binaries: PostgresBinaries;
  /** Absolute; a cluster is created in it when it is missing or empty, and reused otherwise. */
  readonly dataDir: string;
  readonly port: number;
  /** Default `postgres`/`postgres`: only the loopback address listens. */
  readonly username?: string;
  readonly password?: string;
  /** Created when missing; default `postgres` (always there). */
  readonly database?: string;
  /** Extra server settings, as `-c name=value` (e.g. `{ fsync: 'off' }` for a test). */
  readonly settings?: Readonly<Record<string, string>>;
  readonly logger?: Logger;
  /** What to tell the person when the port or the data directory is taken (the dev command names its options). */
  readonly remedies?: { readonly port?: string; readonly dataDir?: string };
}

export interface PrivatePostgres {
  readonly pid: number;
  readonly port: number;
  readonly dataDir: string;
  readonly database: string;
  readonly username: string;
  readonly password: string;
  /** `postgres://user:password@127.0.0.1:port/database`. */
  readonly url: string;
  /** The server's own log (it does not write to the terminal). */
  readonly logFile: string;
  /** True when this start created the cluster. */
  readonly created: boolean;
  /** The programs the server runs: a reachable copy when the given ones were not reachable. */
  readonly binaries: PostgresBinaries;
  /** Fast shutdown (SIGINT), then SIGQUIT, then SIGKILL, waited for; at once when already gone. */
  stop(): Promise<void>;
}

/** A fresh directory, enterable by the server's user, to create a throwaway cluster in (`<it>/data`). */
export async function scratchDataDir(label: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), `queuebox-pg-${label}-`));
  await chmod(dir, 0o755);
  return join(dir, 'data');
}

/** Creates the cluster when needed, starts the server and resolves once it answers a login. */
export async function startPrivatePostgres(
  options: PrivatePostgresOptions,
): Promise<PrivatePostgres> {
  const { dataDir, port } = options;
  const logger = options.logger ?? silentLogger;
  if (!isAbsolute(dataDir))
    throw new DevError(`The data directory must be an absolute path, not '${dataDir}'.`);
  const username = options.username ?? 'postgres';
  const password = options.password ?? 'postgres';
  const database = options.database ?? 'postgres';
  const remedies = {
    port: options.remedies?.port ?? 'Stop what holds it, or choose another port.',
    dataDir:
      options.remedies?.dataDir ?? 'Stop that one first, or give this one its own data directory.',
  };
  const runAs = await postgresRunAs(logger);
  const binaries =
    runAs === null ? options.binaries : await reachableBinaries(options.binaries, runAs, logger);
  await prepareDataDir(dataDir, runAs);
  if (runAs !== null) {
    await assertReachable(
      dataDir,
      runAs,
      'the data directory',
      'Choose a data directory that user can reach (for example under /var/tmp).',
    );
  }
  const created = (await readdir(dataDir)).length === 0;
  if (created) {
    await initdb(dataDir, username, password, binaries, runAs);
    logger.info(`Created a PostgreSQL cluster in ${dataDir}.`);
  }
  await refuseHeldDataDir(dataDir);

  const logFile = join(dirname(dataDir), `${basename(dataDir)}.log`);
  const log = await open(logFile, 'a');
  const logStart = (await log.stat()).size;
  const settings = {
    listen_addresses: LOOPBACK,
    // No socket file: the machine's own server owns /var/run/postgresql.
    unix_socket_directories: '',
    ...options.settings,
  };
  let child: ChildProcess;
  try {
    child = spawn(
      binaries.postgres,
      [
        '-D',
        dataDir,
        '-p',
        String(port),
        ...Object.entries(settings).flatMap(([name, value]) => ['-c', `${name}=${value}`]),
      ],
      {
        ...(runAs === null ? {} : { uid: runAs.uid, gid: runAs.gid }),
        cwd: dirname(dataDir),
        env: { ...process.env, LC_MESSAGES: 'C' },
        // Its own process group: Ctrl-C in the terminal reaches the Node process only, which
        // stops what depends on the server first, then the server.
        detached: true,
        stdio: ['ignore', log.fd, log.fd],
      },
    );
  } finally {
    await log.close();
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  // Last resort when the process ends without stop() (an uncaught error): the server must not outlive it.
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', onExit);

  let stopping = false;
  const stop = async (): Promise<void> => {
    stopping = true;
    process.off('exit', onExit);
    if (child.exitCode !== null || child.signalCode !== null) return;
    for (const [signal, waitMs] of [
      ['SIGINT', STOP_TIMEOUT_MS],
      ['SIGQUIT', 5000],
      ['SIGKILL', 5000],
    ] as const) {
      child.kill(signal);
      if (await settlesWithin(exited, waitMs)) return;
    }
  };
  void exited.then(({ code, signal }) => {
    if (!stopping) {
      logger.error(
        `The PostgreSQL server on port ${port} stopped unexpectedly (${signal ?? `exit code ${code}`}); its log is ${logFile}.`,
      );
    }
  });

  const server = { port, dataDir, database, username, password, logFile, remedies };
  try {
    await waitUntilReady(server, exited, spawnError, logStart);
  } catch (error: unknown) {
    await stop();
    throw error;
  }
  return {
    pid: child.pid ?? 0,
    port,
    dataDir,
    database,
    username,
    password,
    url: `postgres://${username}:${password}@${LOOPBACK}:${port}/${database}`,
    logFile,
    created,
    binaries,
    stop,
  };
}

async function initdb(
  dataDir: string,
  username: string,
  password: string,
  binaries: PostgresBinaries,
  runAs: RunAs | null,
): Promise<void> {
  // The password goes through a file only the server's user can read, deleted right after.
  const pwfile = join(dirname(dataDir), `.pwfile-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${password}\n`, { mode: 0o600 });
  try {
    if (runAs !== null) await chown(pwfile, runAs.uid, runAs.gid);
    await run(
      binaries.initdb,
      [
        `--pgdata=${dataDir}`,
        `--username=${username}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        // The C locale goes with any encoding on every platform; UTF8 keeps JSON payloads intact.
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      {
        ...(runAs === null ? {} : { uid: runAs.uid, gid: runAs.gid }),
        cwd: dirname(dataDir),
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
  } catch (error: unknown) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new DevError(
      `initdb could not create a PostgreSQL cluster in ${dataDir}: ${typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim() : toError(error).message}`,
    );
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
}

interface Server {
  readonly port: number;
  readonly dataDir: string;
  readonly database: string;
  readonly username: string;
  readonly password: string;
  readonly logFile: string;
  readonly remedies: { readonly port: string; readonly dataDir: string };
}

/** Polls with a real login until the server answers, then creates the database when missing. */
async function waitUntilReady(
  server: Server,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  spawnError: Promise<Error>,
  logStart: number,
): Promise<void> {
  let gone: { code: number | null; signal: NodeJS.Signals | null } | Error | null = null;
  void exited.then((result) => (gone ??= result));
  void spawnError.then((error) => (gone ??= error));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    if (gone !== null) throw await startFailure(server, gone, logStart);
    const sql = postgres({
      host: LOOPBACK,
      port: server.port,
      user: server.username,
      pass: server.password,
      database: 'postgres',
      max: 1,
      connect_timeout: 2,
      onnotice: () => undefined,
    });
    try {
      const found = await sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${server.database}`;
      if (found[0]?.n === 0)
        await sql.unsafe(`CREATE DATABASE "${server.database.replaceAll('"', '""')}"`);
      return;
    } catch (error: unknown) {
      lastError = error;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new DevError(
    `The PostgreSQL server did not answer on port ${server.port} within ${READY_TIMEOUT_MS / 1000} s ` +
      `(last error: ${toError(lastError).message}); its log is ${server.logFile}.`,
  );
}

async function startFailure(
  server: Server,
  gone: { code: number | null; signal: NodeJS.Signals | null } | Error,
  logStart: number,
): Promise<DevError> {
  if (gone instanceof Error)
    return new DevError(`The PostgreSQL server could not be started: ${gone.message}`);
  const log = (await readFile(server.logFile, 'utf8').catch(() => '')).slice(logStart);
  if (/could not bind .*Address already in use|could not create any TCP\/IP sockets/.test(log)) {
    return new DevError(
      `Port ${server.port} on ${LOOPBACK} is in use, so the PostgreSQL server cannot listen there. ${server.remedies.port}`,
    );
  }
  if (log.includes('lock file "postmaster.pid" already exists')) {
    return new DevError(
      `The data directory ${server.dataDir} is in use by another running PostgreSQL. ${server.remedies.dataDir}`,
    );
  }
  const tail = log.trim().split('\n').slice(-5).join(' / ');
  return new DevError(
    `The PostgreSQL server exited during its start (${gone.signal ?? `exit code ${gone.code}`}): ${tail || 'no output'}. Its log is ${server.logFile}.`,
  );
}

function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void promise.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
