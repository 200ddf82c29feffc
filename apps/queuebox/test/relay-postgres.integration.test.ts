import {
  JsonPayload,
  silentLogger,
  type InboxStore,
  type NewInboxMessage,
  type RelayConfig,
  type SourceConfig,
} from '@queuebox/core';
import { InboxRelay } from '@queuebox/inbox-service';
import { createPostgresInboxStore, type TableNames } from '@queuebox/postgres';
import {
  createMemoryMetrics,
  inboxMessage,
  mutableClock,
  requireService,
  testPool,
  type FreshDatabase,
} from '@queuebox/testing';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createMigratedDatabase } from './migrated-database.js';

// The relay of inbox-service on the PostgreSQL inbox store: here in the app's tests because
// inbox-service never depends on an adapter (services talk through core's ports).

const pg = await requireService('postgres', 'inbox-service: relay on PostgreSQL');

const RELAY: RelayConfig = {
  enabled: true,
  pollIntervalMs: 20,
  batchSize: 4,
  claimTimeoutMs: 60_000,
  pendingGaugeIntervalMs: 5_000,
  maxAttempts: 8,
};

const SOURCES: Record<string, SourceConfig> = {
  orders: { topic: '{{ source }}.{{ eventType }}' } as SourceConfig,
  payments: { topic: '{{ eventType }}' } as SourceConfig,
};

describe.skipIf(!pg.available)('InboxRelay on PostgreSQL', () => {
  let db: FreshDatabase;
  let names: TableNames;
  let store: InboxStore;
  const clock = mutableClock();

  beforeAll(async () => {
    if (!pg.available) return;
    ({ db, tables: names } = await createMigratedDatabase(pg.url));
    store = createPostgresInboxStore(db.sql, names, clock);
  });

  afterAll(async () => {
    await db?.drop();
  });

  beforeEach(async () => {
    clock.set(new Date());
    await db.sql`DELETE FROM inbox`;
    await db.sql`DELETE FROM outbox`;
  });

  const waitFor = async (condition: () => Promise<boolean>, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!(await condition())) {
      if (Date.now() > end) throw new Error('condition not met in time');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  /** Runs a relay until no push row is left to forward, then closes it. */
  const relayUntilForwarded = async (relay: InboxRelay) => {
    relay.start();
    try {
      await waitFor(async () => (await pendingPush()) === 0);
    } finally {
      await relay.close();
    }
  };
  const pendingPush = async () =>
    Number(
      (
        await db.sql`SELECT count(*) AS n FROM inbox WHERE consumption = 'push' AND state IN ('pending', 'processing')`
      )[0]!.n,
    );
  /** Stores one after the other: each aggregate's rows are created in array order. */
  const storeAll = async (messages: NewInboxMessage[]) => {
    for (const m of messages) await store.store(m, { initialDelayMs: 0 });
    return messages;
  };
  const interleaved = (aggregates: number, perAggregate: number): NewInboxMessage[] =>
    Array.from({ length: aggregates * perAggregate }, (_, n) =>
      inboxMessage({ aggregateId: `agg-${n % aggregates}`, payload: JsonPayload.fromValue({ n }) }),
    );
  const expectKeyOrderEqualsCreatedOrder = async () => {
    const outbox =
      await db.sql`SELECT key, headers->>'x-inbox-id' AS inbox_id FROM outbox ORDER BY sequence`;
    const inbox = await db.sql`
      SELECT id, aggregate_id FROM inbox WHERE consumption = 'push' AND state = 'processed'
      ORDER BY created_at, scheduled_at`;
    const byKey = (rows: readonly { key: string; id: string }[]) => {
      const map = new Map<string, string[]>();
      for (const r of rows) map.set(r.key, [...(map.get(r.key) ?? []), r.id]);
      return map;
    };
    expect(byKey(outbox.map((r) => ({ key: r.key as string, id: r.inbox_id as string })))).toEqual(
      byKey(inbox.map((r) => ({ key: r.aggregate_id as string, id: r.id as string }))),
    );
    expect(new Set(outbox.map((r) => r.inbox_id as string)).size).toBe(outbox.length);
  };

  it('forwards every push row once, each aggregate in created order, and keeps the metrics', async () => {
    // A pull row received 100 s ago: never touched by the relay, but the gauge counts it.
    clock.set(new Date(Date.now() - 100_000));
    const [pull] = await storeAll([inboxMessage({ consumption: 'pull', aggregateId: 'agg-0' })]);
    clock.set(new Date());
    const pushed = await storeAll(interleaved(5, 6));
    const [special] = await storeAll([
      inboxMessage({
        aggregateId: 'agg-x',
        correlationId: 'corr-9',
        headers: { 'X-INBOX-ID': 'forged', 'x-correlation-id': 'forged', 'X-Custom': 'kept' },
      }),
    ]);
    const [blank] = await storeAll([inboxMessage({ source: 'payments', eventType: null })]);

    const metrics = createMemoryMetrics().relay;
    await relayUntilForwarded(
      new InboxRelay({ store, relay: RELAY, sources: SOURCES, metrics, logger: silentLogger }),
    );

    await expectKeyOrderEqualsCreatedOrder();
    const outbox = await db.sql`SELECT * FROM outbox ORDER BY sequence`;
    expect(outbox).toHaveLength(pushed.length + 1);
    const forwarded = outbox.find((r) => r.headers['x-inbox-id'] === special!.id)!;
    expect(forwarded).toMatchObject({
      topic: 'orders.order.created',
      key: 'agg-x',
      payload: special!.payload.value,
      state: 'pending',
      attempt: 0,
      max_attempts: 8,
      aggregate_type: null,
      headers: {
        'X-Custom': 'kept',
        'x-inbox-id': special!.id,
        'x-source': 'orders',
        'x-idempotency-key': special!.idempotencyKey,
        'X-Correlation-Id': 'corr-9',
      },
    });
    expect(forwarded.id).not.toBe(special!.id);

    const states = await db.sql`SELECT id, state FROM inbox`;
    const stateOf = (id: string) => states.find((r) => r.id === id)!.state as string;
    expect(stateOf(blank!.id)).toBe('dead');
    expect(stateOf(pull!.id)).toBe('pending');
    expect(pushed.every((m) => stateOf(m.id) === 'processed')).toBe(true);

    expect(metrics.messages.value({ status: 'forwarded' })).toBe(pushed.length + 1);
    expect(metrics.relayErrors.value()).toBe(1);
    expect(metrics.claimsLost.value({ component: 'inbox' })).toBe(0);
    const age = metrics.oldestPendingAgeSeconds.value();
    expect(age).toBeGreaterThanOrEqual(99);
    expect(age).toBeLessThan(160);
  });

  it('keeps one processing row per aggregate with two relays and a writer at once', async () => {
    await storeAll(interleaved(4, 10));
    const replicas = [createMemoryMetrics().relay, createMemoryMetrics().relay];
    const relayConfig = { ...RELAY, batchSize: 3 };
    const first = new InboxRelay({
      store,
      relay: relayConfig,
      sources: SOURCES,
      metrics: replicas[0]!,
      logger: silentLogger,
    });
    // The second relay uses its own pool, as a second replica would.
    const secondPool = testPool(db.url);
    const replica = new InboxRelay({
      store: createPostgresInboxStore(secondPool, names, clock),
      relay: relayConfig,
      sources: SOURCES,
      metrics: replicas[1]!,
      logger: silentLogger,
    });
    const violations: string[] = [];
    let watching = true;
    const monitor = (async () => {
      while (watching) {
        const rows = await db.sql`
          SELECT aggregate_id FROM inbox WHERE state = 'processing' GROUP BY aggregate_id HAVING count(*) > 1`;
        violations.push(...rows.map((r) => String(r.aggregate_id)));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    first.start();
    replica.start();
    try {
      await storeAll(interleaved(4, 10));
      await waitFor(async () => (await pendingPush()) === 0);
    } finally {
      await Promise.all([first.close(), replica.close()]);
      watching = false;
      await monitor;
      await secondPool.end();
    }
    expect(violations).toEqual([]);
    await expectKeyOrderEqualsCreatedOrder();
    const total =
      replicas[0]!.messages.value({ status: 'forwarded' }) +
      replicas[1]!.messages.value({ status: 'forwarded' });
    expect(total).toBe(80);
  });

  it('forwards other rows within one cycle while a stuck aggregate has a backlog larger than the window', async () => {
    // The defaults: batch 100, so a candidate window of 500 rows. X's head is stuck in flight
    // (another replica's lease, an hour long) with 600 rows behind it, all due first.
    const [head] = await storeAll([inboxMessage({ aggregateId: 'X' })]);
    await db.sql`UPDATE inbox SET state = 'processing', claim_token = gen_random_uuid(),
      lease_expires_at = clock_timestamp() + interval '1 hour' WHERE id = ${head!.id}`;
    const backlog = Array.from({ length: 600 }, () => inboxMessage({ aggregateId: 'X' }));
    await Promise.all(backlog.map((m) => store.store(m, { initialDelayMs: 0 })));
    const [other, loose] = await storeAll([inboxMessage({ aggregateId: 'Y' }), inboxMessage()]);
    const relay = new InboxRelay({
      store,
      relay: { ...RELAY, batchSize: 100 },
      sources: SOURCES,
      metrics: createMemoryMetrics().relay,
      logger: silentLogger,
    });
    await relay.cycle();
    const outbox = await db.sql`SELECT key, headers->>'x-inbox-id' AS inbox_id FROM outbox`;
    expect(outbox.map((r) => r.inbox_id as string).sort()).toEqual([other!.id, loose!.id].sort());
    const [left] = await db.sql`SELECT count(*)::int AS n FROM inbox
      WHERE aggregate_id = 'X' AND state = 'pending'`;
    expect(left!.n).toBe(600);
  });

  it('recovers the claims of a relay that died before forwarding, without a second outbox row', async () => {
    const stored = await storeAll(interleaved(3, 2));
    // The "dead" relay claimed the heads of all three aggregates under a short lease.
    const orphaned = await store.claimForRelay(10, 200);
    expect(orphaned).toHaveLength(3);
    const metrics = createMemoryMetrics().relay;
    const relay = { ...RELAY, claimTimeoutMs: 500 };
    await relayUntilForwarded(
      new InboxRelay({ store, relay, sources: SOURCES, metrics, logger: silentLogger }),
    );
    // The dead relay wakes up and tries to finish its work: the fence refuses all of it.
    const late = await store.forward(
      orphaned.map((m) => ({
        fence: { id: m.id, claimToken: m.claimToken },
        outbox: {
          topic: 'late',
          key: m.aggregateId,
          headers: { 'x-inbox-id': m.id },
        },
      })),
    );
    expect(late).toEqual(new Set());
    const outbox = await db.sql`SELECT headers->>'x-inbox-id' AS inbox_id, topic FROM outbox`;
    expect(outbox.map((r) => r.inbox_id as string).sort()).toEqual(stored.map((m) => m.id).sort());
    expect(outbox.some((r) => r.topic === 'late')).toBe(false);
    await expectKeyOrderEqualsCreatedOrder();
  });
});
