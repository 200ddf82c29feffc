import {
  createKafkaKit,
  startPrivateKafka,
  type FreshDatabase,
  type PrivateKafka,
} from '@queuebox/testing';
import { skipTitle } from '@queuebox/testing/contracts';
import { beforeAll, describe, expect, it } from 'vitest';
import { count } from './e2e-rows.js';
import { kafkaSuite } from './kafka-e2e.js';
import { suiteScratch } from './scratch.js';
import { openDatabase, openService } from './scratch-opens.js';
import { eventually } from './service.js';

const SUITE = 'app with its broker SIGKILLed mid-publish';
const { ready, skip, pgUrl } = await kafkaSuite(SUITE, 1);

/**
 * The outbox publishing to a broker of the test's own (scripts/kafka/broker.mjs on free ports,
 * never the shared one) that is SIGKILLed while rows are on the wire and started again on its
 * data: the rows in flight fail and take the retry path, none is lost, and every extra copy on
 * the topic comes from a failed attempt (at least once: Kafka keeps no duplicate window for a
 * producer whose request died with the broker). The copies are counted and printed.
 */
describe.skipIf(!ready)(skipTitle('Kafka broker SIGKILLed mid-publish', skip), () => {
  // The first kit's connections die with the broker mid-test: a kit's cleanup may fail, and that
  // must not fail the file.
  const opened = suiteScratch(120_000);
  const openKit = (prefix: string) =>
    opened.open(createKafkaKit(broker.brokers, prefix), (kit) =>
      kit.cleanup().catch(() => undefined),
    );
  let db: FreshDatabase;
  let broker: PrivateKafka;
  let topic: string;

  beforeAll(async () => {
    db = await openDatabase(opened, pgUrl, 'qb_kafka_kill');
    broker = await opened.open(startPrivateKafka(), (started) => started.stop());
    const setup = await openKit('qb-kkill');
    topic = await setup.topic(setup.name('out'), 3);
    await openService(
      opened,
      db,
      `
database:
  migrate: true
outbox:
  pollIntervalMs: 50
  retryBaseDelayMs: 100
destinations:
  out:
    type: kafka
    bootstrapServers: ${broker.brokers}
    topic: ${topic}
    timeoutMs: 5000
routes:
  - topicPattern: "kill.*"
    destination: out
`,
    );
  }, 240_000);

  const sent = () =>
    count(db, `SELECT count(*)::int AS n FROM outbox WHERE topic = 'kill.row' AND state = 'sent'`);

  it('retries the rows the dead broker held, loses none, and every duplicate is a retried row', async () => {
    const total = 600;
    const insert = (from: number, to: number) => db.sql<{ id: string }[]>`
      INSERT INTO outbox (topic, key, payload, max_attempts)
      SELECT 'kill.row', 'k-' || (n % 16), jsonb_build_object('n', n), 1000
      FROM generate_series(${from}::int, ${to}::int) AS n
      RETURNING id`;
    const ids = (await insert(1, total / 2)).map((row) => row.id);
    await eventually(async () => (await sent()) >= 50, 60_000);
    await broker.kill();
    // Rows keep coming while the broker is down: they wait for it on the retry path (their
    // max_attempts outlasts a broker start on a loaded machine).
    ids.push(...(await insert(total / 2 + 1, total)).map((row) => row.id));
    await eventually(
      async () => (await count(db, `SELECT count(*)::int AS n FROM outbox WHERE attempt > 0`)) > 0,
      30_000,
    );
    expect(await sent()).toBeLessThan(total);
    await broker.restart();
    await eventually(async () => (await sent()) === total, 120_000).catch(
      async (error: unknown) => {
        // What the rows say is what a failure here needs.
        const states = await db.sql`
        SELECT state, count(*)::int AS n, max(attempt) AS attempts, max(last_error) AS error
        FROM outbox GROUP BY state`;
        throw new Error(`${String(error)}: ${JSON.stringify(states)}`);
      },
    );
    expect(await count(db, `SELECT count(*)::int AS n FROM outbox WHERE state <> 'sent'`)).toBe(0);

    // The kit's connections died with the broker: a new kit reads the topic (the first one
    // still deletes it at the end).
    const reader = await openKit('qb-kkill-read');
    const read = reader.collect(topic);
    const arrived = () =>
      new Set(read.records.map((r) => r.headers.find(([n]) => n === 'x-message-id')?.[1]));
    await eventually(() => ids.every((id) => arrived().has(id)), 60_000);
    await read.stop();
    const duplicates = read.records.length - arrived().size;
    const failedAttempts = await count(
      db,
      `SELECT coalesce(sum(attempt), 0)::int AS n FROM outbox`,
    );
    console.info(
      `Kafka broker SIGKILLed mid-publish: ${total} rows, ${read.records.length} records on the topic, ${duplicates} duplicate(s), ${failedAttempts} failed attempt(s) retried`,
    );
    expect(failedAttempts).toBeGreaterThan(0);
    expect(duplicates).toBeGreaterThanOrEqual(0);
    expect(duplicates).toBeLessThanOrEqual(failedAttempts);
    expect(arrived().size).toBe(total);
  }, 300_000);
});
