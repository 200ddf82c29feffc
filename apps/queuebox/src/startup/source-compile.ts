import { randomUUID } from 'node:crypto';
import {
  silentLogger,
  systemClock,
  type AppConfig,
  type InboxMetrics,
  type Transformer,
} from '@queuebox/core';
import { createBrokerIngest } from '@queuebox/inbox-service';
import { Hono } from 'hono';
import { dataRoutes } from './http-routes.js';
import { unconnectedDatabase } from './unconnected-database.js';

/**
 * Spec §17.1 step 3: every transform compiles before the database is touched (step 5). The
 * sources' transforms, filters and key expressions compile where the inbox routes and the broker
 * ingest are built, which is step 8, after the database is open and migrated; a source
 * transform that did not compile used to stop the start only after QueueBox had connected (and
 * waited up to `database.startupTimeoutMs` for a database it did not need). Building them once
 * here, on a database that refuses every use and with no request ever served, throws the same
 * problem first. The real routes and handlers are built again in step 8 on the real stores.
 */
export function compileSources(
  config: AppConfig,
  transformer: Transformer,
  metrics: InboxMetrics,
): void {
  const database = unconnectedDatabase();
  dataRoutes(config, database, transformer, metrics, silentLogger)(new Hono());
  const deps = {
    store: database.inboxStore(),
    transformer,
    logger: silentLogger,
    metrics,
    clock: systemClock,
    newId: randomUUID,
  };
  for (const [name, source] of Object.entries(config.sources))
    if (source.type !== 'http') createBrokerIngest(name, source, deps);
}
