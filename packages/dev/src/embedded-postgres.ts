import { isAbsolute } from 'node:path';
import type { Logger } from '@queuebox/core';
import { findPostgresBinaries, postgresVersion } from './binaries.js';
import { inspectDataDir, placeDataDir, previousPort } from './data-dir.js';
import { DevError } from './dev-error.js';
import { freePort, LOOPBACK, portIsFree } from './ports.js';
import { postgresRunAs } from './postgres-user.js';
import { startPrivatePostgres, type PrivatePostgres } from './private-postgres.js';
import { assertReachable } from './reachable.js';

/** The port of the machine's own PostgreSQL: never chosen, whatever the previous start used. */
const SYSTEM_POSTGRES_PORT = 5432;
/** Only the loopback address listens, so the well-known password costs nothing. */
const USERNAME = 'postgres';
const PASSWORD = 'postgres';
const PORT_REMEDY =
  'Stop what holds it, choose another port with --postgres-port, or leave the option out to get a free port.';

export interface EmbeddedPostgresOptions {
  /** Absolute; created on the first start and reused by later ones. */
  readonly dataDir: string;
  /**
   * True for the default data directory: under root, when the server's user cannot reach it,
   * it moves to a shared directory that user can reach (and stays there for later runs). A
   * directory the person chose is used as given.
   */
  readonly movableDataDir?: boolean;
  /** A fixed port; by default the previous start's port when free, else a free one. */
  readonly port?: number;
  /** The database QueueBox and the application use; created when missing. */
  readonly database?: string;
  readonly logger: Logger;
}

/** What an application needs to reach the embedded server. */
export interface EmbeddedPostgresAddress {
  readonly dataDir: string;
  /** Why the data directory is not the one asked for (it moved where the server's user can reach it); null when it is. */
  readonly dataDirMovedBecause: string | null;
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
  start(): Promise<EmbeddedPostgres>;
}

export interface EmbeddedPostgres
  extends EmbeddedPostgresAddress, Pick<PrivatePostgres, 'pid' | 'logFile' | 'created' | 'stop'> {
  /** Where the server's programs are (a copy the server's user can reach, under root from a private directory). */
  readonly programs: string;
}

/**
 * Checks everything that can be checked before a process starts (binaries, data directory,
 * port) and fixes the address, so the caller can build its configuration first.
 */
export async function prepareEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<PreparedPostgres> {
  const { logger } = options;
  if (!isAbsolute(options.dataDir))
    throw new DevError(`The data directory must be an absolute path, not '${options.dataDir}'.`);
  const binaries = await findPostgresBinaries();
  const version = await postgresVersion(binaries);
  const major = version.split('.')[0] ?? version;
  const runAs = await postgresRunAs(logger);
  const place = await placeDataDir(options.dataDir, runAs, options.movableDataDir === true);
  const { dataDir } = place;
  if (runAs !== null) {
    await assertReachable(
      dataDir,
      runAs,
      'the data directory',
      options.movableDataDir === true
        ? 'It holds data already, so it stays where it is: let that user enter the directory, or move the data ' +
            'directory where that user can reach it and name it with --data-dir.'
        : 'Choose one it can reach with --data-dir (for example /var/tmp/queuebox-dev/postgres), or leave the ' +
            'option out to let queuebox dev place it.',
    );
  }
  const state = await inspectDataDir(dataDir, major);
  const port = await choosePort(
    options.port,
    state === 'cluster' ? await previousPort(dataDir) : null,
  );
  const database = options.database ?? 'queuebox';
  const address: EmbeddedPostgresAddress = {
    dataDir,
    dataDirMovedBecause: place.movedBecause,
    port,
    database,
    username: USERNAME,
    password: PASSWORD,
    url: `postgres://${USERNAME}:${PASSWORD}@${LOOPBACK}:${port}/${database}`,
    jdbcUrl: `jdbc:postgresql://${LOOPBACK}:${port}/${database}`,
    version,
  };
  const start = async (): Promise<EmbeddedPostgres> => {
    const server = await startPrivatePostgres({
      binaries,
      dataDir,
      port,
      username: USERNAME,
      password: PASSWORD,
      database,
      logger,
      remedies: {
        port: PORT_REMEDY,
        dataDir:
          'Stop that one first (most likely another queuebox dev), or give this one its own directory with --data-dir.',
      },
    });
    return {
      ...address,
      pid: server.pid,
      logFile: server.logFile,
      created: server.created,
      stop: () => server.stop(),
      programs: server.binaries.postgres,
    };
  };
  return { ...address, start };
}

async function choosePort(fixed: number | undefined, previous: number | null): Promise<number> {
  if (fixed !== undefined) {
    if (!(await portIsFree(fixed))) {
      throw new DevError(
        `Port ${fixed} on ${LOOPBACK} is in use, so the embedded PostgreSQL cannot listen there. ${PORT_REMEDY}`,
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
