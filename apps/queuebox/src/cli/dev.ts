import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { loadConfig } from '@queuebox/config';
import { sanitizeError, toError, type Logger } from '@queuebox/core';
import type * as DevKit from '@queuebox/dev';
import { demoConfigPath } from '../startup/demo-config.js';
import { startService } from '../startup/service.js';
import { StartupFailure, step } from '../startup/step.js';
import type { DevOptions } from './arguments.js';
import { brokerConfigs } from '../providers.js';

/**
 * `queuebox dev`: QueueBox on an embedded PostgreSQL, with a demo receiver, for a machine that
 * has only Node.js. The embedded database lives in `@queuebox/dev`, which the app reaches only
 * through the dynamic import below and which is a devDependency: the production install (and so
 * the container image) carries no PostgreSQL binaries, and `queuebox` without `dev` never loads it.
 *
 * The configuration (the demo one, or `--config`) is loaded by the ordinary loader, as its file,
 * with `QUEUEBOX_DATABASE_*` variables that replace its database settings by the embedded
 * database; so `QUEUEBOX_*` variables of the shell still apply, as they do to a file.
 */
export const DEV_PACKAGE = '@queuebox/dev';
const DEFAULT_DATA_DIR = '.queuebox/postgres';
const HOST = '127.0.0.1';
const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

export interface DevRun {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  readonly options: DevOptions;
  readonly cwd: string;
  /** Prints the start banner once (to stdout, or through the logger for JSON logs). */
  readonly print: (text: string) => void;
}

/**
 * Runs until SIGINT, SIGTERM or SIGHUP, then stops QueueBox (its usual drain), the demo receiver
 * and last the embedded PostgreSQL. The handlers are in place before anything starts, so Ctrl-C
 * during the start still stops what has started, and a second Ctrl-C cannot orphan the database.
 */
export async function runDev(run: DevRun): Promise<number> {
  const abort = new AbortController();
  let firstSignalAt = 0;
  const onSignal = (signal: NodeJS.Signals) => {
    if (abort.signal.aborted) {
      // `pnpm dev` forwards the terminal's Ctrl-C, so one key press arrives twice.
      if (Date.now() - firstSignalAt > 1000) {
        run.logger.info(
          'QueueBox dev is already stopping: QueueBox drains first, then PostgreSQL stops.',
        );
      }
      return;
    }
    firstSignalAt = Date.now();
    run.logger.info(`Received ${signal}; stopping QueueBox, then the embedded PostgreSQL.`);
    abort.abort();
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  const stopped = new Promise<void>((resolve) =>
    abort.signal.addEventListener('abort', () => resolve()),
  );
  const stop = await startDev(run, abort.signal);
  if (stop === null) return 0;
  await stopped;
  await stop();
  return 0;
}

/** Starts everything; returns the stop sequence, or null when a signal arrived during the start. */
async function startDev(run: DevRun, abort: AbortSignal): Promise<(() => Promise<void>) | null> {
  const { logger, options } = run;
  const kit = await loadDevKit();
  const configFile = configFileOf(options, run.cwd);
  const dataDir = resolve(run.cwd, options.dataDir ?? DEFAULT_DATA_DIR);

  const undo: (() => Promise<void>)[] = [];
  const unwind = async () => {
    for (const action of undo.reverse())
      await action().catch((error: unknown) => logger.warn(sanitizeError(error)));
  };
  try {
    const prepared = await devStep('prepare the embedded PostgreSQL', () =>
      kit.prepareEmbeddedPostgres({
        dataDir,
        movableDataDir: options.dataDir === null,
        logger,
        ...(options.postgresPort === null ? {} : { port: options.postgresPort }),
      }),
    );
    if (prepared.dataDirMovedBecause !== null) {
      logger.info(
        `The embedded PostgreSQL keeps its data in ${prepared.dataDir}, not in ${dataDir}, because ` +
          `${prepared.dataDirMovedBecause}; every run from ${run.cwd} uses that directory.`,
      );
    }
    const receiver = await devStep('start the demo receiver', () => kit.startDemoReceiver(logger));
    undo.push(() => receiver.close());
    const env = {
      ...run.env,
      QUEUEBOX_CONFIG_FILE: configFile,
      QUEUEBOX_DATABASE_TYPE: 'postgresql',
      QUEUEBOX_DATABASE_URL: prepared.jdbcUrl,
      QUEUEBOX_DATABASE_USERNAME: prepared.username,
      QUEUEBOX_DATABASE_PASSWORD: prepared.password,
      QUEUEBOX_DATABASE_MIGRATE: 'true',
      RECEIVER_URL: receiver.url,
    };
    // Configuration problems and busy HTTP ports stop the start before PostgreSQL starts.
    const config = await step('load the configuration', () =>
      loadConfig({ env, brokers: brokerConfigs }),
    );
    await refuseBusyPorts(kit, config.server.httpPort, config.server.managementPort);
    if (abort.aborted) return await unwind().then(() => null);

    const database = await devStep('start the embedded PostgreSQL', () => prepared.start());
    undo.push(async () => {
      await database.stop();
      logger.info(`The embedded PostgreSQL stopped; its data stays in ${database.dataDir}.`);
    });
    logger.info(
      `The embedded PostgreSQL ${database.version} is running on port ${database.port} (pid ${database.pid}, log ${database.logFile}, programs in ${dirname(database.programs)}).`,
    );
    if (abort.aborted) return await unwind().then(() => null);

    const service = await startService({ env, logger, hostname: HOST });
    undo.push(() => service.stop());
    run.print(
      kit.devBanner({
        config: service.config,
        postgres: database,
        dataPort: service.dataPort,
        managementPort: service.managementPort,
        receiverUrl: receiver.url,
        exampleId: `evt_${randomBytes(4).toString('hex')}`,
      }),
    );
    if (abort.aborted) return await unwind().then(() => null);
    return unwind;
  } catch (error: unknown) {
    await unwind();
    throw error;
  }
}

async function loadDevKit(): Promise<typeof DevKit> {
  try {
    return await import('@queuebox/dev');
  } catch (error: unknown) {
    const missing =
      (error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND' &&
      toError(error).message.includes(`'${DEV_PACKAGE}'`);
    if (missing) {
      throw new StartupFailure(
        `queuebox dev needs the package ${DEV_PACKAGE} (the embedded PostgreSQL and the demo receiver), which this ` +
          'install does not carry: the production install and the container image leave it out on purpose. Run ' +
          'queuebox dev from a source checkout (pnpm install && pnpm build && pnpm dev), or run queuebox without dev ' +
          'against your own PostgreSQL.',
      );
    }
    throw new StartupFailure(
      `QueueBox could not load ${DEV_PACKAGE}. Reason: ${sanitizeError(error)}`,
    );
  }
}

function configFileOf(options: DevOptions, cwd: string): string {
  if (options.configFile !== null) {
    const file = resolve(cwd, options.configFile);
    if (!existsSync(file))
      throw new StartupFailure(
        `The configuration file ${file} given with --config does not exist.`,
      );
    return file;
  }
  const demo = demoConfigPath();
  if (demo === undefined) {
    throw new StartupFailure(
      'The packaged demo configuration is missing from this build; give a configuration with --config.',
    );
  }
  return demo;
}

async function refuseBusyPorts(
  kit: typeof DevKit,
  httpPort: number,
  managementPort: number | null,
): Promise<void> {
  const ports: [number | null, string, string][] = [
    [httpPort, 'server.httpPort', 'QUEUEBOX_SERVER_HTTPPORT'],
    [managementPort, 'server.managementPort', 'QUEUEBOX_SERVER_MANAGEMENTPORT'],
  ];
  for (const [port, key, variable] of ports) {
    if (port === null || port === 0 || (await kit.portIsFree(port, HOST))) continue;
    throw new StartupFailure(
      `Port ${port} (${key}) on ${HOST} is in use, so QueueBox cannot listen there. Stop what holds it, or choose ` +
        `another port, for example ${variable}=${port + 1} pnpm dev.`,
    );
  }
}

/** A DevError already says what to do; other errors read as any startup step's. */
function devStep<T>(description: string, run: () => Promise<T>): Promise<T> {
  return step(description, async () => {
    try {
      return await run();
    } catch (error: unknown) {
      if (error instanceof Error && error.name === 'DevError') {
        throw new StartupFailure(`QueueBox could not ${description}. ${error.message}`);
      }
      throw error;
    }
  });
}
