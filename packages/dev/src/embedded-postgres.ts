import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, open, readFile, unlink, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { toError, type Logger } from '@queuebox/core';
import { findPostgresBinaries, type PostgresBinaries } from './binaries.js';
import {
  assertReachable,
  inspectDataDir,
  prepareDataDir,
  previousPort,
  refuseHeldDataDir,
} from './data-dir.js';
import { DevError } from './dev-error.js';
import { freePort, LOOPBACK, portIsFree } from './ports.js';
import { postgresRunAs, type RunAs } from './postgres-user.js';

const run = promisify(execFile);

/** The port of the machine's own PostgreSQL: never chosen, whatever the previous start used. */
const SYSTEM_POSTGRES_PORT = 5432;
const READY_TIMEOUT_MS = 60_000;
const STOP_TIMEOUT_MS = 20_000;
/** Only the loopback address listens, so the well-known password costs nothing. */
const USERNAME = 'postgres';
const PASSWORD = 'postgres';

export interface EmbeddedPostgresOptions {
  /** Absolute; created on the first start and reused by later ones. */
  readonly dataDir: string;
  /** A fixed port; by default the previous start's port when free, else a free one. */
  readonly port?: number;
  /** The database QueueBox and the application use; created when missing. */
  readonly database?: string;
}

/** What an application needs to reach the embedded server. */
export interface EmbeddedPostgresAddress {
  readonly dataDir: string;
  readonly port: number;
  readonly database: string;
  readonly username: string;
  readonly password: string;
  /** `postgres://user:password@127.0.0.1:port/database`, the URL an application writes outbox rows with. */
  readonly url: string;
  /** The same address in the `jdbc:postgresql://` form of QueueBox's `database.url`. */
  readonly jdbcUrl: string;
  /** PostgreSQL's version, e.g. `18.4`. */
  readonly version: string;
}

export interface PreparedPostgres extends EmbeddedPostgresAddress {
  /** Creates the cluster on the first run, starts the server and the database; resolves when it answers. */
  start(logger: Logger): Promise<EmbeddedPostgres>;
}

export interface EmbeddedPostgres extends EmbeddedPostgresAddress {
  readonly pid: number;
  /** The server's own log (it does not write to the terminal). */
  readonly logFile: string;
  /** True when this start created the cluster. */
  readonly created: boolean;
  /** Fast shutdown (SIGINT), waited for; resolves at once when the server is already gone. */
  stop(): Promise<void>;
}

/**
 * Checks everything that can be checked before a process starts (binaries, data directory,
 * port) and fixes the address, so the caller can build its configuration first.
 */
export async function prepareEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<PreparedPostgres> {
  const { dataDir } = options;
  if (!isAbsolute(dataDir))
    throw new DevError(`The data directory must be an absolute path, not '${dataDir}'.`);
  const binaries = await findPostgresBinaries();
  const version = await postgresVersion(binaries);
  const major = version.split('.')[0] ?? version;
  const state = await inspectDataDir(dataDir, major);
  const port = await choosePort(
    options.port,
    state === 'cluster' ? await previousPort(dataDir) : null,
  );
  const database = options.database ?? 'queuebox';
  const address: EmbeddedPostgresAddress = {
    dataDir,
    port,
    database,
    username: USERNAME,
    password: PASSWORD,
    url: `postgres://${USERNAME}:${PASSWORD}@${LOOPBACK}:${port}/${database}`,
    jdbcUrl: `jdbc:postgresql://${LOOPBACK}:${port}/${database}`,
    version,
  };
  return { ...address, start: (logger) => startServer(address, binaries, state === 'new', logger) };
}

async function choosePort(fixed: number | undefined, previous: number | null): Promise<number> {
  if (fixed !== undefined) {
    if (!(await portIsFree(fixed))) {
      throw new DevError(
        `Port ${fixed} on ${LOOPBACK} is in use, so the embedded PostgreSQL cannot listen there. Stop what holds ` +
          'it, choose another port with --postgres-port, or leave the option out to get a free port.',
      );
    }
    return fixed;
  }
  // Reusing the previous port keeps the printed URL stable across restarts.
  if (previous !== null && previous !== SYSTEM_POSTGRES_PORT && (await portIsFree(previous)))
    return previous;
  for (;;) {
    const port = await freePort();
    if (port !== SYSTEM_POSTGRES_PORT) return port;
  }
}

async function postgresVersion(binaries: PostgresBinaries): Promise<string> {
  try {
    const { stdout } = await run(binaries.postgres, ['--version']);
    return /(\d+(?:\.\d+)?)/.exec(stdout)?.[1] ?? stdout.trim();
  } catch (error: unknown) {
    throw new DevError(
      `The embedded PostgreSQL of ${binaries.packageName} does not run here: ${toError(error).message}`,
    );
  }
}

async function startServer(
  address: EmbeddedPostgresAddress,
  binaries: PostgresBinaries,
  create: boolean,
  logger: Logger,
): Promise<EmbeddedPostgres> {
  const { dataDir } = address;
  const runAs = await postgresRunAs(logger);
  await prepareDataDir(dataDir, runAs);
  if (runAs !== null) {
    await assertReachable(
      dataDir,
      runAs,
      'the data directory',
      'Run queuebox dev from a directory that user can reach, or choose one with --data-dir (for example /var/tmp/queuebox-dev/postgres).',
    );
    await assertReachable(
      binaries.postgres,
      runAs,
      'the PostgreSQL programs in',
      'Put the QueueBox checkout where that user can reach it (not under /root), or run queuebox dev as another user.',
    );
  }
  if (create) {
    await initdb(address, binaries, runAs);
    logger.info(`Created a PostgreSQL ${address.version} cluster in ${dataDir}.`);
  }
  // A second queuebox dev may have started between the first look and now.
  await refuseHeldDataDir(dataDir);

  const logFile = join(dirname(dataDir), `${basename(dataDir)}.log`);
  const log = await open(logFile, 'a');
  const logStart = (await log.stat()).size;
  let child: ChildProcess;
  try {
    child = spawn(
      binaries.postgres,
      [
        '-D',
        dataDir,
        '-p',
        String(address.port),
        '-c',
        `listen_addresses=${LOOPBACK}`,
        '-c',
        'unix_socket_directories=',
      ],
      {
        ...(runAs === null ? {} : { uid: runAs.uid, gid: runAs.gid }),
        cwd: dirname(dataDir),
        env: { ...process.env, LC_MESSAGES: 'C' },
        // Its own process group: Ctrl-C in the terminal reaches QueueBox only, which drains and
        // then stops the server, instead of the server going down under the drain.
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
        `The embedded PostgreSQL stopped unexpectedly (${signal ?? `exit code ${code}`}); its log is ${logFile}.`,
      );
    }
  });

  try {
    await waitUntilReady(address, exited, spawnError, logFile, logStart);
  } catch (error: unknown) {
    await stop();
    throw error;
  }
  return { ...address, pid: child.pid ?? 0, logFile, created: create, stop };
}

async function initdb(
  address: EmbeddedPostgresAddress,
  binaries: PostgresBinaries,
  runAs: RunAs | null,
): Promise<void> {
  // The password goes through a file only the server's user can read, deleted right after.
  const pwfile = join(dirname(address.dataDir), `.pwfile-${randomBytes(6).toString('hex')}`);
  await writeFile(pwfile, `${address.password}\n`, { mode: 0o600 });
  try {
    if (runAs !== null) await chown(pwfile, runAs.uid, runAs.gid);
    await run(
      binaries.initdb,
      [
        `--pgdata=${address.dataDir}`,
        `--username=${address.username}`,
        `--pwfile=${pwfile}`,
        '--auth=scram-sha-256',
        // The C locale goes with any encoding on every platform; UTF8 keeps JSON payloads intact.
        '--encoding=UTF8',
        '--locale=C',
        '--no-instructions',
      ],
      {
        ...(runAs === null ? {} : { uid: runAs.uid, gid: runAs.gid }),
        cwd: dirname(address.dataDir),
        env: { ...process.env, LC_MESSAGES: 'C' },
      },
    );
  } catch (error: unknown) {
    const stderr = (error as { stderr?: unknown }).stderr;
    throw new DevError(
      `initdb could not create a PostgreSQL cluster in ${address.dataDir}: ${typeof stderr === 'string' && stderr.trim() !== '' ? stderr.trim() : toError(error).message}`,
    );
  } finally {
    await unlink(pwfile).catch(() => undefined);
  }
}

/** Polls with a real login until the server answers, then creates the database when missing. */
async function waitUntilReady(
  address: EmbeddedPostgresAddress,
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>,
  spawnError: Promise<Error>,
  logFile: string,
  logStart: number,
): Promise<void> {
  let gone: { code: number | null; signal: NodeJS.Signals | null } | Error | null = null;
  void exited.then((result) => (gone ??= result));
  void spawnError.then((error) => (gone ??= error));
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let lastError: unknown = null;
  while (Date.now() < deadline) {
    if (gone !== null) throw await startFailure(address, gone, logFile, logStart);
    const sql = postgres({
      host: LOOPBACK,
      port: address.port,
      user: address.username,
      pass: address.password,
      database: 'postgres',
      max: 1,
      connect_timeout: 2,
      onnotice: () => undefined,
    });
    try {
      const found = await sql<
        { n: number }[]
      >`SELECT count(*)::int AS n FROM pg_database WHERE datname = ${address.database}`;
      if (found[0]?.n === 0)
        await sql.unsafe(`CREATE DATABASE "${address.database.replaceAll('"', '""')}"`);
      return;
    } catch (error: unknown) {
      lastError = error;
    } finally {
      await sql.end({ timeout: 1 }).catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new DevError(
    `The embedded PostgreSQL did not answer on port ${address.port} within ${READY_TIMEOUT_MS / 1000} s ` +
      `(last error: ${toError(lastError).message}); its log is ${logFile}.`,
  );
}

async function startFailure(
  address: EmbeddedPostgresAddress,
  gone: { code: number | null; signal: NodeJS.Signals | null } | Error,
  logFile: string,
  logStart: number,
): Promise<DevError> {
  if (gone instanceof Error)
    return new DevError(`The embedded PostgreSQL could not be started: ${gone.message}`);
  const log = (await readFile(logFile, 'utf8').catch(() => '')).slice(logStart);
  if (/could not bind .*Address already in use|could not create any TCP\/IP sockets/.test(log)) {
    return new DevError(
      `Port ${address.port} on ${LOOPBACK} is in use, so the embedded PostgreSQL cannot listen there. Stop what ` +
        'holds it, choose another port with --postgres-port, or leave the option out to get a free port.',
    );
  }
  if (log.includes('lock file "postmaster.pid" already exists')) {
    return new DevError(
      `The data directory ${address.dataDir} is in use by another running PostgreSQL, most likely another ` +
        'queuebox dev. Stop that one first, or give this one its own directory with --data-dir.',
    );
  }
  const tail = log.trim().split('\n').slice(-5).join(' / ');
  return new DevError(
    `The embedded PostgreSQL exited during its start (${gone.signal ?? `exit code ${gone.code}`}): ${tail || 'no output'}. Its log is ${logFile}.`,
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
