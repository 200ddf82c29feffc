import { loadConfig } from '@queuebox/config';
import { systemClock, type AppConfig, type Database, type Logger } from '@queuebox/core';
import { buildHttpApps } from '../http/apps.js';
import { RequestDrain } from '../http/drain.js';
import type { HealthComponent } from '../http/health.js';
import { startServer, type RunningServer } from '../http/server.js';
import { createMetricsRegistry } from '../observability/metrics.js';
import { loadDatabaseProvider } from '../providers.js';
import { QUEUEBOX_VERSION } from '../version.js';
import { readDemoConfig } from './demo-config.js';
import { ShutdownSequence } from './shutdown.js';
import { step } from './step.js';

export interface ServiceOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Bind address of the servers; tests use 127.0.0.1. */
  readonly hostname?: string;
}

export interface RunningService {
  readonly config: AppConfig;
  readonly dataPort: number;
  readonly managementPort: number | null;
  /** The SIGTERM sequence of spec §17.2; resolves when everything is closed. */
  stop(): Promise<void>;
}

const DATABASE_CHECK_MS = 2000;

/** The startup sequence of spec §17.1, each step wrapped so a failure names it. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { logger } = options;
  const startedAt = Date.now();
  const config = await step('load the configuration', () =>
    loadConfig({ env: options.env, demoConfigYaml: readDemoConfig() }),
  );
  const registry = createMetricsRegistry(QUEUEBOX_VERSION, startedAt);
  const shutdown = new ShutdownSequence(logger);

  let database: Database | undefined;
  try {
    const provider = await step('load the database provider', () => loadDatabaseProvider(config.database.type));
    database = await step('connect to the database', () => provider.open(config, { logger, clock: systemClock }));
    const db = database;
    shutdown.resource('connection pool', () => db.close());
    if (config.database.migrate) {
      await step('migrate the database', () => db.migrate());
    }
    await step('check the database schema', () => db.checkSchema());

    const health: HealthComponent[] = [{ name: 'database', check: () => db.ping(DATABASE_CHECK_MS) }];
    const drain = new RequestDrain();
    const apps = buildHttpApps({
      managementPort: config.server.managementPort,
      maxBodyBytes: config.inbox.maxBodyBytes,
      registry,
      health,
      drain,
    });

    const servers: RunningServer[] = [];
    shutdown.http(drain, servers, config.outbox.shutdownTimeoutMs);
    const hostname = options.hostname ?? '0.0.0.0';
    let managementPort: number | null = null;
    if (apps.management && config.server.managementPort !== null) {
      const management = await step('start the management server', () =>
        startServer(apps.management!, config.server.managementPort!, hostname),
      );
      servers.push(management);
      managementPort = management.port;
    }
    const data = await step('start the HTTP server', () => startServer(apps.data, config.server.httpPort, hostname));
    servers.push(data);
    logger.info(
      `QueueBox ${QUEUEBOX_VERSION} is listening on port ${data.port}${managementPort === null ? '' : ` (management port ${managementPort})`}.`,
    );
    return {
      config,
      dataPort: data.port,
      managementPort,
      stop: () => shutdown.run(),
    };
  } catch (error: unknown) {
    await shutdown.run();
    throw error;
  }
}
