/**
 * One end-to-end suite for every broker source: messages through the real service into the real
 * inbox. Attributes and headers as the broker's spec section converts them, one row for a message
 * delivered twice, dead rows (then settled) for a body that is not JSON, one that cannot be stored
 * and a transform rejection, and a database outage (the service reaches PostgreSQL through a fault
 * proxy) during which nothing is settled, stored once it is back. Each broker's file supplies a
 * `SourceE2EBroker`: its scratch queues, how it sends and how "settled" reads on it, and the
 * tests that only it has.
 */
import {
  createFreshDatabase,
  startFaultProxy,
  type FaultProxy,
  type FreshDatabase,
} from '@queuebox/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, digest, inboxRows, readyComponents, type InboxRow } from './e2e-rows.js';
import { eventually, startTestService } from './service.js';
import { RELAY_OFF } from './yaml-blocks.js';

/** The two sources every broker's suite runs: `orders` with paths, `strict` with a transform. */
export type SourceChannel = 'orders' | 'strict';

export interface SendOptions {
  /** The broker's own message key (AMQP message_id, Nats-Msg-Id, the Kafka record key). */
  readonly key?: string;
}

export interface SourceE2EScratch {
  /** The broker's lines of a source's YAML block (type, address, queue), indented by four. */
  yaml(channel: SourceChannel): string;
  /** Sends `body` (null: a message without a body, where the broker has one). */
  send(channel: SourceChannel, body: string | null, options?: SendOptions): Promise<unknown>;
  /** Resolves when the broker holds nothing of the channel unsettled (acked or committed). */
  settled(channel: SourceChannel): Promise<unknown>;
  /** What the broker holds unsettled of the channel now, where the broker can say. */
  outstanding?(channel: SourceChannel): Promise<number>;
  cleanup(): Promise<void>;
}

export interface SourceE2EEnv {
  readonly db: FreshDatabase;
  readonly scratch: SourceE2EScratch;
  readonly rows: (source: string) => Promise<InboxRow[]>;
  readonly rowByKey: (source: string, key: string) => Promise<InboxRow>;
}

export interface SourceE2EBroker {
  /** The provider's name: the sources' `type` and their readiness components' prefix. */
  readonly kind: string;
  /** The describe title (a skip title where a service is missing). */
  readonly title: string;
  readonly ready: boolean;
  readonly pgUrl: string;
  readonly database: string;
  /** How long the first message may take (a Kafka consumer group joins first). */
  readonly firstMessageMs?: number;
  /** How long the outage test may take. */
  readonly outageTestMs: number;
  open(): Promise<SourceE2EScratch>;
  /** The first test's message: sent with the broker's attributes and headers, and its row. */
  readonly attributes: {
    readonly title: string;
    send(): Promise<unknown>;
    readonly row: Partial<InboxRow>;
  };
  /** Tests only this broker has (its key fallbacks, its empty messages). */
  readonly ownTests?: (env: () => SourceE2EEnv) => void;
}

const SOURCES_YAML = (scratch: SourceE2EScratch) => `
sources:
  orders:
${scratch.yaml('orders')}
    aggregateIdPath: $.order
    eventTypePath: $.type
  strict:
${scratch.yaml('strict')}
    transform:
      expression: 'type = "bad" ? $error("refused") : {"wrapped": $}'
      onError: Dead
`;

export function sourceE2ESuite(broker: SourceE2EBroker): void {
  describe.skipIf(!broker.ready)(broker.title, () => {
    let db: FreshDatabase;
    let scratch: SourceE2EScratch;
    let dbProxy: FaultProxy;
    let service: Awaited<ReturnType<typeof startTestService>>;
    const inbox = inboxRows(() => db);
    const rowByKey = (source: string, key: string) =>
      inbox.rowByKey(source, key, broker.firstMessageMs);
    const env = (): SourceE2EEnv => ({ db, scratch, rows: inbox.rows, rowByKey });

    beforeAll(async () => {
      db = await createFreshDatabase(broker.pgUrl, broker.database);
      scratch = await broker.open();
      dbProxy = await startFaultProxy({ target: { host: db.host, port: db.port } });
      service = await startTestService(
        { jdbcUrl: `jdbc:postgresql://${dbProxy.host}:${dbProxy.port}/${db.name}`, user: db.user },
        `
database:
  migrate: true
  connectionTimeoutMs: 2000
${RELAY_OFF}
${SOURCES_YAML(scratch)}`,
      );
    });
    afterAll(async () => {
      await service?.stop();
      await dbProxy?.close();
      await scratch?.cleanup();
      await db?.drop();
    });

    it(broker.attributes.title, async () => {
      await broker.attributes.send();
      // The path wins over the broker's own key for both the idempotency key and the aggregate id.
      const row = await rowByKey('orders', '12345678901234567890');
      expect(row).toMatchObject({
        aggregate_id: '7',
        event_type: 'order.paid',
        state: 'pending',
        ...broker.attributes.row,
      });
      const [text] = await db.sql<{ text: string }[]>`
        SELECT payload::text AS text FROM inbox WHERE id = ${row.id}`;
      // Stored as jsonb: the big number keeps its digits.
      expect(text!.text).toBe('{"id": 12345678901234567890, "type": "order.paid", "order": 7}');
      await scratch.settled('orders');
      const components = await readyComponents(service.base);
      expect(Object.keys(components)).toEqual([
        'database',
        'outbox-poller',
        `${broker.kind}.orders`,
        `${broker.kind}.strict`,
      ]);
      expect(components[`${broker.kind}.orders`]).toEqual({ status: 'up' });
    });

    it('stores a message delivered twice once, and settles both', async () => {
      const body = '{"id": "twice-1", "order": 1}';
      await scratch.send('orders', body);
      await scratch.send('orders', body);
      await rowByKey('orders', 'twice-1');
      await scratch.settled('orders');
      expect(
        (await inbox.rows('orders')).filter((r) => r.idempotency_key === 'twice-1'),
      ).toHaveLength(1);
    });

    it('stores a body that is not JSON and a message that cannot be stored as dead rows, and settles them', async () => {
      const nulBody = '{"id": "nul", "note": "a\\u0000b"}';
      const longBody = JSON.stringify({ id: 'k'.repeat(300) });
      await scratch.send('orders', 'plain text, not JSON');
      await scratch.send('orders', nulBody);
      await scratch.send('orders', longBody);
      expect(await rowByKey('orders', digest('plain text, not JSON'))).toMatchObject({
        state: 'dead',
        payload: { raw: 'plain text, not JSON' },
      });
      expect(await rowByKey('orders', digest(nulBody))).toMatchObject({
        state: 'dead',
        payload: { raw: nulBody },
      });
      expect(await rowByKey('orders', digest(longBody))).toMatchObject({
        state: 'dead',
        payload: { id: 'k'.repeat(300) },
      });
      await scratch.settled('orders');
    });

    it('stores the transform result, and a rejected message as a dead row with its original body', async () => {
      await scratch.send('strict', '{"id": "good", "type": "ok"}');
      await scratch.send('strict', '{"id": "bad", "type": "bad"}');
      expect(await rowByKey('strict', 'good')).toMatchObject({
        state: 'pending',
        payload: { wrapped: { id: 'good', type: 'ok' } },
      });
      expect(await rowByKey('strict', 'bad')).toMatchObject({
        state: 'dead',
        payload: { id: 'bad', type: 'bad' },
      });
      await scratch.settled('strict');
    });

    broker.ownTests?.(env);

    it(
      'settles nothing while the database is gone and stores every message once it is back',
      async () => {
        const outage = `SELECT count(*)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`;
        dbProxy.refuse();
        dbProxy.cut();
        try {
          for (let i = 0; i < 20; i++)
            await scratch.send('orders', JSON.stringify({ id: `outage-${i}` }), {
              key: `outage-key-${i}`,
            });
          // Not settled while nothing can be stored: the broker keeps them.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
          expect(await count(db, outage)).toBe(0);
          if (scratch.outstanding) expect(await scratch.outstanding('orders')).toBe(20);
        } finally {
          dbProxy.restore();
        }
        await eventually(async () => (await count(db, outage)) === 20, 30_000);
        expect(
          await count(
            db,
            `SELECT count(DISTINCT idempotency_key)::int AS n FROM inbox WHERE idempotency_key LIKE 'outage-%'`,
          ),
        ).toBe(20);
        await scratch.settled('orders');
      },
      broker.outageTestMs,
    );
  });
}
