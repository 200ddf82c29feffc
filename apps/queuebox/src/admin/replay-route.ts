import type { AdminConfig, Logger } from '@queuebox/core';
import type { AuthValidator } from '@queuebox/inbox-service';
import { parseReplayRequest, replayOutbox, type ReplayDeps } from '@queuebox/outbox-service';
import type { Hono } from 'hono';
import { readAdminRequest } from './admin-request.js';

export interface ReplayRouteDeps extends ReplayDeps {
  readonly admin: AdminConfig;
  readonly auth: AuthValidator | null;
  readonly logger: Logger;
}

/**
 * `POST /admin/replay` (spec §11.6): the admin request front (cap, auth, JSON), then the
 * outbox service's replay; this file only maps its answers to HTTP.
 */
export function replayRoute(app: Hono, deps: ReplayRouteDeps): void {
  app.post('/admin/replay', async (c) => {
    const request = await readAdminRequest(c, deps.admin, deps.auth);
    if (!request.ok) return c.json({ error: request.error }, request.status);
    const parsed = parseReplayRequest(request.body);
    if (parsed === 'empty') return c.json({ error: 'A replay needs at least one filter.' }, 400);
    if ('invalid' in parsed) return c.json({ error: `Invalid request: ${parsed.invalid}` }, 400);

    const { moved, description } = await replayOutbox(parsed, deps);
    deps.logger.info(`Replay moved ${moved} row(s). Filter: ${description}`);
    return c.json({ moved }, 200);
  });
}
