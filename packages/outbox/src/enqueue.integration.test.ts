import { silentLogger } from '@queuebox/core';
import { runMigrations } from '@queuebox/postgres';
import { createFreshDatabase, requireService, type FreshDatabase } from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLIENT_KINDS, openClient, type TestClient } from '../test/clients.js';
import { startRelayToSink, type RelayToSink } from '../test/relay-to-sink.js';
import { expectRollbackWritesNothing } from '../test/rollback-case.js';
import { createOutbox, enqueue, enqueueMany } from './index.js';

const pg = await requireService('postgres', 'outbox client: enqueue on each client library');

interface OutboxRow {
  id: string;
  topic: string;
  key: string | null;
  aggregate_type: string | null;
  payload: unknown;
  payload_text: string;
  headers: Record<string, string>;
  state: string;
  attempt: number;
  max_attempts: number;
  scheduled_at: Date;
  sequence: string;
}

/**
 * Each supported client library writes outbox rows in its own transaction on the real
 * PostgreSQL, migrated by QueueBox's own migrations: a rollback leaves nothing, a commit leaves
 * exactly the rows asked for.
 */
describe.skipIf(!pg.available).each(CLIENT_KINDS.map((kind) => ({ kind })))(
  'enqueue through $kind',
  ({ kind }) => {
    let db: FreshDatabase;
    let client: TestClient;
    const rows = async (topic: string) =>
      db.sql<OutboxRow[]>`SELECT *, payload::text AS payload_text FROM outbox
        WHERE topic = ${topic} ORDER BY sequence`;

    beforeAll(async () => {
      db = await createFreshDatabase(pg.available ? pg.url : '');
      await runMigrations(db.sql, { logger: silentLogger });
      client = openClient(kind, db.url);
    });
    afterAll(async () => {
      await client?.close();
      await db?.drop();
    });

    it('writes nothing when the transaction rolls back', async () => {
      await expectRollbackWritesNothing((work) => client.transaction(work), rows);
    });

    it('writes one row with every field an application may set, and returns its id', async () => {
      const scheduledAt = new Date(Date.now() + 3_600_000);
      const id = await client.transaction((tx) =>
        enqueue(tx, {
          topic: 'order.created',
          key: 'order-42',
          payload: { orderId: 42, note: 'it\'s "quoted" \\ {braces}', list: [1, null] },
          headers: { 'x-tenant': 'acme', 'x-trace': 'a,b' },
          aggregateType: 'order',
          scheduledAt,
          maxAttempts: 9,
        }),
      );
      const [row, ...rest] = await rows('order.created');
      expect(rest).toEqual([]);
      expect(row).toMatchObject({
        id,
        topic: 'order.created',
        key: 'order-42',
        aggregate_type: 'order',
        payload: { orderId: 42, note: 'it\'s "quoted" \\ {braces}', list: [1, null] },
        headers: { 'x-tenant': 'acme', 'x-trace': 'a,b' },
        state: 'pending',
        attempt: 0,
        max_attempts: 9,
      });
      expect(row!.scheduled_at.getTime()).toBe(scheduledAt.getTime());
    });

    it('leaves the optional columns to their defaults', async () => {
      const before = Date.now();
      const id = await client.transaction((tx) => enqueue(tx, { topic: 'minimal', payload: 7 }));
      const [row] = await rows('minimal');
      expect(row).toMatchObject({
        id,
        key: null,
        aggregate_type: null,
        payload: 7,
        headers: {},
        max_attempts: 5,
      });
      expect(Math.abs(row!.scheduled_at.getTime() - before)).toBeLessThan(60_000);
    });

    it('keeps payloadJson exactly as written, digits past 2^53 included', async () => {
      await client.transaction((tx) =>
        enqueue(tx, { topic: 'exact', payloadJson: '{"amount": 12345678901234567890}' }),
      );
      const [row] = await rows('exact');
      expect(row!.payload_text).toBe('{"amount": 12345678901234567890}');
    });

    it('writes many rows in one call, in array order, and returns their ids in that order', async () => {
      const messages = Array.from({ length: 25 }, (_, n) => ({
        topic: 'many',
        key: n % 2 === 0 ? 'even' : null,
        payload: { n },
      }));
      const ids = await client.transaction((tx) => enqueueMany(tx, messages));
      const written = await rows('many');
      expect(written.map((r) => r.id)).toEqual(ids);
      expect(written.map((r) => r.payload)).toEqual(messages.map((m) => m.payload));
      expect(new Set(ids).size).toBe(25);
      expect(await client.transaction((tx) => enqueueMany(tx, []))).toEqual([]);
    });

    it('refuses what an application must not write, before anything reaches the table', async () => {
      await expect(
        client.transaction((tx) =>
          enqueue(tx, { topic: 'refused', payload: {}, attempt: 3 } as never),
        ),
      ).rejects.toThrow("sets 'attempt', which QueueBox writes itself");
      expect(await rows('refused')).toEqual([]);
    });

    it('writes into renamed tables and columns', async () => {
      await db.sql.unsafe(RENAMED_DDL);
      const outbox = createOutbox({ schema: RENAMED_SCHEMA });
      const [first, second] = await client.transaction((tx) =>
        outbox.enqueueMany(tx, [
          { topic: `renamed.${kind}`, key: 'k', payloadJson: '[1,2]', headers: { h: 'v' } },
          { topic: `renamed.${kind}`, payload: { two: 2 } },
        ]),
      );
      const written = await db.sql.unsafe<
        { c_id: string; c_payload: unknown; c_headers: unknown }[]
      >(
        `SELECT c_id, c_payload, c_headers FROM app_outbox WHERE c_topic = $1 ORDER BY c_sequence`,
        [`renamed.${kind}`],
      );
      expect(written).toEqual([
        { c_id: first, c_payload: [1, 2], c_headers: { h: 'v' } },
        { c_id: second, c_payload: { two: 2 }, c_headers: {} },
      ]);
    });
  },
);

/**
 * A committed row is delivered: a running QueueBox (the built service) sends each client's row
 * to a real HTTP sink, and a number past 2^53 in payloadJson arrives with every digit.
 */
describe.skipIf(!pg.available)('rows committed through each client reach QueueBox', () => {
  let relay: RelayToSink;
  const clients: TestClient[] = [];

  beforeAll(async () => {
    relay = await startRelayToSink(pg.available ? pg.url : '', 'client.*');
    for (const kind of CLIENT_KINDS) clients.push(openClient(kind, relay.db.url));
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await relay?.close();
  });

  it('delivers every committed row and none that rolled back, payloadJson exact', async () => {
    const sent = new Map<string, string>();
    for (const client of clients) {
      const topic = `client.${client.kind.replace('.', '-')}`;
      await client
        .transaction(async (tx) => {
          await enqueue(tx, { topic, payload: { rolledBack: true } });
          throw new Error('rolled back');
        })
        .catch(() => undefined);
      const id = await client.transaction((tx) =>
        enqueue(tx, {
          topic,
          key: client.kind,
          payloadJson: `{"client":"${client.kind}","amount":12345678901234567890}`,
        }),
      );
      sent.set(id, client.kind);
    }
    const deadline = Date.now() + 20_000;
    while (relay.sink.requests.length < sent.size && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(relay.sink.requests.length, relay.queuebox.output()).toBe(sent.size);
    for (const request of relay.sink.requests) {
      const kind = sent.get(String(request.headers['x-message-id']));
      expect(kind).toBeDefined();
      expect(request.body).toMatch(/"amount":\s*12345678901234567890[,}]/);
      expect(JSON.parse(request.body.replace(/12345678901234567890/, '0'))).toEqual({
        client: kind,
        amount: 0,
      });
    }
    // Nothing else arrives: the rolled-back rows were never there.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(relay.sink.requests.length).toBe(sent.size);
  });
});

const RENAMED_SCHEMA = {
  table: 'app_outbox',
  columns: {
    id: 'c_id',
    topic: 'c_topic',
    key: 'c_key',
    aggregateType: 'c_aggregate_type',
    payload: 'c_payload',
    headers: 'c_headers',
    maxAttempts: 'c_max_attempts',
    scheduledAt: 'c_scheduled_at',
    state: 'c_state',
  },
};

const RENAMED_DDL = `CREATE TABLE IF NOT EXISTS app_outbox (
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
  c_sequence BIGINT GENERATED BY DEFAULT AS IDENTITY
)`;
