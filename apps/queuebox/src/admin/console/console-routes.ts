import {
  sanitizeError,
  type AdminConfig,
  type ConsoleDetail,
  type ConsoleRow,
  type ConsoleStore,
  type ConsoleTable,
  type Logger,
  type OutboxStore,
  type TableStats,
} from '@queuebox/core';
import type { AuthValidator } from '@queuebox/inbox-service';
import type { Context, Hono } from 'hono';
import { authorizeRead, isObject, readAdminRequest } from '../admin-request.js';
import {
  DEFAULT_PAGE,
  DEFAULT_WRITE_LIMIT,
  InvalidFilter,
  MAX_PAGE,
  MAX_WRITE_LIMIT,
  decodeCursor,
  describeFilter,
  encodeCursor,
  filterFromBody,
  checkQueryEncoding,
  filterFromQuery,
  isUuid,
  limitOf,
  namesRows,
  type ParsedFilter,
} from './console-query.js';
import { redactHeaders } from './redact-headers.js';

export interface ConsoleRouteDeps {
  readonly admin: AdminConfig;
  readonly auth: AuthValidator | null;
  readonly console: ConsoleStore;
  readonly outbox: Pick<OutboxStore, 'distinctTopics'>;
  /** The real router's first-match answer, as the replay resolves `destination`. */
  readonly destinationOf: (topic: string) => string | null;
  readonly secretHeaders: ReadonlySet<string>;
  readonly logger: Logger;
}

/** Dead groups the stats return at most; the console shows the largest first. */
const MAX_DEAD_GROUPS = 200;
const NAMES: Record<ConsoleTable, { group: 'topic' | 'source' }> = {
  outbox: { group: 'topic' },
  inbox: { group: 'source' },
};

/**
 * The dead-letter console's API under `/admin`: lists with keyset pages, one row, counts,
 * the inbox requeue and the discard of dead rows. The outbox replay stays `POST /admin/replay`.
 * Every write is bounded by `limit` and logged with its filter and count.
 */
export function consoleRoutes(app: Hono, deps: ConsoleRouteDeps): void {
  for (const table of ['outbox', 'inbox'] as const) {
    app.get(`/admin/${table}`, (c) => guarded(c, deps, () => list(c, table, deps)));
    app.get(`/admin/${table}/:id`, (c) => guarded(c, deps, () => read(c, table, deps)));
    app.post(`/admin/${table}/discard`, (c) =>
      written(c, deps, (body) => discard(c, table, body, deps)),
    );
  }
  app.post('/admin/inbox/replay', (c) => written(c, deps, (body) => requeue(c, body, deps)));
  app.get('/admin/stats', (c) => guarded(c, deps, () => stats(c, deps)));
}

async function guarded(
  c: Context,
  deps: ConsoleRouteDeps,
  handle: () => Promise<Response>,
): Promise<Response> {
  const verdict = authorizeRead(c, deps.auth);
  if (!verdict.ok) return c.json({ error: verdict.error }, 401);
  return answer(c, deps, handle);
}

async function written(
  c: Context,
  deps: ConsoleRouteDeps,
  handle: (body: Record<string, unknown>) => Promise<Response>,
): Promise<Response> {
  const request = await readAdminRequest(c, deps.admin, deps.auth);
  if (!request.ok) return c.json({ error: request.error }, request.status);
  if (!isObject(request.body))
    return c.json({ error: 'Invalid request: the body must be a JSON object' }, 400);
  const body = request.body;
  return answer(c, deps, () => handle(body));
}

async function answer(
  c: Context,
  deps: ConsoleRouteDeps,
  handle: () => Promise<Response>,
): Promise<Response> {
  try {
    return await handle();
  } catch (error: unknown) {
    if (error instanceof InvalidFilter)
      return c.json({ error: `Invalid request: ${error.message}` }, 400);
    const text = sanitizeError(error);
    deps.logger.error(`Admin console request failed: ${text}`);
    return c.json({ error: text }, 500);
  }
}

/** A `destination` narrows the topics to those the router sends there; null: nothing matches. */
async function resolve(parsed: ParsedFilter, deps: ConsoleRouteDeps): Promise<ParsedFilter | null> {
  if (parsed.destination === null) return parsed;
  const routed = (await deps.outbox.distinctTopics()).filter(
    (topic) => deps.destinationOf(topic) === parsed.destination,
  );
  const groups = parsed.filter.groups;
  const topics = groups === null ? routed : groups.filter((t) => routed.includes(t));
  if (topics.length === 0) return null;
  return { ...parsed, filter: { ...parsed.filter, groups: topics } };
}

async function list(c: Context, table: ConsoleTable, deps: ConsoleRouteDeps): Promise<Response> {
  checkQueryEncoding(c.req.url);
  const parsed = filterFromQuery(table, (name) => c.req.queries(name));
  const limit = limitOf(c.req.query('limit'), DEFAULT_PAGE, MAX_PAGE);
  const after = decodeCursor(c.req.query('cursor'));
  const resolved = await resolve(parsed, deps);
  if (resolved === null) return c.json({ rows: [], nextCursor: null });
  const page = await deps.console.list(table, resolved.filter, limit, after);
  return c.json({
    rows: page.rows.map((row) => summary(row, table)),
    nextCursor: page.next === null ? null : encodeCursor(page.next),
  });
}

async function read(c: Context, table: ConsoleTable, deps: ConsoleRouteDeps): Promise<Response> {
  const id = c.req.param('id') ?? '';
  if (!isUuid(id)) return c.json({ error: `Invalid request: '${id}' is not a UUID` }, 400);
  const row = await deps.console.read(table, id);
  if (row === null) return c.json({ error: `No ${table} row has id ${id}` }, 404);
  return c.json(detail(row, table, deps.secretHeaders));
}

async function stats(c: Context, deps: ConsoleRouteDeps): Promise<Response> {
  const [outbox, inbox] = await Promise.all([
    deps.console.stats('outbox', MAX_DEAD_GROUPS),
    deps.console.stats('inbox', MAX_DEAD_GROUPS),
  ]);
  return c.json({ outbox: tableStats(outbox, 'outbox'), inbox: tableStats(inbox, 'inbox') });
}

async function requeue(
  c: Context,
  body: Record<string, unknown>,
  deps: ConsoleRouteDeps,
): Promise<Response> {
  const parsed = filterFromBody('inbox', body);
  const limit = limitOf(body.limit, DEFAULT_WRITE_LIMIT, MAX_WRITE_LIMIT);
  if (!namesRows(parsed)) return c.json({ error: 'A replay needs at least one filter.' }, 400);
  const moved = await deps.console.requeueInbox(parsed.filter, limit);
  deps.logger.info(
    `Inbox replay moved ${moved} row(s). Filter: ${describeFilter(parsed, 'inbox')} limit=${limit}`,
  );
  return c.json({ moved });
}

async function discard(
  c: Context,
  table: ConsoleTable,
  body: Record<string, unknown>,
  deps: ConsoleRouteDeps,
): Promise<Response> {
  if (body.confirm !== true)
    return c.json({ error: 'A discard deletes rows for good: send "confirm": true.' }, 400);
  const parsed = filterFromBody(table, body);
  const limit = limitOf(body.limit, DEFAULT_WRITE_LIMIT, MAX_WRITE_LIMIT);
  if (!namesRows(parsed)) return c.json({ error: 'A discard needs at least one filter.' }, 400);
  const resolved = await resolve(parsed, deps);
  const discarded =
    resolved === null ? 0 : await deps.console.discardDead(table, resolved.filter, limit);
  deps.logger.info(
    `Discard deleted ${discarded} dead ${table} row(s). Filter: ${describeFilter(parsed, table)} limit=${limit}`,
  );
  return c.json({ discarded });
}

function summary(row: ConsoleRow, table: ConsoleTable) {
  return {
    id: row.id,
    state: row.state,
    [NAMES[table].group]: row.group,
    key: row.key,
    attempt: row.attempt,
    createdAt: row.createdAt.toISOString(),
    lastError: row.lastError,
  };
}

function detail(row: ConsoleDetail, table: ConsoleTable, secret: ReadonlySet<string>) {
  const iso = (date: Date | null) => (date === null ? null : date.toISOString());
  const common = {
    ...summary(row, table),
    payload: parsePayload(row.payload),
    headers: redactHeaders(row.headers, secret),
    scheduledAt: iso(row.scheduledAt),
    lease: { claimedAt: iso(row.claimedAt), expiresAt: iso(row.leaseExpiresAt) },
  };
  return table === 'outbox'
    ? {
        ...common,
        maxAttempts: row.maxAttempts,
        aggregateType: row.type,
        updatedAt: iso(row.updatedAt),
      }
    : {
        ...common,
        eventType: row.type,
        aggregateId: row.aggregateId,
        correlationId: row.correlationId,
        consumption: row.consumption,
        processedAt: iso(row.updatedAt),
      };
}

function parsePayload(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

function tableStats(stats: TableStats, table: ConsoleTable) {
  const group = NAMES[table].group;
  const byGroup = new Map<string, number>();
  const byReason = new Map<string, number>();
  for (const dead of stats.dead) {
    byGroup.set(dead.group, (byGroup.get(dead.group) ?? 0) + dead.count);
    byReason.set(dead.reason, (byReason.get(dead.reason) ?? 0) + dead.count);
  }
  const sorted = (map: Map<string, number>, name: string) =>
    [...map].sort((a, b) => b[1] - a[1]).map(([value, count]) => ({ [name]: value, count }));
  return {
    byState: stats.byState,
    deadBy: stats.dead.map((d) => ({ [group]: d.group, reason: d.reason, count: d.count })),
    [`deadBy${group === 'topic' ? 'Topic' : 'Source'}`]: sorted(byGroup, group),
    deadByReason: sorted(byReason, 'reason'),
  };
}
