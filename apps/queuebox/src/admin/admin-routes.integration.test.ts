import { createHmac } from 'node:crypto';
import { silentLogger, systemClock, type AppConfig, type Database } from '@queuebox/core';
import {
  createJsonataTransformer,
  createMessageRouter,
  validateRouting,
} from '@queuebox/outbox-service';
import { provider } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { Hono } from 'hono';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { testConfig } from '../../test/app-config.js';
import { createMetricsRegistry } from '../observability/metrics.js';
import { buildHttpApps } from '../http/apps.js';
import { RequestDrain } from '../http/drain.js';
import { adminRoutes } from '../startup/http-routes.js';
import { TransformSandbox } from './transform-sandbox.js';

const pg = await requireService('postgres', 'app: admin routes');
const pgUrl = pg.available ? pg.url : '';

const YAML = (admin: string) => `
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
admin:
${admin}
`;

const SECRET = 'admin-hmac-secret';
const sign = (body: string) => `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;

describe.skipIf(!pg.available)('admin routes on a real database', () => {
  let db: FreshDatabase;
  let database: Database;
  let config: AppConfig;
  let app: Hono;
  const sandbox = new TransformSandbox();

  beforeAll(async () => {
    db = await createFreshDatabase(pgUrl);
    config = testConfig(
      db,
      YAML(
        `  enabled: true\n  maxPayloadBytes: 2048\n  auth:\n    type: hmac\n    secret: ${SECRET}\n`,
      ),
    );
    database = await provider.open(config, { logger: silentLogger, clock: systemClock });
    await database.migrate();
    const transformer = createJsonataTransformer();
    const router = createMessageRouter(validateRouting(config, transformer));
    app = new Hono();
    adminRoutes(config, database, sandbox, router, silentLogger)!(app);
  });
  afterAll(async () => {
    await sandbox.close();
    await database?.close();
    await db?.drop();
  });

  const post = (
    path: string,
    body: string,
    headers: Record<string, string> = { 'X-Signature': sign(body) },
  ) =>
    app.request(path, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', ...headers },
    });

  describe('POST /admin/transform/test', () => {
    it('200 with the result and the first-delivery context', async () => {
      const body = JSON.stringify({
        expression: '{"total": amount * 2, "topic": $topic, "attempt": $attempt}',
        payload: { amount: 21 },
      });
      const res = await post('/admin/transform/test', body);
      expect(res.status).toBe(200);
      const json = (await res.json()) as {
        success: boolean;
        result: unknown;
        context: Record<string, unknown>;
      };
      expect(json.success).toBe(true);
      expect(json.result).toEqual({ total: 42, topic: 'test.topic', attempt: 0 });
      expect(json.context.topic).toBe('test.topic');
      expect(json.context.attempt).toBe(0);
      expect(typeof json.context.messageId).toBe('string');
      expect(Number.isNaN(Date.parse(String(json.context.timestamp)))).toBe(false);
    });

    it('400 for a request without an expression, for a bad expression, and for an evaluation error', async () => {
      const missing = await post('/admin/transform/test', JSON.stringify({ payload: {} }));
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as { error: string }).error).toMatch(/^Invalid request: /);
      const invalid = await post(
        '/admin/transform/test',
        JSON.stringify({ expression: '{{', payload: {} }),
      );
      expect(invalid.status).toBe(400);
      expect(await invalid.json()).toMatchObject({
        success: false,
        error: expect.stringMatching(/^Invalid expression: /),
      });
      const failing = await post(
        '/admin/transform/test',
        JSON.stringify({ expression: '$error("nope")', payload: {} }),
      );
      expect(failing.status).toBe(400);
      expect(await failing.json()).toEqual({ success: false, error: 'nope' });
    });

    it('400 when the evaluation runs past the clamped timeout', async () => {
      const body = JSON.stringify({
        expression: '($f := function($x){ $f($x + 1) }; $f(0))',
        payload: {},
        timeoutMs: 50,
      });
      const res = await post('/admin/transform/test', body);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { success: boolean }).success).toBe(false);
    });

    /** The longest the event loop stayed blocked while `work` ran, probed every 10 ms. */
    const eventLoopStall = async <T>(
      work: T | Promise<T>,
    ): Promise<{ value: T; stallMs: number }> => {
      let stallMs = 0;
      let last = performance.now();
      const probe = setInterval(() => {
        const now = performance.now();
        stallMs = Math.max(stallMs, now - last - 10);
        last = now;
      }, 10);
      try {
        return { value: await work, stallMs };
      } finally {
        clearInterval(probe);
      }
    };
    const TIMEOUT_OR_MEMORY =
      /^Expression evaluation (timeout after 1000 ms: Check for infinite loop\.|ran out of memory \(limit 64 MB\))/;

    it('stops $string([1..1e7]) within its limit without stalling the event loop', async () => {
      const started = performance.now();
      const { value: res, stallMs } = await eventLoopStall(
        post(
          '/admin/transform/test',
          JSON.stringify({ expression: '$string([1..1e7])', payload: {}, timeoutMs: 1000 }),
        ),
      );
      expect(performance.now() - started).toBeLessThan(1000 + 700);
      expect(stallMs).toBeLessThan(200);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { success: boolean; error: string };
      expect(body.success).toBe(false);
      expect(body.error).toMatch(TIMEOUT_OR_MEMORY);
    });

    it('ends a memory bomb with an error, then answers a normal expression', async () => {
      const { value: res, stallMs } = await eventLoopStall(
        post(
          '/admin/transform/test',
          JSON.stringify({
            expression: '$pad("", 200000000, "x") & $pad("", 200000000, "y")',
            payload: {},
            timeoutMs: 1000,
          }),
        ),
      );
      expect(stallMs).toBeLessThan(200);
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toMatch(TIMEOUT_OR_MEMORY);
      const normal = await post(
        '/admin/transform/test',
        JSON.stringify({ expression: 'a & "-" & $source', payload: { a: 'x' }, mockSource: 's' }),
      );
      expect(normal.status).toBe(200);
      expect(((await normal.json()) as { result: unknown }).result).toBe('x-s');
    });

    it("answers the guard's own timeout reason when a cooperative expression runs out of time", async () => {
      const res = await post(
        '/admin/transform/test',
        JSON.stringify({
          expression: '($f := function($x){ $x > 1e12 ? $x : $f($x + 1) }; $f(0))',
          payload: {},
          timeoutMs: 200,
        }),
      );
      expect(await res.json()).toEqual({
        success: false,
        error: 'Expression evaluation timeout after 200 ms: Check for infinite loop.',
      });
    });

    it('401 without a valid signature, 413 above admin.maxPayloadBytes before authenticating', async () => {
      const body = JSON.stringify({ expression: '1', payload: {} });
      const unsigned = await post('/admin/transform/test', body, {});
      expect(unsigned.status).toBe(401);
      expect(await unsigned.json()).toEqual({
        success: false,
        error: 'Missing X-Signature header',
      });
      const tampered = await post('/admin/transform/test', body, {
        'X-Signature': sign(`${body} `),
      });
      expect(await tampered.json()).toEqual({ success: false, error: 'Invalid signature' });
      const large = await post(
        '/admin/transform/test',
        JSON.stringify({ expression: '1', payload: 'x'.repeat(3000) }),
        {},
      );
      expect(large.status).toBe(413);
      expect(await large.json()).toEqual({
        success: false,
        error: 'Request body exceeds 2048 bytes',
      });
    });
  });

  describe('POST /admin/replay', () => {
    beforeEach(async () => {
      await db.sql`DELETE FROM outbox`;
      await db.sql`
        INSERT INTO outbox (id, topic, payload, state, attempt, last_error, created_at) VALUES
          ('00000000-0000-4000-8000-000000000001', 'order.created', '{}', 'dead', 5, 'boom', '2026-01-01T00:00:00Z'),
          ('00000000-0000-4000-8000-000000000002', 'order.paid', '{}', 'sent', 0, NULL, '2026-02-01T00:00:00Z'),
          ('00000000-0000-4000-8000-000000000003', 'invoice.sent', '{}', 'dead', 5, 'boom', '2026-03-01T00:00:00Z'),
          ('00000000-0000-4000-8000-000000000004', 'order.created', '{}', 'pending', 2, NULL, '2026-01-01T00:00:00Z'),
          ('00000000-0000-4000-8000-000000000005', 'order.created', '{}', 'processing', 1, NULL, '2026-01-01T00:00:00Z')`;
    });
    const states = async () =>
      Object.fromEntries(
        (
          await db.sql<
            { id: string; state: string; attempt: number }[]
          >`SELECT id, state, attempt FROM outbox ORDER BY id`
        ).map((r) => [r.id.slice(-1), `${r.state}/${r.attempt}`]),
      );

    it('200 moves only sent and dead rows matching every filter, resetting attempt and last_error', async () => {
      const res = await post('/admin/replay', JSON.stringify({ topic: 'order.created' }));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ moved: 1 });
      expect(await states()).toEqual({
        '1': 'pending/0',
        '2': 'sent/0',
        '3': 'dead/5',
        '4': 'pending/2',
        '5': 'processing/1',
      });
      const [row] = await db.sql<
        { last_error: string | null }[]
      >`SELECT last_error FROM outbox WHERE id = '00000000-0000-4000-8000-000000000001'`;
      expect(row?.last_error).toBeNull();
    });

    it('resolves a destination to the topics the real router sends there', async () => {
      const res = await post('/admin/replay', JSON.stringify({ destination: 'orders' }));
      expect(await res.json()).toEqual({ moved: 2 });
      expect(await states()).toMatchObject({ '1': 'pending/0', '2': 'pending/0', '3': 'dead/5' });
      const none = await post(
        '/admin/replay',
        JSON.stringify({ destination: 'orders', topics: ['invoice.sent'] }),
      );
      expect(await none.json()).toEqual({ moved: 0 });
    });

    it('combines ids and time bounds, and an empty ids list matches nothing', async () => {
      const byIds = await post(
        '/admin/replay',
        JSON.stringify({
          ids: ['00000000-0000-4000-8000-000000000003'],
          createdAfter: '2026-02-15T00:00:00Z',
        }),
      );
      expect(await byIds.json()).toEqual({ moved: 1 });
      const empty = await post('/admin/replay', JSON.stringify({ ids: [], topic: 'order.paid' }));
      expect(await empty.json()).toEqual({ moved: 0 });
      const before = await post(
        '/admin/replay',
        JSON.stringify({ createdBefore: '2026-01-15T00:00:00Z' }),
      );
      expect(await before.json()).toEqual({ moved: 1 });
    });

    it('400 for no filter and for an invalid request', async () => {
      for (const body of ['{}', '{"ids":[]}', '{"topic":null,"topics":[]}']) {
        const res = await post('/admin/replay', body);
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: 'A replay needs at least one filter.' });
      }
      for (const body of [
        '{"ids":["not-a-uuid"]}',
        '{"createdAfter":"yesterday"}',
        '{"topics":"x"}',
        'not json',
      ]) {
        const res = await post('/admin/replay', body);
        expect(res.status).toBe(400);
        expect(((await res.json()) as { error: string }).error).toMatch(/^Invalid request: /);
      }
      expect(await states()).toMatchObject({ '1': 'dead/5' });
    });

    it('401 without authentication and 413 above the cap', async () => {
      const unsigned = await post('/admin/replay', '{"topic":"order.created"}', {});
      expect(unsigned.status).toBe(401);
      expect(await unsigned.json()).toEqual({ error: 'Missing X-Signature header' });
      const large = await post('/admin/replay', JSON.stringify({ topics: ['x'.repeat(3000)] }));
      expect(large.status).toBe(413);
      expect(await large.json()).toEqual({ error: 'Request body exceeds 2048 bytes' });
    });
  });

  it('404 when admin is disabled, and on the data port when a management port is set', async () => {
    const disabled = testConfig(db, YAML('  enabled: false'));
    const transformer = createJsonataTransformer();
    const router = createMessageRouter(validateRouting(disabled, transformer));
    expect(adminRoutes(disabled, database, sandbox, router, silentLogger)).toBeUndefined();

    const operatorRoutes = adminRoutes(config, database, sandbox, router, silentLogger)!;
    const apps = buildHttpApps({
      managementPort: 9999,
      maxBodyBytes: 1 << 20,
      registry: createMetricsRegistry('1', Date.now()),
      health: [],
      drain: new RequestDrain(),
      operatorRoutes,
    });
    const body = '{"topic":"order.created"}';
    const init = { method: 'POST', body, headers: { 'X-Signature': sign(body) } };
    expect((await apps.data.request('/admin/replay', init)).status).toBe(404);
    expect((await apps.management!.request('/admin/replay', init)).status).toBe(200);
  });
});
