import { requireService } from '@queuebox/testing';
import { describe, expect, it } from 'vitest';
import { servedOnDatabase } from './process-suite.js';
import { everyOutboxRowSent } from './e2e-rows.js';
import { eventually } from './service.js';
import { RELAY_OFF, sinkRoute } from './yaml-pieces.js';

const pg = await requireService('postgres', 'app: a replica killed mid-delivery');
const pgUrl = pg.available ? pg.url : '';

const CLAIM_TIMEOUT_MS = 2_000;

/**
 * Promise G3 of the README (spec §18.1, §4.1 step 1): a crash can duplicate, and loses nothing.
 * Two real QueueBox processes (the built app) share one database. The first hands its rows to a
 * receiver that takes them and never answers, and is killed with SIGKILL while they are in
 * flight: no shutdown step runs, the rows stay `processing` under leases nobody renews. The
 * second replica's reclaim step returns them to `pending` once the leases run out, without
 * counting an attempt, and delivers them: the receiver sees each such row twice with the same
 * X-Message-Id, and the rest of the key behind it in order.
 */
describe.skipIf(!pg.available)('a replica killed with SIGKILL mid-delivery', () => {
  let muted = true;
  // Until the first replica is killed, every delivery is taken and never answered (the replica
  // dies holding it); after that, every one is accepted.
  const h = servedOnDatabase(pgUrl, {
    prefix: 'qb_crash',
    answer: (_request, response) => {
      if (!muted) response.writeHead(200).end('ok');
    },
  });

  const replica = () =>
    h.serve(`
outbox:
  pollIntervalMs: 50
  claimTimeoutMs: ${CLAIM_TIMEOUT_MS}
${RELAY_OFF}${sinkRoute(h.sink.url, { path: '/events' })}`);

  it('delivers the rows a killed replica left in processing, again with the same message id and attempt', async () => {
    const { db, sink } = h;
    const first = await replica();
    const ids: string[] = [];
    for (const [key, step] of [
      ['order-1', 1],
      ['order-1', 2],
      [null, 3],
    ] as const) {
      const [row] = await db.sql<{ id: string }[]>`
        INSERT INTO outbox (topic, key, payload) VALUES ('order.step', ${key}, ${db.sql.json({ step })})
        RETURNING id::text AS id`;
      ids.push(row!.id);
    }
    const [head, behind, loose] = ids as [string, string, string];
    // The head of order-1 and the keyless row reach the receiver; step 2 waits behind its head.
    await eventually(() => sink.requests.length === 2);

    first.qb.child.kill('SIGKILL');
    const killed = await first.qb.exited;
    expect(killed.code).toBeNull();
    muted = false;
    const atKill = await db.sql<{ id: string; state: string; attempt: number }[]>`
      SELECT id::text AS id, state, attempt FROM outbox ORDER BY sequence`;
    expect(atKill).toEqual([
      { id: head, state: 'processing', attempt: 0 },
      { id: behind, state: 'pending', attempt: 0 },
      { id: loose, state: 'processing', attempt: 0 },
    ]);
    const heldAtKill = atKill.filter((r) => r.state === 'processing').map((r) => r.id);

    const second = await replica();
    await everyOutboxRowSent(db, 20_000);

    const deliveries = sink.requests.map((r) => ({
      id: String(r.headers['x-message-id']),
      attempt: r.headers['x-attempt'],
      step: (JSON.parse(r.body) as { step: number }).step,
    }));
    // Each row the killed replica held came twice (the duplicate G3 allows), the others once.
    for (const id of ids)
      expect(deliveries.filter((d) => d.id === id)).toHaveLength(heldAtKill.includes(id) ? 2 : 1);
    expect(deliveries.length - ids.length).toBe(heldAtKill.length);
    // The reclaim counted no attempt: every delivery is attempt 0, every row ends at attempt 0.
    expect(deliveries.every((d) => d.attempt === '0')).toBe(true);
    const final = await db.sql<{ attempt: number }[]>`SELECT attempt FROM outbox`;
    expect(final.every((r) => r.attempt === 0)).toBe(true);
    // order-1 stayed in order across the crash: step 2 only after its head was delivered again.
    const keyed = deliveries.filter((d) => d.id === head || d.id === behind).map((d) => d.step);
    expect(keyed).toEqual([1, 1, 2]);
    const metrics = await (await fetch(`${second.base}/metrics`)).text();
    expect(metrics).toMatch(/^queuebox_outbox_messages_reclaimed_total 2$/m);

    second.qb.child.kill('SIGTERM');
    expect((await second.qb.exited).code).toBe(0);
  }, 60_000);
});
