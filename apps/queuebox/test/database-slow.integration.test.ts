import { requireService } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { proxiedService } from './proxied-service.js';
import { eventually } from './service.js';

const SUITE = 'app: a database that answers slowly, under load';
const pg = await requireService('postgres', SUITE);

/** Per chunk and per direction: a round trip costs at least 400 ms. */
const LATENCY_MS = 200;
/** How long the database stays slow; waves of webhooks, six times the default pool of 10 each. */
const SLOW_MS = 5_000;
const WAVE = 60;
const ROWS = 200;

/**
 * The real service at its default pool (10 connections, connectionTimeoutMs 30 000) reaches
 * PostgreSQL through the fault proxy, which holds every packet 200 ms each way. Under a burst of
 * webhooks (six times the pool) and a backlog of outbox rows, every request is answered, the
 * poller and the relay keep moving rows while the database is slow, nothing fails for want of a
 * connection, and once the latency is gone everything is delivered: no pool exhausted, nothing
 * deadlocked.
 */
describe.skipIf(!pg.available)(SUITE, () => {
  const qb = proxiedService(pg.available ? pg.url : '', 'qb_slow');

  const webhook = (id: string) => qb.webhook(id, 'slow-test');
  /** Outbox rows by state, read straight from the shared server (not through the proxy). */
  const sentRows = async () => {
    const [row] = await qb.db.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM outbox WHERE state = 'sent'`;
    return row!.n;
  };
  const deliveredWebhooks = () =>
    qb.sink.requests.filter((r) => r.body.includes('slow-test')).length;

  it('answers every request and keeps delivering while each packet takes 200 ms, then delivers everything', async () => {
    expect((await qb.timed('/health/ready')).status).toBe(200);
    qb.proxy.setLatency(LATENCY_MS);
    const slowFrom = qb.logger.lines.length;
    const slowAt = performance.now();

    // The backlog: rows the application committed; then waves of webhooks, six times the pool
    // each, for as long as the database stays slow, with readiness asked beside them.
    await qb.db.sql`
      INSERT INTO outbox (topic, payload)
      SELECT 'rows.slow', jsonb_build_object('n', n) FROM generate_series(1, ${ROWS}) AS n`;
    const answers: { status: number; ms: number }[] = [];
    const readiness: { status: number; ms: number }[] = [];
    for (let wave = 0; performance.now() - slowAt < SLOW_MS; wave++) {
      const [burst, ready] = await Promise.all([
        Promise.all(Array.from({ length: WAVE }, (_, i) => webhook(`slow-${wave}-${i}`))),
        qb.timed('/health/ready'),
      ]);
      answers.push(...burst);
      readiness.push(ready);
    }
    // Still slow: the poller and the relay move rows, neither stuck behind the other or the
    // webhooks (polled, since how far they get in a given time depends on the machine's load).
    await eventually(async () => (await sentRows()) > 0 && deliveredWebhooks() > 0, 30_000);
    const slowLines = qb.logger.lines.slice(slowFrom);
    qb.proxy.setLatency(0);

    const webhooks = answers.length;
    expect(webhooks).toBeGreaterThanOrEqual(2 * WAVE);
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 202));
    // Far from the pool's 30 s: the inserts share statements and the pool, nothing queues for good.
    const slowestAnswerMs = Math.max(...answers.map((a) => a.ms));
    expect(slowestAnswerMs).toBeLessThan(10_000);
    // Readiness answers within its check bound (3 s) plus the request, whatever it says.
    expect(Math.max(...readiness.map((a) => a.ms))).toBeLessThan(5_000);

    await eventually(async () => (await sentRows()) === ROWS + webhooks, 20_000);
    expect(deliveredWebhooks()).toBe(webhooks);
    expect(new Set(qb.sink.requests.map((r) => r.headers['x-message-id'])).size).toBe(
      ROWS + webhooks,
    );
    const inbox = await qb.db.sql<{ state: string; n: number }[]>`
      SELECT state, count(*)::int AS n FROM inbox GROUP BY state`;
    expect(inbox).toEqual([{ state: 'processed', n: webhooks }]);
    expect((await qb.timed('/health/ready')).status).toBe(200);
    // Slow is not broken: no failed cycle, no connection or statement timeout, no lost claim.
    expect(slowLines.filter((l) => l.level === 'error' || l.level === 'warn')).toEqual([]);
    expect(qb.logger.at('error')).toEqual([]);
  }, 90_000);
});
