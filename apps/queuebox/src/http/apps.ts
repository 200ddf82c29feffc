import { Hono } from 'hono';
import type { Registry } from '../observability/prom.js';
import type { RequestDrain } from './drain.js';
import { LIVENESS_BODY, readiness, type HealthComponent } from './health.js';

/**
 * The HTTP surface (spec §11): the data port always; health, metrics and admin move to the
 * management port when one is configured, and the data port then answers 404 for them.
 */
export interface HttpAppsOptions {
  readonly managementPort: number | null;
  readonly maxBodyBytes: number;
  readonly registry: Registry;
  readonly health: readonly HealthComponent[];
  readonly drain: RequestDrain;
  /** Routes that always live on the data port (the inbox sources). */
  readonly dataRoutes?: (app: Hono) => void;
  /** Routes that follow health and metrics (the admin routes). */
  readonly operatorRoutes?: (app: Hono) => void;
}

export interface HttpApps {
  readonly data: Hono;
  readonly management: Hono | null;
}

export function buildHttpApps(options: HttpAppsOptions): HttpApps {
  const data = new Hono();
  installDataPortRules(data, options);
  data.get('/', (c) => c.text('QueueBox is running!'));
  options.dataRoutes?.(data);

  const management = options.managementPort === null ? null : new Hono();
  const operator = management ?? data;
  installOperatorRoutes(operator, options);
  return { data, management };
}

function installDataPortRules(app: Hono, options: HttpAppsOptions): void {
  const tooLarge = JSON.stringify({ error: `Request body exceeds ${options.maxBodyBytes} bytes` });
  app.use('*', async (c, next) => {
    if (options.drain.draining) {
      return c.json({ error: 'QueueBox is shutting down' }, 503);
    }
    const declared = c.req.header('content-length');
    if (declared !== undefined && Number(declared) > options.maxBodyBytes) {
      return c.body(tooLarge, 413, { 'Content-Type': 'application/json' });
    }
    options.drain.enter();
    try {
      await next();
    } finally {
      options.drain.leave();
    }
  });
}

function installOperatorRoutes(app: Hono, options: HttpAppsOptions): void {
  app.get('/health/live', (c) => c.json(LIVENESS_BODY));
  const ready = async () => {
    const report = await readiness(options.health);
    return Response.json(report.body, { status: report.healthy ? 200 : 503 });
  };
  app.get('/health/ready', ready);
  app.get('/health', ready);
  app.get('/metrics', async (c) => {
    const text = await options.registry.metrics();
    return c.body(text, 200, { 'Content-Type': options.registry.contentType });
  });
  options.operatorRoutes?.(app);
}
