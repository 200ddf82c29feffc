import type { AppConfig, Database, Logger, Transformer } from '@queuebox/core';
import { inboxRoutes } from '@queuebox/inbox-service';
import type { MessageRouter } from '@queuebox/outbox-service';
import type { Hono } from 'hono';
import type { Registry } from 'prom-client';
import { adminAuthenticator } from '../admin/admin-request.js';
import { replayRoute } from '../admin/replay-route.js';
import type { TransformSandbox } from '../admin/transform-sandbox.js';
import { transformTestRoute } from '../admin/transform-test-route.js';

/** The inbox source routes, mounted on the data port; a stored push row calls `wakeRelay`. */
export function dataRoutes(
  config: AppConfig,
  database: Database,
  transformer: Transformer,
  registry: Registry,
  logger: Logger,
  wakeRelay?: () => void,
): (app: Hono) => void {
  return (app) =>
    inboxRoutes(app, {
      sources: config.sources,
      basePath: config.inbox.basePath,
      maxBodyBytes: config.inbox.maxBodyBytes,
      store: database.inboxStore(),
      transformer,
      logger,
      registry,
      onPushStored: wakeRelay,
    });
}

/**
 * The admin routes (spec §11.6), present only with `admin.enabled`. `sandbox` evaluates the
 * transform tests; the caller owns it (and closes it at shutdown).
 */
export function adminRoutes(
  config: AppConfig,
  database: Database,
  sandbox: TransformSandbox,
  router: MessageRouter,
  logger: Logger,
): ((app: Hono) => void) | undefined {
  if (!config.admin.enabled) return undefined;
  const auth = adminAuthenticator(config.admin);
  return (app) => {
    transformTestRoute(app, config.admin, auth, sandbox);
    replayRoute(app, {
      admin: config.admin,
      auth,
      store: database.outboxStore(),
      destinationOf: (topic) => router.destinationOf(topic),
      logger,
    });
  };
}
