import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  DEFAULT_INBOX_COLUMNS,
  DEFAULT_OUTBOX_COLUMNS,
  systemClock,
  type DatabaseConfig,
  type HttpDestinationConfig,
  type OutboxStore,
  type RouteConfig,
} from '@queuebox/core';
import {
  createPostgresOutboxStore,
  runMigrations,
  tableNamesFrom,
  type TableNames,
} from '@queuebox/postgres';
import {
  createFreshDatabase,
  createMemoryMetrics,
  RecordingLogger,
  requireService,
  startHttpSink,
  until,
  type FreshDatabase,
  type HttpSink,
} from '@queuebox/testing';
import {
  createHttpPublisher,
  createJsonataTransformer,
  createMessageRouter,
  createTransformPipeline,
  DestinationGates,
  OutboxPoller,
  PublisherRegistry,
  validateRouting,
  type DestinationGate,
} from '@queuebox/outbox-service';

/**
 * The destination gate on real PostgreSQL: the claim passes over the rows of a destination
 * without capacity, so they stay pending with no lease and no attempt, while the rows of the
 * other destinations are claimed and delivered; once the gate opens they are delivered too.
 */
const SUITE = 'outbox-service: destination gate on PostgreSQL';
const pg = await requireService('postgres', SUITE);

/** A gate the test opens and closes; counts what the poller asked. */
class SwitchGate implements DestinationGate {
  closed = true;
  admitted = 0;
  settledCount = 0;
  blocked(): boolean {
    return this.closed;
  }
  admit(): boolean {
    if (this.closed) return false;
    this.admitted++;
    return true;
  }
  settled(): void {
    this.settledCount++;
  }
}

/** `until` for a check that reads the database. */
async function untilRows(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('timed out waiting for the rows');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function httpTo(url: string): HttpDestinationConfig {
  return {
    type: 'http',
    baseUrl: url,
    path: '/events',
    timeoutMs: 10_000,
    headers: {},
    auth: null,
    transform: null,
  };
}

function route(topicPattern: string, destination: string): RouteConfig {
  return {
    topicPattern,
    destination,
    routingKeyTemplate: null,
    routingKeyMissingFieldDefault: '',
    transform: null,
  };
}

describe.skipIf(!pg.available)(SUITE, () => {
  let db: FreshDatabase;
  let tables: TableNames;
  const cleanups: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    if (!pg.available) return;
    db = await createFreshDatabase(pg.url, 'qb_gate');
    await runMigrations(db.sql, { logger: new RecordingLogger() });
    tables = tableNamesFrom({
      outboxTableName: 'outbox',
      inboxTableName: 'inbox',
      columnMapping: { outbox: DEFAULT_OUTBOX_COLUMNS, inbox: DEFAULT_INBOX_COLUMNS },
    } as DatabaseConfig);
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    await db.sql`DELETE FROM outbox`;
  });

  afterAll(async () => {
    await db?.drop();
  });

  async function sink(): Promise<HttpSink> {
    const started = await startHttpSink();
    cleanups.push(() => started.close());
    return started;
  }

  function start(
    sinks: Record<string, HttpSink>,
    routes: RouteConfig[],
    gates: (gates: DestinationGates) => void,
    store: OutboxStore = createPostgresOutboxStore(db.sql, tables, systemClock),
  ) {
    const destinations = Object.fromEntries(
      Object.entries(sinks).map(([name, s]) => [name, httpTo(s.url)]),
    );
    const publisher = createHttpPublisher({
      config: {
        destinations,
        http: { maxErrorBodyBytes: 2048, blockPrivateAddresses: false },
        outbox: { concurrency: 8 },
      },
    });
    const registry = new DestinationGates(routes);
    gates(registry);
    const poller = new OutboxPoller(
      {
        pollIntervalMs: 20,
        batchSize: 10,
        concurrency: 8,
        retryBaseDelayMs: 20,
        claimTimeoutMs: 30_000,
        pendingGaugeIntervalMs: 5_000,
        shutdownTimeoutMs: 2_000,
      },
      {
        store,
        router: createMessageRouter(
          validateRouting({ destinations, routes }, createJsonataTransformer()),
        ),
        pipeline: createTransformPipeline(),
        publishers: new PublisherRegistry([publisher]),
        metrics: createMemoryMetrics().outbox,
        logger: new RecordingLogger(),
        gates: registry,
      },
    );
    cleanups.push(async () => {
      await poller.close();
      await publisher.close();
    });
    poller.start();
    return poller;
  }

  async function insert(topics: string[]): Promise<void> {
    for (const topic of topics) {
      await db.sql`INSERT INTO outbox (topic, payload) VALUES (${topic}, ${db.sql.json({ topic })})`;
    }
  }

  async function rowsOf(topicLike: string) {
    return db.sql<{ state: string; attempt: number; claimed: boolean; token: boolean }[]>`
      SELECT state, attempt, claimed_at IS NOT NULL AS claimed, claim_token IS NOT NULL AS token
      FROM outbox WHERE topic LIKE ${topicLike}`;
  }

  it("leaves a blocked destination's rows pending and unclaimed while another destination's flow", async () => {
    const a = await sink();
    const b = await sink();
    const gate = new SwitchGate();
    // Interleaved, so the blocked rows sit in front of the others in claim order.
    const topics: string[] = [];
    for (let i = 0; i < 30; i++) topics.push(`orders.${i}`, `invoices.${i}`);
    await insert(topics);
    start({ a, b }, [route('orders.**', 'a'), route('**', 'b')], (g) => g.add('a', gate));

    await until(() => b.requests.length === 30, 20_000);
    // Give the poller more cycles in which it could have claimed the blocked rows.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(a.requests).toHaveLength(0);
    const blocked = await rowsOf('orders.%');
    expect(blocked).toHaveLength(30);
    for (const row of blocked) {
      expect(row).toEqual({ state: 'pending', attempt: 0, claimed: false, token: false });
    }
    expect((await rowsOf('invoices.%')).every((row) => row.state === 'sent')).toBe(true);
    expect(gate.admitted).toBe(0);

    gate.closed = false;
    await until(() => a.requests.length === 30, 20_000);
    await untilRows(async () => (await rowsOf('orders.%')).every((row) => row.state === 'sent'));
    const sent = await rowsOf('orders.%');
    expect(sent.every((row) => row.attempt === 0)).toBe(true);
    await until(() => gate.settledCount === 30, 5_000);
    expect(gate.admitted).toBe(30);
  });

  it('passes over only the topics whose first matching route is the blocked one', async () => {
    const a = await sink();
    const b = await sink();
    const gate = new SwitchGate();
    // `orders.special` and `orders.x.y` match `orders.**` too, but an earlier route wins.
    const routes = [
      route('orders.special', 'b'),
      route('orders.*.y', 'b'),
      route('orders.**', 'a'),
      route('**', 'b'),
    ];
    await insert(['orders.special', 'orders.x.y', 'orders.x', 'orders.x.z', 'other', 'x+y(1)']);
    start({ a, b }, routes, (g) => g.add('a', gate));

    await until(() => b.requests.length === 4, 20_000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const topicsAt = (s: HttpSink) =>
      s.requests.map((r) => (JSON.parse(r.body) as { topic: string }).topic).sort();
    expect(topicsAt(b)).toEqual(['orders.special', 'orders.x.y', 'other', 'x+y(1)']);
    expect(a.requests).toHaveLength(0);
    // Never claimed at all: a claim sets the token, a hand-back leaves it.
    const pending = await db.sql<{ topic: string }[]>`
      SELECT topic FROM outbox WHERE state = 'pending' AND claim_token IS NULL ORDER BY topic`;
    expect(pending.map((r) => r.topic)).toEqual(['orders.x', 'orders.x.z']);
  });

  it('hands back, attempt unchanged, the rows a store that cannot pass over still returns', async () => {
    const a = await sink();
    const b = await sink();
    const gate = new SwitchGate();
    const real = createPostgresOutboxStore(db.sql, tables, systemClock);
    let handedBack = 0;
    // A store like one whose SQL cannot filter on the topic: it claims as if nothing was blocked.
    const unfiltered: OutboxStore = {
      ...real,
      claim: (limit, leaseMs) => real.claim(limit, leaseMs),
      release: async (fences) => {
        handedBack += fences.length;
        return real.release!(fences);
      },
    };
    await insert(['orders.1', 'orders.2', 'invoices.1', 'invoices.2']);
    start(
      { a, b },
      [route('orders.**', 'a'), route('**', 'b')],
      (g) => g.add('a', gate),
      unfiltered,
    );

    await until(() => b.requests.length === 2, 20_000);
    await until(() => handedBack >= 2, 20_000);
    expect(a.requests).toHaveLength(0);
    for (const row of await rowsOf('orders.%')) {
      // Pending again, or claimed by the next cycle and about to be handed back once more.
      expect(row.attempt).toBe(0);
    }
    gate.closed = false;
    await until(() => a.requests.length === 2, 20_000);
  });
});
