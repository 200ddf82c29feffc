import {
  silentLogger,
  systemClock,
  type AppConfig,
  type Database,
  type Logger,
} from '@queuebox/core';
import {
  createJsonataTransformer,
  createMessageRouter,
  validateRouting,
} from '@queuebox/outbox-service';
import { provider } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../../test/app-config.js';
import { adminRoutes } from '../../startup/http-routes.js';
import { TransformSandbox } from '../transform-sandbox.js';

const pg = await requireService('postgres', 'app: admin console API');
const pgUrl = pg.available ? pg.url : '';

const TOKEN = 'console-token';
const YAML = `
destinations:
  orders:
    type: http
    baseUrl: http://127.0.0.1:9
  billing:
    type: http
    baseUrl: http://127.0.0.1:9
routes:
  - topicPattern: "order.*"
    destination: orders
  - topicPattern: "**"
    destination: billing
sources:
  hooks:
    type: http
    path: /hooks
    idempotencyKeyHeader: X-Id
    eventTypeHeader: X-Type
    auth:
      type: api-key
      key: source-key
      headerName: X-Hook-Key
admin:
  enabled: true
  auth:
    type: bearer
    token: ${TOKEN}
`;

const AUTH = { Authorization: `Bearer ${TOKEN}` };

describe.skipIf(!pg.available)('the dead-letter console API on a real database', () => {
  let db: FreshDatabase;
  let database: Database;
  let config: AppConfig;
  let app: Hono;
  const lines: string[] = [];
  const logger: Logger = { ...silentLogger, info: (message: string) => lines.push(message) };
  const sandbox = new TransformSandbox();

  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl);
    config = testConfig(db, YAML);
    database = await provider.open(config, { logger: silentLogger, clock: systemClock });
    await database.migrate();
    const router = createMessageRouter(validateRouting(config, createJsonataTransformer()));
    app = new Hono();
    adminRoutes(config, database, sandbox, router, logger)!(app);
  });
  afterAll(async () => {
    await sandbox.close();
    await database?.close();
    await db?.drop();
  });

  /** 30 dead order.created rows (HTTP 503), 5 dead billing.paid (no route), 3 pending, 2 sent. */
  beforeEach(async () => {
    lines.length = 0;
    await db.sql`DELETE FROM outbox`;
    await db.sql`DELETE FROM inbox`;
    await db.sql`
      INSERT INTO outbox (topic, key, payload, headers, state, attempt, last_error, created_at)
      SELECT 'order.created', 'k' || n, jsonb_build_object('n', n),
             '{"Authorization":"Bearer zz-secret-zz","X-Trace":"t-1","X-Callback":"https://u:pw@example.com/x"}',
             'dead', 5, 'HTTP 503: upstream down (' || n || ')',
             '2026-01-01T00:00:00Z'::timestamptz + n * interval '1 second'
      FROM generate_series(1, 30) AS n`;
    await db.sql`
      INSERT INTO outbox (topic, payload, state, attempt, last_error, created_at)
      SELECT 'billing.paid', '{}', 'dead', 1, 'No route matches topic ''billing.paid''',
             '2026-01-02T00:00:00Z'::timestamptz + n * interval '1 second'
      FROM generate_series(1, 5) AS n`;
    await db.sql`INSERT INTO outbox (topic, payload, state) SELECT 'order.created', '{}', 'pending' FROM generate_series(1, 3)`;
    await db.sql`INSERT INTO outbox (topic, payload, state) SELECT 'order.created', '{}', 'sent' FROM generate_series(1, 2)`;
    await db.sql`
      INSERT INTO inbox (source, idempotency_key, payload, state, attempt, last_error, headers)
      SELECT 'hooks', 'i' || n, '{"x":1}', 'dead', 3, 'Transform rejected the message: bad',
             '{"X-Hook-Key":"source-key","X-Request":"r-1"}'
      FROM generate_series(1, 4) AS n`;
    await db.sql`INSERT INTO inbox (source, idempotency_key, payload, state) VALUES ('hooks', 'p1', '{}', 'processed')`;
  });

  const get = (path: string, headers: Record<string, string> = AUTH) =>
    app.request(path, { headers });
  const post = (path: string, body: unknown, headers: Record<string, string> = AUTH) =>
    app.request(path, {
      method: 'POST',
      body: JSON.stringify(body),
      headers: { 'Content-Type': 'application/json', ...headers },
    });
  interface Page {
    rows: { id: string; state: string; topic?: string; source?: string; lastError: string }[];
    nextCursor: string | null;
  }

  it('refuses every console route without the admin credential', async () => {
    for (const path of ['/admin/outbox', '/admin/inbox', '/admin/stats']) {
      const response = await get(path, {});
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual({ error: 'Missing Authorization header' });
    }
    const wrong = await post(
      '/admin/outbox/discard',
      { confirm: true, topic: 'x' },
      {
        Authorization: 'Bearer nope',
      },
    );
    expect(wrong.status).toBe(401);
  });

  it('pages dead rows of one topic newest first, 10 at a time, with no row twice', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = `/admin/outbox?state=dead&topic=order.created&limit=10${cursor === null ? '' : `&cursor=${cursor}`}`;
      const response = await get(query);
      expect(response.status).toBe(200);
      const page = (await response.json()) as Page;
      expect(page.rows.every((r) => r.state === 'dead' && r.topic === 'order.created')).toBe(true);
      seen.push(...page.rows.map((r) => r.lastError));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(30);
    expect(seen[0]).toBe('HTTP 503: upstream down (30)');
    expect(seen.at(-1)).toBe('HTTP 503: upstream down (1)');
  });

  it('filters by destination, time range and error text', async () => {
    const billing = (await (await get('/admin/outbox?destination=billing')).json()) as Page;
    expect(billing.rows.map((r) => r.topic)).toEqual(Array(5).fill('billing.paid'));
    const range = (await (
      await get('/admin/outbox?state=dead&from=2026-01-01T00:00:10Z&to=2026-01-01T00:00:20Z')
    ).json()) as Page;
    expect(range.rows).toHaveLength(10);
    const text = (await (await get('/admin/outbox?q=(7)')).json()) as Page;
    expect(text.rows.map((r) => r.lastError)).toEqual(['HTTP 503: upstream down (7)']);
    const percent = (await (await get('/admin/outbox?q=%25')).json()) as Page;
    expect(percent.rows).toEqual([]);
    const bad = await get('/admin/outbox?state=gone');
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: string }).error).toContain("'state' must be one of");
    expect((await get('/admin/outbox?cursor=nonsense')).status).toBe(400);
  });

  it('answers 400 naming the parameter for a q that is not UTF-8 and for a cursor it never returned', async () => {
    const refused = async (path: string, parameter: string) => {
      const res = await get(path);
      expect(res.status, path).toBe(400);
      expect(((await res.json()) as { error: string }).error, path).toContain(`'${parameter}'`);
    };
    for (const table of ['outbox', 'inbox']) {
      await refused(`/admin/${table}?q=%C3%28`, 'q');
      await refused(`/admin/${table}?q=%FF`, 'q');
      const cursor = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      // An id past 2^53 (a number where the API writes a uuid), garbage, and a JSON that is no position.
      await refused(
        `/admin/${table}?cursor=${cursor(['2026-01-01 00:00:00+00', 2 ** 53 + 2])}`,
        'cursor',
      );
      await refused(
        `/admin/${table}?cursor=${cursor(['2026-01-01 00:00:00+00', '9007199254740993'])}`,
        'cursor',
      );
      await refused(`/admin/${table}?cursor=%FF%FE`, 'cursor');
      await refused(`/admin/${table}?cursor=${cursor({ id: 1 })}`, 'cursor');
    }
  });

  it('counts by state and groups dead rows by topic and reason', async () => {
    const stats = (await (await get('/admin/stats')).json()) as Record<
      string,
      Record<string, unknown>
    >;
    expect(stats.outbox!.byState).toEqual({ dead: 35, pending: 3, sent: 2 });
    expect(stats.outbox!.deadByTopic).toEqual([
      { topic: 'order.created', count: 30 },
      { topic: 'billing.paid', count: 5 },
    ]);
    expect(stats.outbox!.deadByReason).toEqual([
      { reason: 'HTTP 503', count: 30 },
      { reason: "No route matches topic 'billing.paid'", count: 5 },
    ]);
    expect(stats.inbox!.byState).toEqual({ dead: 4, processed: 1 });
    expect(stats.inbox!.deadBySource).toEqual([{ source: 'hooks', count: 4 }]);
  });

  it('reads one row with its credentials redacted', async () => {
    const [first] = (
      (await (await get('/admin/outbox?topic=order.created&state=dead&limit=1')).json()) as Page
    ).rows;
    const response = await get(`/admin/outbox/${first!.id}`);
    expect(response.status).toBe(200);
    const row = (await response.json()) as Record<string, unknown>;
    expect(row).toMatchObject({
      id: first!.id,
      state: 'dead',
      topic: 'order.created',
      attempt: 5,
      maxAttempts: 5,
      payload: { n: 30 },
      lease: { claimedAt: null, expiresAt: null },
      headers: { Authorization: '[REDACTED]', 'X-Trace': 't-1' },
    });
    expect(JSON.stringify(row)).not.toContain('pw@');
    expect(JSON.stringify(row)).not.toContain('zz-secret');

    const [dead] = ((await (await get('/admin/inbox?source=hooks&state=dead')).json()) as Page)
      .rows;
    const inbox = (await (await get(`/admin/inbox/${dead!.id}`)).json()) as Record<string, unknown>;
    expect(inbox.headers).toEqual({ 'X-Hook-Key': '[REDACTED]', 'X-Request': 'r-1' });
    expect((await get('/admin/outbox/7d0c8f5e-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await get('/admin/outbox/not-a-uuid')).status).toBe(400);
  });

  it('requeues dead inbox rows as §17.5 says, bounded by limit, and a repeat moves nothing', async () => {
    const first = await post('/admin/inbox/replay', { source: 'hooks', limit: 3 });
    expect(await first.json()).toEqual({ moved: 3 });
    const rest = await post('/admin/inbox/replay', { source: 'hooks', limit: 3 });
    expect(await rest.json()).toEqual({ moved: 1 });
    expect(await (await post('/admin/inbox/replay', { source: 'hooks' })).json()).toEqual({
      moved: 0,
    });
    const rows =
      await db.sql`SELECT state, attempt, last_error, processed_at FROM inbox WHERE idempotency_key LIKE 'i%'`;
    expect(
      rows.every((r) => r.state === 'pending' && r.attempt === 0 && r.last_error === null),
    ).toBe(true);
    const processed = await db.sql`SELECT state FROM inbox WHERE idempotency_key = 'p1'`;
    expect(processed[0]!.state).toBe('processed');
    expect(lines).toContain('Inbox replay moved 3 row(s). Filter: sources=hooks limit=3');
    expect((await post('/admin/inbox/replay', {})).status).toBe(400);
  });

  it('discards only dead rows, only with confirm, and logs the filter and count', async () => {
    const unconfirmed = await post('/admin/outbox/discard', { topic: 'order.created' });
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.json()).toEqual({
      error: 'A discard deletes rows for good: send "confirm": true.',
    });
    const done = await post('/admin/outbox/discard', {
      topic: 'order.created',
      confirm: true,
      limit: 20,
    });
    expect(await done.json()).toEqual({ discarded: 20 });
    const left = await db.sql<
      { state: string; n: number }[]
    >`SELECT state, count(*)::int AS n FROM outbox WHERE topic = 'order.created' GROUP BY state ORDER BY state`;
    expect(left.map((r) => [r.state, r.n])).toEqual([
      ['dead', 10],
      ['pending', 3],
      ['sent', 2],
    ]);
    expect(lines).toContain(
      'Discard deleted 20 dead outbox row(s). Filter: topics=order.created limit=20',
    );
    expect((await post('/admin/inbox/discard', { confirm: true })).status).toBe(400);
    expect(
      await (await post('/admin/inbox/discard', { confirm: true, source: 'hooks' })).json(),
    ).toEqual({
      discarded: 4,
    });
  });

  it('keeps the reference replay answer and sends the security headers on every admin answer', async () => {
    const replay = await post('/admin/replay', { topic: 'billing.paid' });
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ moved: 5 });
    for (const response of [replay, await get('/admin/stats'), await get('/admin/console')]) {
      expect(response.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(response.headers.get('x-frame-options')).toBe('DENY');
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('serves the console page, which names the credential it needs', async () => {
    const page = await get('/admin/console', {});
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('data-auth="bearer"');
    expect(html).toContain('<script type="module" src="console/app.js">');
    expect(html).not.toContain(TOKEN);
  });
});
