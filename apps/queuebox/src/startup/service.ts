import { randomUUID } from 'node:crypto';
import { loadConfig } from '@queuebox/config';
import { systemClock, type AppConfig, type Logger } from '@queuebox/core';
import type { Hono } from 'hono';
import { InboxRelay } from '@queuebox/inbox-service/relay';
import { createJsonataTransformer } from '@queuebox/outbox-service';
import { buildHttpApps } from '../http/apps.js';
import { RequestDrain } from '../http/drain.js';
import type { HealthComponent } from '../http/health.js';
import { startServer, type RunningServer } from '../http/server.js';
import { registerCaptureMetrics } from '../observability/capture-metrics.js';
import { registerMetricFamilies } from '../observability/metric-families.js';
import { createMetricsRegistry } from '../observability/metrics.js';
import { registerPoolMetrics } from '../observability/pool-metrics.js';
import { startTracing } from '../observability/tracing.js';
import {
  brokerConfigs,
  loadDatabaseProvider,
  providers,
  type ProviderRegistry,
} from '../providers.js';
import { QUEUEBOX_VERSION } from '../version.js';
import { readDemoConfig } from './demo-config.js';
import { buildOutbox, planOutbox } from './outbox-assembly.js';
import { ShutdownSequence } from './shutdown.js';
import { step } from './step.js';
import { refuseUnbuiltFeatures } from './unbuilt-guard.js';

export interface ServiceOptions {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly logger: Logger;
  /** Bind address of the servers; tests use 127.0.0.1. */
  readonly hostname?: string;
  /**
   * Spec §17.1 step 9: called with the §17.2 sequence once it is complete, before step 10 starts
   * anything, so the caller can hook SIGTERM to it while the sources and servers still start.
   */
  readonly onShutdownHook?: (stop: () => Promise<void>) => void;
  /**
   * Where the database, broker and capture providers come from: the registry of providers.ts
   * unless given. Tests hand over one whose broker clients dial a fault proxy (a client that
   * connects to the address the broker advertises bypasses a proxy given in the configuration).
   */
  readonly providers?: ProviderRegistry;
}

export interface RunningService {
  readonly config: AppConfig;
  readonly dataPort: number;
  readonly managementPort: number | null;
  /** The SIGTERM sequence of spec §17.2; resolves when everything is closed. */
  stop(): Promise<void>;
}

const DATABASE_CHECK_MS = 2000;

/** The startup sequence of spec §17.1; each step is wrapped so a failure names it. */
export async function startService(options: ServiceOptions): Promise<RunningService> {
  const { logger } = options;
  const providerRegistry = options.providers ?? providers;
  const startedAt = Date.now();
  const config = await step('load the configuration', () =>
    loadConfig({ env: options.env, demoConfigYaml: readDemoConfig(), brokers: brokerConfigs }),
  );
  await step('start this configuration', () => refuseUnbuiltFeatures(config, providerRegistry));
  // Off unless OTEL_TRACES_EXPORTER=otlp; then the SDK is loaded, else nothing of it is.
  const tracing = await step('start tracing', () => startTracing(options.env, QUEUEBOX_VERSION));
  const transformer = createJsonataTransformer();
  const registry = createMetricsRegistry(QUEUEBOX_VERSION, startedAt);
  const metrics = registerMetricFamilies(registry);
  const captureMetrics = registerCaptureMetrics(registry);
  const outboxPlan = await step('build the destinations', () =>
    planOutbox(config, transformer, metrics, logger, providerRegistry),
  );
  const shutdown = new ShutdownSequence(logger);
  if (tracing) shutdown.finally('the trace exporter', () => tracing.close());
  // Spec §17.2: a publisher whose broker says so stops with the services, after the poller (below).
  const publisherServices = outboxPlan.closingWithServices;
  for (const publisher of outboxPlan.publishers) {
    if (!publisherServices.includes(publisher))
      shutdown.resource(`the ${publisher.type} publisher`, () => publisher.close());
  }

  try {
    // Sources, capture and the admin routes load their modules only when configured.
    const hasSources = Object.keys(config.sources).length > 0;
    await step('compile the sources', async () => {
      if (!hasSources) return;
      const { compileSources } = await import('./source-compile.js');
      compileSources(config, transformer, metrics.inbox);
    });
    const provider = await step('load the database provider', () =>
      loadDatabaseProvider(config.database.type, providerRegistry),
    );
    const pool = registerPoolMetrics(registry, config.database);
    const db = await step('connect to the database', () =>
      provider.open(config, { logger, clock: systemClock, pool }),
    );
    shutdown.resource('the connection pool', () => db.close());
    if (config.database.migrate) await step('migrate the database', () => db.migrate());
    await step('check the database schema', () => db.checkSchema());

    const { poller, claimLoad, retention, gateHealth } = buildOutbox(
      config,
      outboxPlan,
      db,
      logger,
      tracing,
      registry,
    );
    const relay = new InboxRelay({
      store: db.inboxStore(),
      relay: config.inbox.relay,
      sources: config.sources,
      metrics: metrics.relay,
      logger,
      // In-process wakes: a forwarded row goes to the poller at once, in every mode.
      onForwarded: () => poller.wake(),
      ...(tracing ? { tracing } : {}),
    });
    const capture = await step('build the capture', async () =>
      !config.outbox.capture.enabled
        ? null
        : (await import('./capture-assembly.js')).buildCapture(
            config,
            {
              wake: () => poller.wake(),
              logger,
              metrics: captureMetrics,
              ...(claimLoad ? { load: claimLoad } : {}),
            },
            providerRegistry,
          ),
    );
    const health: HealthComponent[] = [
      { name: 'database', check: () => db.ping(DATABASE_CHECK_MS) },
      ...(capture ? [capture.health] : []),
      { name: 'outbox-poller', check: () => poller.running },
      ...gateHealth,
    ];
    if (retention) health.push({ name: 'retention-service', check: () => retention.running });
    if (config.inbox.relay.enabled)
      health.push({ name: 'inbox-relay', check: () => relay.running });
    const consumers = await step('build the sources', async () => {
      if (!hasSources) return [];
      const sources = await import('./source-consumers.js');
      const built = await sources.buildSourceConsumers(
        config,
        {
          handlerFor: sources.brokerIngestFor({
            store: db.inboxStore(),
            transformer,
            logger,
            metrics: metrics.inbox,
            clock: systemClock,
            newId: randomUUID,
            maxBodyBytes: config.inbox.maxBodyBytes,
            ...(tracing ? { tracing } : {}),
          }),
          logger,
        },
        providerRegistry,
      );
      health.push(...sources.sourceHealth(built));
      return built;
    });

    const drain = new RequestDrain();
    const apps = await step('build the HTTP routes', async () => {
      // The inbox routes and the admin routes (with the console) load only when configured:
      // without an HTTP source the inbox mounts no route, without `admin.enabled` there is none.
      const httpSources = Object.values(config.sources).some((source) => source.type === 'http');
      const routes = httpSources || config.admin.enabled ? await import('./http-routes.js') : null;
      let admin: ((app: Hono) => void) | undefined;
      if (routes !== null && config.admin.enabled) {
        const { TransformSandbox } = await import('../admin/transform-sandbox.js');
        const sandbox = new TransformSandbox();
        shutdown.resource('the transform test worker', () => sandbox.close());
        admin = routes.adminRoutes(config, db, sandbox, outboxPlan.router, logger);
      }
      return buildHttpApps({
        managementPort: config.server.managementPort,
        maxBodyBytes: config.inbox.maxBodyBytes,
        registry,
        health,
        drain,
        ...(routes !== null && httpSources
          ? {
              dataRoutes: routes.dataRoutes(
                config,
                db,
                transformer,
                metrics.inbox,
                logger,
                () => relay.wake(),
                tracing,
              ),
            }
          : {}),
        ...(admin ? { operatorRoutes: admin } : {}),
      });
    });

    // Spec §17.2 step 2 order; the HTTP step (registered below) runs before all of these.
    for (const consumer of consumers)
      shutdown.service(`the source ${consumer.source}`, () => consumer.close());
    if (capture) shutdown.service('the capture', () => capture.service.close());
    shutdown.service('the outbox poller', () => poller.close());
    for (const publisher of publisherServices)
      shutdown.service(`the ${publisher.type} publisher`, () => publisher.close());
    shutdown.service('the inbox relay', () => relay.close());
    if (retention) shutdown.service('the retention service', () => retention.close());

    const servers: RunningServer[] = [];
    shutdown.http(drain, servers, config.outbox.shutdownTimeoutMs);
    options.onShutdownHook?.(() => shutdown.run());
    poller.start();
    capture?.service.start();
    retention?.start();
    relay.start();
    for (const consumer of consumers)
      await step(`start the source ${consumer.source}`, () => consumer.start());

    const hostname = options.hostname ?? '0.0.0.0';
    let managementPort: number | null = null;
    if (apps.management && config.server.managementPort !== null) {
      const management = apps.management;
      const port = config.server.managementPort;
      const server = await step('start the management server', () =>
        startServer(management, port, hostname),
      );
      servers.push(server);
      managementPort = server.port;
    }
    const data = await step('start the HTTP server', () =>
      startServer(apps.data, config.server.httpPort, hostname),
    );
    servers.push(data);
    logger.info(
      `QueueBox ${QUEUEBOX_VERSION} is listening on port ${data.port}${managementPort === null ? '' : ` (management port ${managementPort})`}.`,
    );
    return { config, dataPort: data.port, managementPort, stop: () => shutdown.run() };
  } catch (error: unknown) {
    await shutdown.run();
    throw error;
  }
}
