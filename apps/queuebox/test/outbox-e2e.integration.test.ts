import { type FreshDatabase } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { e2eServices } from './e2e-services.js';
import { eventually } from './service.js';
import { sinkScenario } from './sink-scenario.js';
import { RELAY_OFF, httpSink } from './yaml-blocks.js';

const { ready, pgUrl } = await e2eServices('app: outbox end to end');

interface Row {
  id: string;
  state: string;
  attempt: number;
  last_error: string | null;
}

/**
 * The outbox through the real service: rows an application commits reach a real HTTP sink with
 * every header, failures retry with a growing delay and become dead at the row's ceiling, and a
 * topic no route matches is dead at once. Once on the reference schema, once on renamed tables.
 */
describe.skipIf(!ready).each([{ schema: 'reference' as const }, { schema: 'renamed' as const }])(
  'outbox delivery on the $schema schema',
  ({ schema }) => {
    const table = schema === 'reference' ? 'outbox' : 'app_outbox';
    const col = (name: string) => (schema === 'reference' ? name : `c_${name}`);
    const mapping =
      schema === 'renamed'
        ? `  migrate: false\n  outboxTableName: app_outbox\n  columnMapping:\n    outbox:\n${OUTBOX_COLUMNS.map((c) => `      ${camel(c)}: c_${c}`).join('\n')}\n    inbox:\n      headers: headers\n`
        : '';

    const h = sinkScenario({
      pgUrl,
      handler: (request, response) => {
        // `fail-twice` rows fail their first two attempts; `always-fail` rows never succeed;
        // `refused-once` rows get a 422 on their first attempt.
        const attempt = Number(request.headers['x-attempt']);
        const body = JSON.parse(request.body) as { mode?: string };
        if (body.mode === 'refused-once' && attempt === 0) {
          response.writeHead(422).end('{"error":"invalid order"}');
          return;
        }
        const fail = body.mode === 'always-fail' || (body.mode === 'fail-twice' && attempt < 2);
        response.writeHead(fail ? 503 : 200).end(fail ? 'busy, password=hunter2' : 'ok');
      },
      async prepare(db) {
        if (schema !== 'renamed') return;
        await createRenamedOutbox(db);
        await db.sql.unsafe(
          `CREATE TABLE inbox (id uuid PRIMARY KEY, headers jsonb NOT NULL DEFAULT '{}')`,
        );
      },
      yaml: (sinkUrl) => `
database:
${mapping || '  migrate: true'}
outbox:
  retryBaseDelayMs: 100
  pollIntervalMs: 50
${RELAY_OFF}
destinations:
${httpSink(sinkUrl)}
    path: /events
    headers:
      X-Static: static
routes:
  - topicPattern: "order.*"
    destination: sink
`,
    });

    const insert = (
      topic: string,
      payload: object,
      extra: { key?: string; maxAttempts?: number; headers?: object } = {},
    ) =>
      h.db.sql.unsafe<{ id: string }[]>(
        `INSERT INTO ${table} (${col('topic')}, ${col('key')}, ${col('payload')}, ${col('headers')}, ${col('max_attempts')})
       VALUES ($1, $2, $3::text::jsonb, $4::text::jsonb, $5) RETURNING ${col('id')} AS id`,
        [
          topic,
          extra.key ?? null,
          JSON.stringify(payload),
          JSON.stringify(extra.headers ?? {}),
          extra.maxAttempts ?? 5,
        ],
      );
    const row = async (id: string) =>
      (
        await h.db.sql.unsafe<Row[]>(
          `SELECT ${col('state')} AS state, ${col('attempt')} AS attempt, ${col('last_error')} AS last_error, ${col('id')} AS id FROM ${table} WHERE ${col('id')} = $1`,
          [id],
        )
      )[0]!;

    it('delivers a row with every header and marks it sent', async () => {
      const [inserted] = await insert(
        'order.created',
        { step: 1 },
        { key: 'order-42', headers: { 'X-Correlation-Id': 'corr-1', 'X-Static': 'row-wins' } },
      );
      const id = inserted!.id;
      await eventually(async () => (await row(id)).state === 'sent');
      const request = h.sink.requests.find((r) => r.headers['x-message-id'] === id)!;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/events');
      expect(JSON.parse(request.body)).toEqual({ step: 1 });
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers['x-topic']).toBe('order.created');
      expect(request.headers['x-attempt']).toBe('0');
      expect(request.headers['x-message-key']).toBe('order-42');
      expect(request.headers['x-correlation-id']).toBe('corr-1');
      expect(request.headers['x-static']).toBe('row-wins');
    });

    it('sends the payload as jsonb holds it, every number exactly as stored', async () => {
      const [inserted] = await h.db.sql.unsafe<{ id: string }[]>(
        `INSERT INTO ${table} (${col('topic')}, ${col('payload')}) VALUES ('order.numbers', $1::text::jsonb) RETURNING ${col('id')} AS id`,
        [
          '{"id": 12345678901234567890, "amount": 1.50, "big": 1e30, "tiny": -1e-21, "zero": 0.0, "huge": 1e400}',
        ],
      );
      const id = inserted!.id;
      await eventually(async () => (await row(id)).state === 'sent');
      const request = h.sink.requests.find((r) => r.headers['x-message-id'] === id)!;
      const [stored] = await h.db.sql.unsafe<{ text: string }[]>(
        `SELECT ${col('payload')}::text AS text FROM ${table} WHERE ${col('id')} = $1`,
        [id],
      );
      // jsonb's own text: numeric keeps the digits and the scale (1.50), never a double's form.
      expect(request.body).toBe(stored!.text);
      expect(request.body).toBe(
        `{"id": 12345678901234567890, "big": 1000000000000000000000000000000, "huge": 1${'0'.repeat(400)}, "tiny": -0.000000000000000000001, "zero": 0.0, "amount": 1.50}`,
      );
    });

    it('retries with a growing delay and the sanitized last_error, then delivers', async () => {
      const [inserted] = await insert('order.paid', { mode: 'fail-twice' });
      const id = inserted!.id;
      await eventually(async () => (await row(id)).state === 'sent');
      const attempts = h.sink.requests.filter((r) => r.headers['x-message-id'] === id);
      expect(attempts.map((r) => r.headers['x-attempt'])).toEqual(['0', '1', '2']);
      const final = await row(id);
      expect(final.attempt).toBe(2);
      expect(final.last_error).toBe('HTTP 503: Service Unavailable - busy, password=[REDACTED]');
    });

    it('retries a 4xx like any failure: no answer of a destination makes a row dead at once', async () => {
      const [inserted] = await insert('order.refused', { mode: 'refused-once' });
      const id = inserted!.id;
      await eventually(async () => (await row(id)).state === 'sent');
      const attempts = h.sink.requests.filter((r) => r.headers['x-message-id'] === id);
      expect(attempts.map((r) => r.headers['x-attempt'])).toEqual(['0', '1']);
      expect((await row(id)).last_error).toBe(
        'HTTP 422: Unprocessable Entity - {"error":"invalid order"}',
      );
    });

    it('goes dead at the row’s own max_attempts', async () => {
      const [inserted] = await insert('order.failed', { mode: 'always-fail' }, { maxAttempts: 2 });
      const id = inserted!.id;
      const dead = await eventually(async () => {
        const current = await row(id);
        return current.state === 'dead' ? current : undefined;
      });
      expect(dead.attempt).toBe(2);
      expect(h.sink.requests.filter((r) => r.headers['x-message-id'] === id)).toHaveLength(3);
      expect(dead.last_error).toContain('HTTP 503');
    });

    it('marks a row no route matches dead at once, with the reference reason', async () => {
      const [inserted] = await insert('invoice.sent', { x: 1 });
      const id = inserted!.id;
      const dead = await eventually(async () => {
        const current = await row(id);
        return current.state === 'dead' ? current : undefined;
      });
      expect(dead.last_error).toBe("No route matches topic 'invoice.sent'");
      expect(dead.attempt).toBe(0);
      expect(h.sink.requests.some((r) => r.headers['x-message-id'] === id)).toBe(false);
    });

    it('delivers the rows of one key in insert order while a retry holds the key back', async () => {
      const ids: string[] = [];
      await h.db.sql.begin(async (tx) => {
        for (const [step, mode] of [
          [1, 'fail-twice'],
          [2, 'ok'],
          [3, 'ok'],
        ] as const) {
          const [r] = await tx.unsafe<{ id: string }[]>(
            `INSERT INTO ${table} (${col('topic')}, ${col('key')}, ${col('payload')}) VALUES ('order.step', 'k-order', $1::text::jsonb) RETURNING ${col('id')} AS id`,
            [JSON.stringify({ step, mode })],
          );
          ids.push(r!.id);
        }
      });
      await eventually(async () => (await row(ids[2]!)).state === 'sent');
      const delivered = h.sink.requests
        .filter(
          (r) => r.headers['x-message-key'] === 'k-order' && r.headers['x-attempt'] !== undefined,
        )
        .map(
          (r) =>
            `${(JSON.parse(r.body) as { step: number }).step}@${String(r.headers['x-attempt'])}`,
        );
      expect(delivered).toEqual(['1@0', '1@1', '1@2', '2@0', '3@0']);
    });
  },
);

const OUTBOX_COLUMNS = [
  'id',
  'topic',
  'key',
  'aggregate_type',
  'payload',
  'headers',
  'state',
  'attempt',
  'max_attempts',
  'scheduled_at',
  'created_at',
  'updated_at',
  'claimed_at',
  'claim_token',
  'lease_expires_at',
  'last_error',
  'sequence',
];

const camel = (snake: string) => snake.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/** The reference outbox DDL (spec §3.2) with every name changed, as an operator's own schema. */
async function createRenamedOutbox(db: FreshDatabase): Promise<void> {
  await db.sql.unsafe(`
    CREATE TABLE app_outbox (
      c_id UUID PRIMARY KEY DEFAULT gen_random_uuid(),
      c_topic VARCHAR(255) NOT NULL,
      c_key VARCHAR(255),
      c_aggregate_type VARCHAR(255),
      c_payload JSONB NOT NULL,
      c_headers JSONB NOT NULL DEFAULT '{}',
      c_state VARCHAR(50) NOT NULL DEFAULT 'pending',
      c_attempt INTEGER NOT NULL DEFAULT 0,
      c_max_attempts INTEGER NOT NULL DEFAULT 5,
      c_scheduled_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
      c_created_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
      c_updated_at TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
      c_claimed_at TIMESTAMPTZ,
      c_claim_token UUID,
      c_lease_expires_at TIMESTAMPTZ,
      c_last_error TEXT,
      c_sequence BIGINT GENERATED BY DEFAULT AS IDENTITY
    );
    CREATE INDEX ON app_outbox (c_state, c_scheduled_at) WHERE c_state = 'pending';
    CREATE INDEX ON app_outbox (c_key, c_sequence) WHERE c_state IN ('pending', 'processing');`);
}
