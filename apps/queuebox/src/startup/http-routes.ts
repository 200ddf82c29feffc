import type {
  AppConfig,
  Database,
  InboxMetrics,
  Logger,
  Tracing,
  Transformer,
} from '@queuebox/core';
import { inboxRoutes } from '@queuebox/inbox-service';
import type { MessageRouter } from '@queuebox/outbox-service';
import type { Hono } from 'hono';
import { adminAuthenticator } from '../admin/admin-request.js';
import { consolePage } from '../admin/console/console-page.js';
import { consoleRoutes } from '../admin/console/console-routes.js';
import { secretHeaderNames } from '../admin/console/redact-headers.js';
import { adminSecurityHeaders } from '../admin/console/security-headers.js';
import { replayRoute } from '../admin/replay-route.js';
import type { TransformSandbox } from '../admin/transform-sandbox.js';
import { transformTestRoute } from '../admin/transform-test-route.js';

/** The inbox source routes, mounted on the data port; a stored push row calls `wakeRelay`. */
export function dataRoutes(
  config: AppConfig,
  database: Database,
  transformer: Transformer,
  metrics: InboxMetrics,
  logger: Logger,
  wakeRelay?: () => void,
  tracing?: Tracing,
): (app: Hono) => void {
  return (app) =>
    inboxRoutes(app, {
      sources: config.sources,
      basePath: config.inbox.basePath,
      maxBodyBytes: config.inbox.maxBodyBytes,
      store: database.inboxStore(),
      transformer,
      logger,
      metrics,
      onPushStored: wakeRelay,
      ...(tracing ? { tracing } : {}),
    });
}

/**
 * The admin routes (spec §11.6) and the dead-letter console, present only with `admin.enabled`. `sandbox` evaluates the
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
  const consoleStore = database.consoleStore?.();
  return (app) => {
    app.use('/admin/*', adminSecurityHeaders);
    transformTestRoute(app, config.admin, auth, sandbox);
    replayRoute(app, {
      admin: config.admin,
      auth,
      store: database.outboxStore(),
      destinationOf: (topic) => router.destinationOf(topic),
      logger,
    });
    // The console needs its store; a database without one keeps the reference's routes only.
    if (consoleStore === undefined) return;
    consoleRoutes(app, {
      admin: config.admin,
      auth,
      console: consoleStore,
      outbox: database.outboxStore(),
      destinationOf: (topic) => router.destinationOf(topic),
      secretHeaders: secretHeaderNames(config),
      logger,
    });
    consolePage(app, config.admin);
  };
}
